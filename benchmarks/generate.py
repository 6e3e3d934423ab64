"""Synthetic TREC collections for the benchmark, from a fixed seed.

    python benchmarks/generate.py --topics 5000 --runs 10 --out benchmarks/work/t5000

writes `qrels.txt` and `run00.txt` ... `runNN.txt` in TREC format. Everything is vectorised
(numpy for the numbers, pyarrow's CSV writer for the text), in blocks of topics so memory stays
bounded at 50,000 topics. The layout of a collection of T topics:

- qrels topics are "1".."T" (plain numbers, so a reader that sniffs integers sorts them wrongly);
  each has a pool of 1,500 documents, about 100 of them judged, grades 0..3 plus a few -1;
- every run retrieves 1,000 documents per topic, ranked by a noisy score rounded to 1e-3, so every
  topic has score ties (the file lists tied documents in pool order, not trec_eval's docno order);
- about 2% of the qrels topics are missing from every run, and each run drops 0.5% more;
- about 1% extra topics ("T+1"...) appear in the runs only (trec_eval ignores them);
- docnos are "D<hash>" of variable length, so byte order differs from numeric order.
Run 0 is the baseline; runs 1.. have a different quality, so comparisons have real differences.
The output depends only on (seed, T, run index), never on the block size.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

POOL = 1500          # documents per topic that any run may retrieve
DEPTH = 1000         # documents retrieved per topic
BLOCK = 1000         # topics generated together (fixed: the seed streams depend on it)
WRITE = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(list(key))


def _docnos(topic_idx: np.ndarray, pool_idx: np.ndarray) -> pa.Array:
    """Distinct docnos 'D<n>': a bijective multiplicative hash of (topic, pool position)."""
    key = (topic_idx.astype(np.uint64) * POOL + pool_idx.astype(np.uint64)) * np.uint64(2654435761)
    key &= np.uint64(0xFFFFFFFF)
    return pc.binary_join_element_wise("D", pc.cast(pa.array(key), pa.string()), "")


def _block_truth(seed: int, block: int, n: int):
    """Latent grades (n x POOL) and the judged mask for one block of topics."""
    rng = _rng(seed, 1, block)
    pos = np.arange(POOL)
    top = pos < 50
    u = rng.random((n, POOL))
    # grade distribution: the first 50 pool documents are mostly relevant, the rest mostly not
    cut_top = np.cumsum([0.30, 0.30, 0.25, 0.15])
    cut_low = np.cumsum([0.86, 0.09, 0.04, 0.01])
    grade = np.where(top, np.searchsorted(cut_top, u, side="right"),
                     np.searchsorted(cut_low, u, side="right")).astype(np.int8)
    grade = np.minimum(grade, 3)
    judged = rng.random((n, POOL)) < np.where(top, 0.9, 55 / (POOL - 50))
    neg = (grade == 0) & (rng.random((n, POOL)) < 0.01)
    grade = np.where(neg, -1, grade).astype(np.int8)   # a few -1 (judged, "bad"/spam)
    return grade, judged


def _layout(seed: int, n_topics: int):
    """Which qrels topics are missing from all runs; how many run-only topics there are."""
    rng = _rng(seed, 0)
    missing_all = rng.random(n_topics) < 0.02
    n_extra = max(1, n_topics // 100)
    return missing_all, n_extra


def generate(out: Path, n_topics: int, n_runs: int = 1, seed: int = 20261121, qrels: bool = True,
             runs: list[int] | None = None) -> dict:
    """Write qrels.txt and runNN.txt under `out`; return counts."""
    out.mkdir(parents=True, exist_ok=True)
    runs = list(range(n_runs)) if runs is None else runs
    missing_all, n_extra = _layout(seed, n_topics)
    total = n_topics + n_extra                      # topic index t -> qid str(t + 1)
    qrels_writer = None
    run_writers = {r: None for r in runs}
    counts = {"qrels_lines": 0, "run_lines": {r: 0 for r in runs}}
    for block in range(0, (total + BLOCK - 1) // BLOCK):
        lo, hi = block * BLOCK, min(total, (block + 1) * BLOCK)
        n = hi - lo
        t_idx = np.arange(lo, hi)
        grade, judged = _block_truth(seed, block, n)
        in_qrels = t_idx < n_topics
        if qrels:
            jt, jp = np.nonzero(judged & in_qrels[:, None])
            table = pa.table({
                "qid": pc.cast(pa.array(t_idx[jt] + 1), pa.string()),
                "iter": pa.array(np.zeros(len(jt), np.int8)),
                "docno": _docnos(t_idx[jt], jp),
                "rel": pa.array(grade[jt, jp]),
            })
            if qrels_writer is None:
                qrels_writer = pacsv.CSVWriter(out / "qrels.txt", table.schema, write_options=WRITE)
            qrels_writer.write_table(table)
            counts["qrels_lines"] += len(jt)
        for r in runs:
            table = _run_block(seed, block, r, t_idx, grade, missing_all, n_topics)
            if run_writers[r] is None:
                run_writers[r] = pacsv.CSVWriter(out / f"run{r:02d}.txt", table.schema, write_options=WRITE)
            run_writers[r].write_table(table)
            counts["run_lines"][r] += table.num_rows
    for w in [qrels_writer, *run_writers.values()]:
        if w is not None:
            w.close()
    return counts


def _run_block(seed, block, r, t_idx, grade, missing_all, n_topics) -> pa.Table:
    rng = _rng(seed, 2, block, r)
    n = len(t_idx)
    quality = 1.0 if r == 0 else 0.7 + 0.08 * r      # runs 1..9 span worse to better than run 0
    signal = quality * np.maximum(grade, 0) - np.arange(POOL) / POOL + rng.normal(0.0, 1.0, (n, POOL))
    score = np.round(signal * 1000.0) / 1000.0      # coarse scores: ties in every topic
    top = np.argpartition(-score, DEPTH - 1, axis=1)[:, :DEPTH]
    top_score = np.take_along_axis(score, top, axis=1)
    # file order: score descending, ties in pool order (NOT trec_eval's docno-descending order)
    order = np.lexsort((top, -top_score), axis=1)
    pool = np.take_along_axis(top, order, axis=1)
    sc = np.take_along_axis(top_score, order, axis=1)
    keep = np.ones(n, bool)
    in_q = t_idx < n_topics
    keep[in_q] = ~missing_all[t_idx[in_q]]
    keep &= ~(rng.random(n) < 0.005)
    rows = np.nonzero(keep)[0]
    tt = np.repeat(t_idx[rows], DEPTH)
    pp = pool[rows].ravel()
    m = len(tt)
    return pa.table({
        "qid": pc.cast(pa.array(tt + 1), pa.string()),
        "q0": pa.array(np.full(m, "Q0")) if m else pa.array([], pa.string()),
        "docno": _docnos(tt, pp),
        "rank": pa.array(np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), len(rows))),
        "score": pa.array(sc[rows].ravel()),
        "tag": pa.array(np.full(m, f"synth{r:02d}")) if m else pa.array([], pa.string()),
    })


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=500)
    ap.add_argument("--runs", type=int, default=1, help="number of runs (run00 is the baseline)")
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    counts = generate(args.out, args.topics, args.runs, args.seed)
    print(f"{args.out}: {counts['qrels_lines']:,} qrels lines, "
          f"{sum(counts['run_lines'].values()):,} run lines in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
