"""Peak memory and wall time of a command-line run load.

    python benchmarks/ingest_memory.py --label after --runs benchmarks/work/ingest/ties.txt [...] [--reps 2]

Each figure is one fresh `python -m core --store S load --collection bench --run FILE` into a copy of a store
that already holds the qrels (`--qrels`, loaded once), measured with `/usr/bin/time -f '%M %e'` (peak RSS in KB,
wall seconds) inside `flock /tmp/rankboard-bench.lock`, with /proc/loadavg read inside the lock just before
and after. RANKBOARD_MAX_TEXT_MB is raised to 8192 so a 50M-line run is not refused by the text limit. Every
figure is appended to benchmarks/work/ingest_memory.json and printed as a markdown row.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCK = "/tmp/rankboard-bench.lock"


def _lines(path: Path) -> int:
    out = subprocess.run(["sh", "-c", f"{'zcat' if path.suffix == '.gz' else 'cat'} '{path}' | wc -l"],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def measure(store: Path, run: Path, env: dict, src: Path) -> dict:
    script = ("cat /proc/loadavg; /usr/bin/time -f 'TIME %M %e' \"$0\" -m core --store \"$1\" load "
              "--collection bench --run \"$2\" >/dev/null; echo rc=$?; cat /proc/loadavg")
    out = subprocess.run(["flock", LOCK, "sh", "-c", script, sys.executable, str(store), str(run)],
                         capture_output=True, text=True, env=env, cwd=src)
    lines = out.stdout.splitlines() + out.stderr.splitlines()
    timing = [ln for ln in lines if ln.startswith("TIME ")][-1].split()
    loads = [ln for ln in out.stdout.splitlines() if ln.count(".") >= 3 and "/" in ln]
    return {"peak_mb": int(timing[1]) // 1024, "wall_s": float(timing[2]),
            "ok": "rc=0" in out.stdout, "load_before": " ".join(loads[0].split()[:3]),
            "load_after": " ".join(loads[-1].split()[:3]),
            "error": "" if "rc=0" in out.stdout else out.stderr.strip().splitlines()[-2:]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--runs", nargs="+", required=True, type=Path)
    ap.add_argument("--qrels", type=Path, default=HERE / "work" / "ingest" / "qrels.txt")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--src", type=Path, default=ROOT, help="the Rankboard source tree to measure (e.g. an export "
                    "of an older commit: git archive COMMIT | tar -x -C DIR); default: this one")
    ap.add_argument("--commit", help="the commit of --src, for the table (default: HEAD of this tree)")
    args = ap.parse_args(argv)
    src = args.src.resolve()
    env = dict(os.environ, RANKBOARD_MAX_TEXT_MB="8192", PYTHONPATH=str(src))
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                           cwd=ROOT).stdout.strip()
    results = []
    with tempfile.TemporaryDirectory(dir=HERE / "work") as tmp:
        base = Path(tmp) / "base.duckdb"
        subprocess.run([sys.executable, "-m", "core", "--store", str(base), "load", "--collection", "bench",
                        "--qrels", str(args.qrels.resolve())], check=True, env=env, cwd=src, capture_output=True)
        for run in args.runs:
            n = _lines(run)
            for _ in range(args.reps):
                store = Path(tmp) / "s.duckdb"
                shutil.copy(base, store)
                got = measure(store, run.resolve(), env, src)
                got.update(label=args.label, commit=commit, run=run.name, lines=n, bytes=run.stat().st_size,
                           at=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
                results.append(got)
                print(f"| {args.label} ({commit}) | {run.name} | {n:,} | {got['peak_mb']:,} MB | {got['wall_s']:.1f} s | "
                      f"{'loaded' if got['ok'] else got['error']} | {got['at']} | {got['load_before']} / "
                      f"{got['load_after']} |", flush=True)
                for p in Path(tmp).glob("s.duckdb*"):
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
    log = HERE / "work" / "ingest_memory.json"
    old = json.loads(log.read_text()) if log.exists() else []
    log.write_text(json.dumps(old + results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
