"""The Dask engine against the single-process CLI, on many runs.

    python benchmarks/generate.py --topics 500 --runs 20 --out benchmarks/work/d20     # 20 runs x 491k lines
    python benchmarks/generate.py --topics 50 --runs 200 --out benchmarks/work/d200    # 200 runs x 49k lines
    flock /tmp/rankboard-bench.lock python benchmarks/dask_bench.py --reps 3

Every figure is the wall time of a fresh `python -m core evaluate ...` process (AP, nDCG@10, P@10, trec output),
so the Dask lines include starting the local cluster; the start-up alone is timed in its own process. The
machine's load average is printed next to every figure. The Parquet copies are made with `python -m core convert`
(timed once). Results go to stdout as Markdown rows and to benchmarks/work/dask_bench.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "work"
MEASURES = ["-m", "AP", "-m", "nDCG@10", "-m", "P@10"]
STARTUP = ("import time, sys; t = time.perf_counter(); from distributed import LocalCluster, Client; "
           "c = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, dashboard_address=None); "
           "cl = Client(c); cl.wait_for_workers(int(sys.argv[1])); print(time.perf_counter() - t); cl.close(); c.close()")


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def timed(cmd: list[str]) -> tuple[float, str]:
    before = load()
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr}")
    return wall, before


def runs_of(folder: Path, ext: str) -> list[str]:
    return sorted(str(p) for p in folder.glob(f"run*.{ext}"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sets", nargs="+", default=["d20", "d200"])
    args = ap.parse_args(argv)
    py = sys.executable
    rows, out = [], {}
    for n in (1, 2):
        walls = [timed([py, "-c", STARTUP, str(n)]) for _ in range(args.reps)]
        rows.append(("cluster start-up", f"{n} worker(s)", walls))
    for name in args.sets:
        folder = WORK / name
        qrels = str(folder / "qrels.txt")
        pq = folder / "parquet"
        if not runs_of(pq, "parquet"):
            rows.append((name, "convert to Parquet (once)",
                         [timed([py, "-m", "core", "convert", *runs_of(folder, "txt"), "--out", str(pq)])]))
        for kind, runs in (("text", runs_of(folder, "txt")), ("parquet", runs_of(pq, "parquet"))):
            base = [py, "-m", "core", "evaluate", qrels, *runs, *MEASURES]
            rows.append((name, f"{kind}: single-process CLI", [timed(base) for _ in range(args.reps)]))
            for n in (1, 2):
                rows.append((name, f"{kind}: --engine dask --workers {n} (incl. start)",
                             [timed(base + ["--engine", "dask", "--workers", str(n)]) for _ in range(args.reps)]))
    print("| data | what | median s | runs (load avg 1 min before each) |")
    print("|---|---|---|---|")
    for data, what, walls in rows:
        med = statistics.median(w for w, _ in walls)
        reps = ", ".join(f"{w:.2f} ({ld})" for w, ld in walls)
        print(f"| {data} | {what} | {med:.2f} | {reps} |")
        out[f"{data} | {what}"] = walls
    (WORK / "dask_bench.json").write_text(json.dumps(out, indent=1))
    return 0




MODEL = """
import pickle, sys, time
import pyarrow as pa
from core.distributed.tasks import read_rows, with_run
from core.formats import read_qrels
from core.distributed.kernel import evaluate_rows
folder = sys.argv[1]
qrels = read_qrels(folder + "/qrels.txt").table
out = {"qrels_bytes": len(pickle.dumps(qrels))}
for kind, path in (("text", folder + "/run00.txt"), ("parquet", folder + "/parquet/run00.parquet")):
    evaluate_rows(with_run(read_rows(path)[0], "0"), qrels, ["AP", "nDCG@10", "P@10"])     # warm
    t = time.perf_counter(); table = read_rows(path)[0]; r = time.perf_counter() - t
    t = time.perf_counter(); res = evaluate_rows(with_run(table, "0"), qrels, ["AP", "nDCG@10", "P@10"]); k = time.perf_counter() - t
    out[kind] = {"read_s": r, "kernel_s": k, "rows": table.num_rows, "result_bytes": len(pickle.dumps(res))}
t = time.perf_counter(); evaluate_rows(with_run(table.slice(0, 1000), "0"), qrels, ["AP"]); out["tiny_kernel_s"] = time.perf_counter() - t
from distributed import Client, LocalCluster
c = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None))
c.gather(c.map(abs, range(50)))
t = time.perf_counter(); c.gather(c.map(abs, range(1000), pure=False)); out["noop_task_s"] = (time.perf_counter() - t) / 1000
print(out)
"""


def model(folder: str) -> None:
    """Per-task figures for the paper estimate: read and kernel time of one run, bytes moved, and the
    scheduler's cost per task (1,000 no-op tasks on a running 2-worker cluster)."""
    print(load(), subprocess.run([sys.executable, "-c", MODEL, folder], cwd=ROOT, capture_output=True,
                                 text=True).stdout)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--model"]:
        for name in sys.argv[2:]:
            model(str(WORK / name))
        sys.exit(0)
    sys.exit(main())
