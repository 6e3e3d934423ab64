"""Imported per-query scores (core/store/scores.py) beside computed measures, in one EvalResult.

`evaluate_stored` asks `split` which of the measures it was given are imported ones of the collection (by their
stored name, e.g. `imported:map` or `judge`); the others are computed as always, for the runs that have rankings.
The imported rows are read as they are (never recomputed, never cached as results) and `join` appends them: their
per-query rows after the computed ones, their means in the summary (an imported measure's mean over the run's
topics), and `EvalResult.imported` names each one's source, so every statistic reads them like computed ones.
"""
from __future__ import annotations

import dataclasses
from contextlib import closing

import numpy as np
import pandas as pd

from core.engine.types import EvalResult
from core.store.scores import imported_measures, read_imported
from core.store import ingest

__all__ = ["split", "sources", "imported_rows", "join", "score_only", "imported_gaps"]


def sources(store, collection) -> dict[str, str]:
    """The collection's imported measures -> their source (several sources joined by ', ')."""
    with closing(store.cursor()) as cur:
        found = imported_measures(cur, ingest.collection_id(cur, collection))
    return dict(zip(found["measure"].astype(str), found["source"].astype(str)))


def split(store, collection, measures) -> tuple[list, dict[str, str]]:
    """(the measures to compute, {imported measure: source}) of `measures` (strings or Measure objects)."""
    have = sources(store, collection) if measures else {}
    wanted = [m for m in measures if isinstance(m, str) and m in have]
    return [m for m in measures if not (isinstance(m, str) and m in have)], {m: have[m] for m in wanted}


def score_only(runs: pd.DataFrame) -> set[int]:
    """The ids of runs with imported scores only (no ranking: n_rows 0), from `store.runs(collection)`."""
    return set(runs.loc[runs["n_rows"].fillna(0).astype(int) == 0, "run_id"].astype(int))


def imported_rows(store, run_ids, names: dict[int, str], measures) -> pd.DataFrame:
    """The per-query rows (run name, qid, measure, value) of `measures` for `run_ids`, measure by measure in the
    order of `measures`, then run name and qid (stage 2's order)."""
    with closing(store.cursor()) as cur:
        rows = read_imported(cur, run_ids, measures)
    rows = rows.assign(run=rows["run_id"].astype(int).map(names).astype(str))
    position = {m: i for i, m in enumerate(measures)}
    order = np.lexsort((rows["qid"].to_numpy(str), rows["run"].to_numpy(str),
                        rows["measure"].map(position).to_numpy(np.int64)))
    return rows.iloc[order][["run", "qid", "measure", "value"]].reset_index(drop=True)


def join(computed: EvalResult | None, rows: pd.DataFrame, imported: dict[str, str], order: list[str],
         warnings: list[str] = ()) -> EvalResult:
    """`computed` (or nothing) with the imported rows appended; runs in `order` (those that have any value)."""
    summary = rows.groupby(["measure", "run"], sort=False)["value"].mean().reset_index()[["run", "measure", "value"]]
    num_q = rows.groupby("run", sort=False)["qid"].nunique()
    if computed is None:
        computed = EvalResult(rows.iloc[:0], summary.iloc[:0], text=pd.DataFrame(columns=["run", "qid", "measure",
                                                                                           "text"]))
    per_query = pd.concat([computed.per_query, rows], ignore_index=True) if len(computed.per_query) else rows
    both = pd.concat([computed.summary, summary], ignore_index=True) if len(computed.summary) else summary
    counts = {str(r): int(n) for r, n in num_q.items()} | dict(computed.num_q)
    runs = [r for r in order if r in counts]
    return dataclasses.replace(computed, per_query=per_query, summary=both, num_q=counts, runs=runs,
                               warnings=list(computed.warnings) + list(warnings),
                               imported=dict(computed.imported) | imported)


def imported_gaps(per_query: pd.DataFrame, imported) -> dict[str, dict[str, list[str]]]:
    """imported measure -> run -> the topics another run has a value of that measure for and this run has not (an
    imported measure's mean is over the run's own topics, so such runs' means are over different topics)."""
    rows = per_query[per_query["measure"].isin(list(imported))]
    out = {}
    for measure, group in rows.groupby("measure", sort=False):      # one group per imported measure (a handful)
        have = pd.crosstab(group["qid"].astype(str), group["run"].astype(str)) > 0      # topics x runs
        lacking = {run: have.index[~have[run].to_numpy()].tolist() for run in have.columns}
        lacking = {run: qids for run, qids in lacking.items() if qids}
        if lacking:
            out[str(measure)] = lacking
    return out
