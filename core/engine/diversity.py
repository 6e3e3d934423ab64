"""Evaluation against subtopic (diversity) qrels: the ndeval family (core/measures/diversity.py).

    from core.engine.diversity import evaluate_diversity, evaluate_diversity_files
    evaluate_diversity_files("qrels.div.txt", ["run.txt"], ["alpha_nDCG@20", "ERR_IA@20", "NRBP"]).summary

Stage 1 here is ndeval's, not trec_eval's: each ranking is ordered by score descending, then docno ascending (what
pyndeval, and so ir_measures, does), and joined to the subtopic qrels in DuckDB; the measures then read whole
numpy columns (core.measures.subtopics). Topic handling is trec_eval's, as for every other measure: qrels topics
missing from a run are skipped with a warning, or count as zero with -c; run topics without qrels are ignored.
"""
from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from core.measures import EvalOptions
from core.measures.diversity import FAMILIES, refuse_deep
from core.measures.subtopics import SubtopicData
from core.engine.stage2 import _assemble, ordered_groups
from core.engine.kinds import Kind, read_runs, register
from core.engine.stage1 import Tables, rankings
from core.engine.types import EvalResult

__all__ = ["evaluate_diversity", "evaluate_diversity_files", "is_diversity", "NDEVAL_DEFAULT"]

# ndeval's (and pyndeval's) default output: what `evaluate --qrels-kind diversity` computes without -m
NDEVAL_DEFAULT = [f"{f}@{k}" for f in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG") for k in (5, 10, 20)] + [
    "NRBP", "nNRBP", "AP_IA"] + [f"{f}@{k}" for f in ("P_IA", "StRecall") for k in (5, 10, 20)]
SINGLE = ("{file}: no topic has more than one subtopic, so these look like ordinary qrels and the diversity measures "
          "reduce to plain ones. Diversity qrels have 4 columns: qid subtopic docno rel.")


def is_diversity(measure) -> bool:
    return measure.family.name in FAMILIES


def evaluate_diversity(qrels: pd.DataFrame, run: pd.DataFrame, measures, options: EvalOptions = EvalOptions(),
                       warnings=(), runs: list[str] | None = None) -> EvalResult:
    """qrels: qid, subtopic, docno, rel (in file order: subtopics are numbered by first appearance, as pyndeval
    does); run: [run,] qid, docno, score (a rank column is ignored). `runs`: every run asked for, in order (default:
    those in `run`)."""
    ms = KIND.measures(measures, options)
    run = run.assign(run="run") if "run" not in run.columns else run
    run = run[["run", "qid", "docno", "score"]].astype({"run": str, "qid": str, "docno": str, "score": float})
    qrels = qrels[["qid", "subtopic", "docno", "rel"]].astype({"qid": str, "subtopic": str, "docno": str,
                                                               "rel": "int64"})
    qrels = qrels.assign(sord=pd.factorize(qrels["subtopic"])[0])
    with duckdb.connect() as con:
        con.register("_rb_div_q", qrels)
        con.register("_rb_div_r", run)
        return _evaluate(con, ms, options, list(runs or pd.unique(run["run"])), list(warnings))


def _evaluate(con, ms, options: EvalOptions, runs: list[str], warnings: list[str]) -> EvalResult:
    """Stage 1 is stage 1's table provider in ndeval's order (equal scores by docno ascending) with the subtopic
    as the stacked qrels' key; topics, subtopics and documents are numbered here for the measures."""
    con.execute("""CREATE TEMP TABLE dq AS SELECT qid, docno, rel,
        CAST(dense_rank() OVER (ORDER BY qid) - 1 AS BIGINT) AS t,
        CAST(dense_rank() OVER (PARTITION BY qid ORDER BY sord) - 1 AS BIGINT) AS sub,
        CAST(dense_rank() OVER (PARTITION BY qid ORDER BY docno DESC) - 1 AS BIGINT) AS doc FROM _rb_div_q""")
    rk = rankings(Tables(con, "_rb_div_r", "dq", ties="asc", key="sub"), options)
    rk.runs = runs
    groups, _, inverse, missing, notes = ordered_groups(rk, options)
    g = inverse[rk.g]
    rows = np.lexsort((rk.key, rk.rank, g))                 # by ranking, rank, subtopic
    warnings += notes
    q = con.execute("SELECT t, doc, sub, rel FROM dq").fetchnumpy()
    topic = pd.Index(rk.topics).get_indexer(groups["qid"])  # t numbers the qrels topics in order, as rk.topics lists them
    data = SubtopicData(topic.astype(np.int64), len(rk.topics), g[rows], rk.rank[rows],
                        rk.key[rows], rk.rel[rows], q["t"], q["doc"], q["sub"], q["rel"], options)
    if options.judged_only:                     # -J after -M, as trec_eval (core.engine.stage2) applies them
        data = data.judged_only()
    return _assemble(groups, data, ms, options, runs, missing, warnings)


def read_subtopic_frame(path) -> tuple[pd.DataFrame, list[str]]:
    """A subtopic qrels file as a (qid, subtopic, docno, rel) frame in file order, plus its warnings."""
    from core.formats.subtopics import read_subtopic_qrels
    name = Path(str(path)).name
    parsed = read_subtopic_qrels(path, filename=name)
    warnings = [SINGLE.format(file=name)] if parsed.single_subtopic() else []
    return parsed.table.to_pandas(), warnings


def evaluate_diversity_files(qrels_path, run_paths, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """`evaluate --qrels-kind diversity`: a subtopic qrels file and run files."""
    ms = KIND.measures(measures, options)
    qrels, warnings = read_subtopic_frame(qrels_path)
    run, names, more = read_runs(run_paths, options)
    return evaluate_diversity(qrels, run, ms, options, warnings + more, runs=names)


KIND = register(Kind("diversity", evaluate_diversity_files, frozenset(FAMILIES),
                     f"Subtopic qrels (--qrels-kind diversity) give the diversity measures only "
                     f"({', '.join(sorted(FAMILIES))})", " Evaluate those against ordinary qrels in a second call.",
                     tuple(NDEVAL_DEFAULT), refuse_deep, trec=False))
