"""The kernel of the Dask engine's topic buckets (and of converted Parquet runs): whole rankings in, per-query
values out, with no I/O. `evaluate_rows(rows, qrels, measures, options)`: `rows` (Arrow: run, qid, docno, score)
holds whole rankings (every line of a run and topic) of any number of runs, in any order; `qrels` (Arrow: qid,
docno, rel) the judgments of at least those topics. The same stage 1 (`rankings(ArrowRun(...))`) and stage 2
(`evaluate_rankings`) as `evaluate_files` run over them, for the topics each run has: the global steps are the
driver's. Out: Arrow (run, qid, measure, value, text); `text` is null except for string measures (relstring),
whose `value` is NaN. One DuckDB connection per process (connecting costs ~18 ms, most of a small call), one
cursor per thread.
"""
from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.db.sqltext import registered
from core.measures import EvalOptions
from core.engine.stage1 import ArrowRun, rankings
from core.engine.stage1.arrow import concat
from core.engine.stage1.tables import qrels_summary
from core.engine.stage2 import evaluate_rankings
from core.engine.types import Rankings

_LOCK = threading.Lock()
_STATE = threading.local()
_CONNECTION = None

OUTPUT = pa.schema([("run", pa.string()), ("qid", pa.string()), ("measure", pa.string()),
                    ("value", pa.float64()), ("text", pa.string())])


def cursor():
    """This thread's cursor on the process's one DuckDB connection (one thread each: a kernel call is one task
    of a worker thread, and a Dask worker runs one task per thread)."""
    global _CONNECTION
    import duckdb

    with _LOCK:
        if _CONNECTION is None:
            _CONNECTION = duckdb.connect(config={"threads": 1, "preserve_insertion_order": False})
        if getattr(_STATE, "cursor", None) is None:
            _STATE.cursor = _CONNECTION.cursor()
    return _STATE.cursor


def _split_runs(rows: pa.Table) -> list[tuple[str, pa.Table]]:
    """(run, its rows) for each run in `rows`, in order of name; a run's rows keep their order."""
    names = pc.unique(rows["run"]).to_pylist()
    if len(names) <= 1:
        return [(names[0], rows)] if names else []
    order = pc.sort_indices(rows, sort_keys=[("run", "ascending")])   # stable: lines keep their order in a run
    rows = rows.take(order)
    runs = rows["run"].to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, runs[1:] != runs[:-1]])
    ends = np.r_[starts[1:], len(runs)]
    return [(str(runs[a]), rows.slice(a, b - a)) for a, b in zip(starts, ends)]


def rankings_of(rows: pa.Table, qrels: pa.Table) -> Rankings:
    """Stage 1 of every run in `rows`, through the stage-1 seam (core.engine.stage1.rankings of an ArrowRun per run, on
    this process's connection), as one `Rankings` (qrels topics the runs lack are not added)."""
    cur = cursor()
    with registered(cur, qrels.select(["qid", "docno", "rel"])) as name:
        parts = [rankings(ArrowRun(table.select(["qid", "docno", "score"]), name, run, cur))
                 for run, table in _split_runs(rows)]
        if not parts:
            topics, levels = qrels_summary(cur, name)
            return Rankings.empty(levels, [], topics)
    joined = concat(parts)
    joined.runs = [r for p in parts for r in p.runs]
    return joined


def evaluate_rows(rows: pa.Table, qrels: pa.Table, measures, options: EvalOptions = EvalOptions()) -> pa.Table:
    """Per-query values (run, qid, measure, value, text) of the rankings in `rows`; see the module docstring."""
    rankings = rankings_of(rows, qrels)
    result = evaluate_rankings(rankings, measures, replace(options, complete=False))
    return long_table(result)


def long_table(result) -> pa.Table:
    """An EvalResult's per-query values and texts as one Arrow table of the kernel's OUTPUT schema."""
    pq, tx = result.per_query, result.text
    numeric = _output(pq, pq["value"].to_numpy(np.float64))
    if tx is None or not len(tx):
        return numeric
    return pa.concat_tables([numeric, _output(tx, np.full(len(tx), np.nan), tx["text"])])


def _output(frame: pd.DataFrame, value: np.ndarray, text: pd.Series | None = None) -> pa.Table:
    """run, qid and measure of `frame`, then `value` and `text` (null without it), in the OUTPUT schema."""
    columns = {c: frame[c].astype(str).tolist() for c in ("run", "qid", "measure")}
    columns["text"] = pa.nulls(len(frame), pa.string()) if text is None else text.astype(str).tolist()
    return pa.table({**columns, "value": value}, schema=OUTPUT)
