"""The diversity family (ndeval's 21 default measures) side by side with pyndeval (ndeval.c) and ir_measures.

    flock /tmp/rankboard-bench.lock python benchmarks/diversity_timing.py --topics 50 200 --runs 10 --reps 3

Synthetic TREC Web-like collections from a fixed seed: T topics with 3-8 subtopics each, 400 judged documents per
topic (each judged for 1-3 subtopics, grades 0-2), and runs of 1000 documents per topic (a third of them judged,
scores with ties). Every tool gets the data already in memory (no file reading): Rankboard a qrels and a run
DataFrame (core.engine.diversity.evaluate_diversity), pyndeval its tuples (one RelevanceEvaluator, every run), ir_measures
a DataFrame and a dict per run (it builds its own evaluator, as a user calls it). Times are the median of --reps
wall-clock runs in this process; the values are checked to agree at 1e-4. The load average is printed with each
line, since the machine is shared.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.engine.diversity import NDEVAL_DEFAULT, evaluate_diversity  # noqa: E402

NDEVAL_NAMES = {"ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG",
                "P_IA": "P-IA", "StRecall": "strec", "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}


def collection(topics: int, runs: int, seed: int = 11):
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for t in range(topics):
        qid = str(700 + t)
        n_sub = int(rng.integers(3, 9))
        judged = rng.choice(100_000, size=400, replace=False)
        for d in judged:
            for s in rng.choice(n_sub, size=int(rng.integers(1, 4)), replace=False):
                q_rows.append((qid, str(s + 1), f"doc{d}", int(rng.choice([0, 0, 1, 1, 2]))))
        for r in range(runs):
            docs = np.concatenate([rng.choice(judged, 330, replace=False), rng.choice(100_000, 670, replace=False)])
            docs = np.unique(docs)
            scores = np.round(rng.random(len(docs)) * 50) / 10                  # ties
            r_rows += [(f"run{r}", qid, f"doc{d}", float(s)) for d, s in zip(docs, scores)]
    return (pd.DataFrame(q_rows, columns=["qid", "subtopic", "docno", "rel"]),
            pd.DataFrame(r_rows, columns=["run", "qid", "docno", "score"]))


def timed(fn, reps: int):
    times, out = [], None
    for _ in range(reps):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def rankboard(qrels, run):
    return evaluate_diversity(qrels, run, NDEVAL_DEFAULT).per_query


def pyndeval_all(qrels, run):
    import pyndeval
    names = [NDEVAL_NAMES[m.split("@")[0]] + ("@" + m.split("@")[1] if "@" in m else "") for m in NDEVAL_DEFAULT]
    ev = pyndeval.RelevanceEvaluator(list(qrels.itertuples(index=False, name=None)), names)
    out = {}
    for name, frame in run.groupby("run", sort=False):
        for qid, values in ev.evaluate(list(frame[["qid", "docno", "score"]].itertuples(index=False, name=None))).items():
            for m, key in zip(NDEVAL_DEFAULT, names):
                out[(name, qid, m)] = values[key]
    return out


def ir_measures_all(qrels, run):
    import ir_measures
    measures = [ir_measures.parse_measure(m) for m in NDEVAL_DEFAULT]
    qdf = qrels.rename(columns={"qid": "query_id", "subtopic": "iteration", "docno": "doc_id", "rel": "relevance"})
    out = {}
    for name, frame in run.groupby("run", sort=False):
        rdict = {}
        for q, d, s in frame[["qid", "docno", "score"]].itertuples(index=False, name=None):
            rdict.setdefault(q, {})[d] = s
        for metric in ir_measures.iter_calc(measures, qdf, rdict):
            out[(name, metric.query_id, str(metric.measure))] = metric.value
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--topics", type=int, nargs="+", default=[50, 200])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args(argv)
    print("| topics x runs | judged lines | run lines | Rankboard | pyndeval | ir_measures | agree | load average |")
    print("|---|---|---|---|---|---|---|---|")
    for topics in args.topics:
        qrels, run = collection(topics, args.runs)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        ours_t, ours = timed(lambda: rankboard(qrels, run), args.reps)
        nd_t, nd = timed(lambda: pyndeval_all(qrels, run), args.reps)
        ir_t, ir = timed(lambda: ir_measures_all(qrels, run), args.reps)
        mine = {(r, q, m): v for r, q, m, v in ours[["run", "qid", "measure", "value"]].itertuples(index=False)}
        agree = all(abs(mine[k] - (0.0 if np.isnan(v) else v)) <= 1e-4 for k, v in nd.items())
        agree &= all(abs(mine[k] - (0.0 if np.isnan(v) else v)) <= 1e-4 for k, v in ir.items() if k in mine)
        print(f"| {topics} x {args.runs} | {len(qrels):,} | {len(run):,} | {ours_t:.2f} s | {nd_t:.2f} s | "
              f"{ir_t:.2f} s | {'yes' if agree else 'NO'} | {load} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
