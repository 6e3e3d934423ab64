"""Preference measures (-R qrels_prefs -m all_prefs): Rankboard's CLI against trec_eval 10.0 built from source,
on the Robust 2003 qrels (100 topics, 128,796 judgments, read as preferences) and its runs; plus the peak memory
of core.engine.prefs.counts with pairs counted in chunks of EDGES (the default) against one chunk (the plain form).

    flock /tmp/rankboard-bench.lock python benchmarks/prefs_timing.py --trec-eval /path/to/trec_eval --runs 3

Prints one line per measurement with the load average next to it (the machine is shared).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROBUST = ROOT / "tests" / "reference" / "trectools_robust03"


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def _timed(cmd, reps: int) -> tuple[float, str]:
    best, out = None, ""
    for _ in range(reps):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
        best = min(best or 1e9, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trec-eval", default=None, help="trec_eval 10.0 binary (built from usnistgov/trec_eval)")
    ap.add_argument("--runs", type=int, default=3, help="how many Robust 2003 runs (one process each)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    qrels = ROBUST / "robust03_qrels.txt.gz"
    runs = sorted((ROBUST / "runs").glob("input.*.gz"))[: args.runs]
    for run in runs:
        plain = Path("/tmp") / run.name.removesuffix(".gz")          # trec_eval reads no gzip
        if not plain.exists():
            subprocess.run(f"zcat {run} > {plain}", shell=True, check=True)
        ours, out_ours = _timed([sys.executable, "-m", "core", "evaluate", "-q", "-m", "all_prefs", "-R",
                                 "qrels_prefs", str(qrels), str(plain)], args.reps)
        line = f"{run.name}: rankboard {ours:.2f} s (load {_load()})"
        if args.trec_eval:
            theirs, out_te = _timed([args.trec_eval, "-q", "-m", "all_prefs", "-R", "qrels_prefs", str(qrels),
                                     str(plain)], args.reps)
            line += f", trec_eval {theirs:.2f} s (load {_load()}), same output: {out_ours == out_te}"
        print(line, flush=True)
    plain = Path("/tmp") / runs[0].name.removesuffix(".gz")
    _memory(qrels, plain)
    _tally_ab()


def _memory(qrels: Path, run: Path) -> None:
    """Peak traced memory and time of the speed/memory tricks in core.engine.prefs.counts against their plain forms."""
    sys.path.insert(0, str(ROOT))
    from core.engine.prefs import counts as prefs_counts
    from core.engine.prefs.evaluate import evaluate_prefs_files
    default = prefs_counts.EDGES
    for edges, shortcut, label in ((default, True, "default (pair-free counting of single-group topics, other pairs in chunks of EDGES)"),
                                   (default, False, "plain pairs (PAIR_FREE = False: every pair listed, np.unique for every topic)"),
                                   (10 ** 12, True, "one chunk (plain form of the chunking)")):
        prefs_counts.EDGES, prefs_counts.PAIR_FREE = edges, shortcut
        tracemalloc.start()
        t = time.perf_counter()
        evaluate_prefs_files(qrels, [run], ["all_prefs"], kind="qrels_prefs")
        took = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        print(f"{label}: peak {peak:.0f} MiB traced, {took:.2f} s (load {_load()})", flush=True)
    prefs_counts.EDGES, prefs_counts.PAIR_FREE = default, True


def _tally_ab() -> None:
    """prefs_counts._tally (one bincount over (group, area) codes) against its plain form (one masked bincount per
    area), alternating in one process on 1M random pairs of 800 groups."""
    import numpy as np
    sys.path.insert(0, str(ROOT))
    from core.engine.prefs.counts import AREA, _tally
    rng = np.random.default_rng(0)
    n, G = 1_000_000, 800
    g, a, b = np.sort(rng.integers(0, G, n)), rng.integers(0, 1200, n), rng.integers(0, 1200, n)
    b[a == b] += 1
    njr = np.full(n, 300)

    def tally():
        return _tally(g, AREA[(a < njr) * 4 + (b < njr) * 2 + (a < b)], 5, G)

    def plain():
        masks = ((a < b) & (b < njr), (b < a) & (a < njr), (a < njr) & (b >= njr), (a >= njr) & (b < njr),
                 (a >= njr) & (b >= njr))
        return np.stack([np.bincount(g[m], minlength=G) for m in masks], 1)

    times = {"tally": [], "plain": []}
    for _ in range(15):
        for name, fn in (("tally", tally), ("plain", plain)):
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    print(f"area counts of 1M pairs: one bincount {1000 * np.median(times['tally']):.1f} ms, masked bincounts "
          f"{1000 * np.median(times['plain']):.1f} ms (load {_load()})", flush=True)


if __name__ == "__main__":
    main()
