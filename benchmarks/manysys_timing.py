"""Time of comparing many runs at once: 50 runs x 5,000 topics.

    flock /tmp/rankboard-bench.lock python benchmarks/manysys_timing.py [--runs 50] [--topics 5000] [--reps 3]

Harnesses, each rep in a fresh process (interpreter start and imports excluded, as a running
server or a warm CLI has paid them; the CLI harness times the whole command):
- stats: core.stats.baselines.report on a synthetic per-query table (runs x topics x 2 measures, AP-like
  values in [0, 1]) with ranks=True and 1,000 resamples, for each all-pairs test: the rank
  bootstrap, the runs x runs p-value matrix and the letters; this is the part of
  `python -m core compare --ranks` that has a 5 s target;
- cli: `python -m core compare QRELS RUN x runs --ranks --test T --resamples 1000 --format json`
  on synthetic TREC files of depth --depth (wall time of the whole command, parsing and
  evaluation included);
- leaderboard (--leaderboard): Streamlit's AppTest runs the Leaderboard on a store holding those
  runs (fresh copy, empty results cache) with ?baseline=run00: all runs, the 5 default measures,
  the rank column, letters and heatmap; cold = the first script run after imports, cached = the
  next rerun (as benchmarks/leaderboard_timing.py measures the 10-run leaderboard);
Results go to benchmarks/work/manysys.json and to the `manysys` section of benchmarks/RESULTS.md
(benchmarks/sections.py), with the load average before each repetition.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
TESTS = ("t", "tukey", "randomization-all")


def per_query(runs: int, topics: int, seed: int = 0):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(seed)
    ease = rng.beta(2, 3, size=topics)[:, None]
    skill = np.linspace(-0.05, 0.05, runs)[None, :]
    frames = []
    for measure, scale in (("AP", 1.0), ("nDCG@10", 1.2)):
        X = np.clip(scale * ease + skill + 0.15 * rng.standard_normal((topics, runs)), 0, 1)
        frames.append(pd.DataFrame({"run": np.tile([f"run{j:02d}" for j in range(runs)], topics),
                                    "qid": np.repeat([str(t + 1) for t in range(topics)], runs),
                                    "measure": measure, "value": X.ravel()}))
    return pd.concat(frames, ignore_index=True)


def child_stats(runs: int, topics: int, test: str) -> dict:
    import scipy.stats  # noqa: F401  core imports these on first use (core.stats.paired._sp); the timing, as before,
    import statsmodels.stats.multitest  # noqa: F401  leaves imports out
    from core.stats.baselines import report
    pq = per_query(runs, topics)
    t0 = time.perf_counter()
    rep = report(pq, baselines=["run00"], measures=["AP", "nDCG@10"], test=test, correction="holm",
                 ranks=True, n_resamples=1000)
    t1 = time.perf_counter()
    return {"total": t1 - t0, "records": len(rep.to_records()),
            "groups": len(set("".join(rep.resolutions["AP"].group)))}


def write_collection(folder: Path, runs: int, topics: int, depth: int) -> list[Path]:
    """qrels.txt and runNN.txt: `depth` documents per topic, 20 judged per topic (grades 0-2)."""
    import numpy as np
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels.txt"
    rng = np.random.default_rng(1)
    pool = 2 * depth
    if not qrels.exists():
        t = np.repeat(np.arange(1, topics + 1), 20)
        d = np.tile(np.arange(20), topics)
        g = rng.integers(0, 3, size=t.size)
        qrels.write_text("".join(f"{a} 0 D{a}-{b} {c}\n" for a, b, c in zip(t, d, g)))
    paths = []
    for j in range(runs):
        path = folder / f"run{j:02d}.txt"
        paths.append(path)
        if path.exists():
            continue
        r = np.random.default_rng(100 + j)
        lines = []
        for a in range(1, topics + 1):
            docs = r.choice(pool, size=depth, replace=False)
            scores = np.sort(r.random(depth))[::-1]
            lines += [f"{a} Q0 D{a}-{b} {k + 1} {s:.4f} run{j:02d}\n" for k, (b, s) in enumerate(zip(docs, scores))]
        path.write_text("".join(lines))
    return [qrels] + paths


def time_cli(files: list[Path], test: str) -> dict:
    cmd = [sys.executable, "-m", "core", "compare", str(files[0]), *map(str, files[1:]), "--baseline", "run00",
           "-m", "AP", "--ranks", "--test", test, "--resamples", "1000", "--format", "json"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-3:]}
    return {"total": wall, "records": len(json.loads(p.stdout))}


def child_leaderboard(store_path: str) -> dict:
    from leaderboard_timing import child_apptest    # the same AppTest harness as the 10-run leaderboard
    return child_apptest(store_path)


def leaderboard(files: list[Path], reps: int) -> dict:
    import shutil
    template = files[0].parent / "store.duckdb"
    if not template.exists():
        from core.store.store import Store
        store = Store.open(template.with_suffix(".building"), load_sample=False)
        coll = store.create_collection("bench")
        store.add_qrels(coll, files[0], filename=files[0].name)
        for r in files[1:]:
            store.add_run(coll, r, filename=r.name, name=r.stem)
        store.close()
        template.with_suffix(".building").rename(template)
    dest = files[0].parent / "timed.duckdb"
    samples = []
    for _ in range(reps):
        for p in (dest, Path(str(dest) + ".wal")):
            p.unlink(missing_ok=True)
        shutil.copyfile(template, dest)
        load = os.getloadavg()
        p = subprocess.run([sys.executable, __file__, "--child-leaderboard", str(dest)], cwd=ROOT,
                           capture_output=True, text=True)
        s = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-300:]}
        s["load"] = load
        samples.append(s)
        print(f"leaderboard: {s}", flush=True)
    cold = [s["cold"]["total"] for s in samples if "cold" in s]
    cached = [s["cached"]["total"] for s in samples if "cached" in s]
    return {"cold_median_s": statistics.median(cold) if cold else None,
            "cached_median_s": statistics.median(cached) if cached else None, "samples": samples}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--topics", type=int, default=5000)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-cli", action="store_true")
    ap.add_argument("--child", choices=TESTS)
    ap.add_argument("--leaderboard", action="store_true", help="time the Leaderboard page (AppTest)")
    ap.add_argument("--only-leaderboard", action="store_true")
    ap.add_argument("--child-leaderboard", metavar="STORE")
    args = ap.parse_args(argv)
    if args.child_leaderboard:
        print(json.dumps(child_leaderboard(args.child_leaderboard)))
        return 0
    if args.child:
        print(json.dumps(child_stats(args.runs, args.topics, args.child)))
        return 0
    import sections
    out = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": args.runs, "topics": args.topics,
           "git": sections.commit(),
           "command": "python benchmarks/manysys_timing.py " + " ".join(argv or sys.argv[1:])}
    for test in () if args.only_leaderboard else TESTS:
        samples = []
        for _ in range(args.reps):
            load = os.getloadavg()
            p = subprocess.run([sys.executable, __file__, "--child", test, "--runs", str(args.runs),
                                "--topics", str(args.topics)], cwd=ROOT, capture_output=True, text=True)
            s = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-300:]}
            s["load"] = load
            samples.append(s)
            print(f"stats {test}: {s}", flush=True)
        ok = [s["total"] for s in samples if "total" in s]
        out[f"stats_{test}"] = {"median_s": statistics.median(ok) if ok else None, "samples": samples}
    files = write_collection(HERE / "work" / f"many_{args.runs}x{args.topics}_d{args.depth}", args.runs,
                             args.topics, args.depth)
    if args.leaderboard or args.only_leaderboard:
        out["leaderboard"] = leaderboard(files, args.reps)
    if not args.no_cli and not args.only_leaderboard:
        for test in TESTS:
            samples = []
            for _ in range(args.reps):
                load = os.getloadavg()
                s = time_cli(files, test)
                s["load"] = load
                samples.append(s)
                print(f"cli {test} (depth {args.depth}): {s}", flush=True)
            ok = [s["total"] for s in samples if "total" in s]
            out[f"cli_{test}"] = {"median_s": statistics.median(ok) if ok else None, "depth": args.depth,
                                  "samples": samples}
    (HERE / "work").mkdir(exist_ok=True)
    name = "manysys_leaderboard.json" if args.only_leaderboard else "manysys.json"
    (HERE / "work" / name).write_text(json.dumps(out, indent=1))
    if not args.only_leaderboard:
        sections.write("manysys", markdown(out), "benchmarks/manysys_timing.py")
    return 0


def _load(x) -> str:
    return "?" if not x else " ".join(f"{v:.2f}" for v in x)


def markdown(mr: dict) -> str:
    """The `manysys` section of RESULTS.md from one run's results."""
    import sections

    def reps(samples, key="total", digits=2):
        return ", ".join(f"{s[key] if key == 'total' else s[key]['total']:.{digits}f}" for s in samples)

    out = [sections.heading("Many runs at once", mr["when"], mr.get("git", "?")), "",
           f"{mr['runs']} runs x {mr['topics']:,} topics; measured {mr['when']}; `{mr['command']}`. Every figure is",
           "the median of the repetitions, each in a fresh process; the load average (1, 5, 15 min) was read just",
           "before each repetition. Targets: rank resolution with 1,000 resamples and the all-pairs test under 5 s",
           "in the CLI; the Leaderboard under 3 s cold.", "",
           "| what | test | median s | reps (s) | load before each rep |", "|---|---|---|---|---|"]
    for key, label in (("stats", "report(ranks=True, 1,000 resamples), 2 measures, in process"),
                       ("cli", "`python -m core compare ... --ranks --resamples 1000 -m AP`, whole command")):
        for test in TESTS:
            r = mr.get(f"{key}_{test}")
            if not r or r.get("median_s") is None:
                continue
            ok = [s for s in r["samples"] if "total" in s]
            loads = "; ".join(_load(s["load"]) for s in ok)
            out.append(f"| {label} | {test} | {r['median_s']:.2f} | {reps(ok)} | {loads} |")
    lb = mr.get("leaderboard")
    if lb:
        ok = [s for s in lb["samples"] if "cold" in s]
        loads = "; ".join(_load(s["load"]) for s in ok)
        out.append(f"| Leaderboard cold (AppTest, ?baseline=run00, 5 measures, ranks + letters) | t | "
                   f"{lb['cold_median_s']:.2f} | {reps(ok, 'cold')} | {loads} |")
        out.append(f"| Leaderboard cached | t | {lb['cached_median_s']:.3f} | {reps(ok, 'cached', 3)} | |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
