"""Stage 1, behind one interface: a run plus qrels -> `Rankings` (core.engine.types), the judged retrieved rows with
their trec_eval ranks (core.engine.stage1.order) plus the number retrieved per ranking and the judgments per grade.

    from core.engine.stage1 import ArrowRun, RunFile, StoredRuns, Tables, rankings
    rk = rankings(ArrowRun(run_table, qrels_table))          # then core.engine.stage2.evaluate_rankings(rk, measures)

A source says where the run is; `choose(source)` lists the providers that may serve it, best first, and
`rankings` takes the first that does (a provider returns None when it cannot), the way ir_measures falls back
from one provider to the next. Providers: SQL over DuckDB tables (tables.py), Arrow in memory (arrow.py),
run files streamed or parsed whole (files.py), and the store's precomputed judged rows (stored.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
import pyarrow as pa

from core.formats import ParsedRun
from core.formats import pieces as limits
from core.measures import EvalOptions
from core.engine.stage1 import files
from core.engine.stage1.arrow import arrow_rankings
from core.engine.stage1.stored import stored_rankings
from core.engine.stage1.tables import table_rankings
from core.engine.types import Rankings

__all__ = ["Tables", "ArrowRun", "RunFile", "StoredRuns", "choose", "rankings"]


@dataclass(frozen=True)
class Tables:
    """Runs in DuckDB table `run_table` (run, qid, docno, score[, rank]: a rank column is trusted as canonical)
    and qrels in `qrels_table` (qid, docno, rel), on `con`. With `run_name`, the table holds one run, no run column."""
    con: duckdb.DuckDBPyConnection
    run_table: str
    qrels_table: str
    run_name: str | None = None
    ties: str = "desc"                          # equal scores by docno descending (trec_eval) or "asc" (ndeval)
    key: str | None = None                      # the key column of stacked qrels (table_rankings)


@dataclass(frozen=True)
class ArrowRun:
    """One run in memory: `run` with columns qid, docno (strings; no docno twice in a topic) and score (float64);
    `qrels` a pyarrow table (qid, docno, rel) or the name of a DuckDB table on `con`. Without `con`, a private
    in-memory connection does the join."""
    run: pa.Table
    qrels: pa.Table | str
    name: str = "run"
    con: duckdb.DuckDBPyConnection | None = None
    summary: tuple | None = None                # qrels_summary of a qrels table shared by many runs (computed once)


@dataclass(frozen=True)
class RunFile:
    """A run file at `path` against DuckDB table `qrels_table` on `con`; `parsed`, when the caller already read it.
    The run is named by its tag (column 6), else the file name."""
    path: str | Path
    con: duckdb.DuckDBPyConnection
    qrels_table: str
    parsed: ParsedRun | None = None
    chunk_bytes: int | None = None              # pieces of the file read at once (None: pieces.PIECE_BYTES)
    summary: tuple | None = None                # qrels_summary of qrels_table, when many runs share it


@dataclass(frozen=True)
class StoredRuns:
    """Stored runs `run_ids` under qrels set `qrels_id`, read on store cursor `cur`; run i is named names[i]
    (default: its id as text)."""
    cur: duckdb.DuckDBPyConnection
    run_ids: tuple[int, ...]
    qrels_id: int
    names: tuple[str, ...] | None = None


Provider = Callable[[object, EvalOptions], "Rankings | None"]


def _tables(src: Tables, options: EvalOptions) -> Rankings:
    return table_rankings(src.con, src.run_table, src.qrels_table, options, src.run_name, ties=src.ties, key=src.key)


def _arrow(src: ArrowRun, options: EvalOptions) -> Rankings:
    if isinstance(src.qrels, str):
        return arrow_rankings(src.con, src.run, src.qrels, src.name, src.summary)
    con = src.con or duckdb.connect()
    try:
        con.register("_rb_arrow_qrels", src.qrels.select(["qid", "docno", "rel"]))
        return arrow_rankings(con, src.run, "_rb_arrow_qrels", src.name)
    finally:
        con.unregister("_rb_arrow_qrels")
        if src.con is None:
            con.close()


def _stored(src: StoredRuns, options: EvalOptions) -> Rankings:
    return stored_rankings(src.cur, src.run_ids, src.qrels_id, src.names)


PROVIDERS: dict[type, list[Provider]] = {
    Tables: [_tables],
    ArrowRun: [_arrow],
    RunFile: [files.empty, files.pieces, files.table, files.whole],
    StoredRuns: [_stored],
}


def choose(source) -> list[Provider]:
    """The providers that may serve `source`, best first (the last one always does)."""
    if isinstance(source, RunFile) and (source.parsed is not None or files.size(source.path) < limits.WHOLE_MAX_BYTES):
        small = source.parsed is not None or files.size(source.path) < limits.pieces_min_bytes()
        return [files.empty, files.whole] if small else [files.empty, files.pieces, files.whole]
    try:
        return PROVIDERS[type(source)]
    except KeyError:
        raise TypeError(f"stage 1 has no provider for {type(source).__name__}; use one of "
                        f"{', '.join(t.__name__ for t in PROVIDERS)}") from None


def rankings(source, options: EvalOptions = EvalOptions()) -> Rankings:
    """Stage 1 of `source` (Tables, ArrowRun, RunFile or StoredRuns): the first provider that serves it."""
    for provider in choose(source):
        got = provider(source, options)
        if got is not None:
            return got
    raise AssertionError(f"no provider served {type(source).__name__}")   # the last provider always serves
