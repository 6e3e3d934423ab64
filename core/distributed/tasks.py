"""What a Dask worker runs for core.distributed.driver. Split by run: one run file through stage 1's file providers (as
evaluate_files reads it: a large run a piece at a time), then stage 2, into the kernel's output table; a Parquet
file from `core convert` goes to the kernel (core.distributed.kernel) as it is. Split by topic: a file read (a large one a piece
at a time) and cut into buckets of topics, then the kernel over each bucket of every file.

Only plain data crosses the wire: paths, Arrow tables, measure names and EvalOptions. Nothing here imports dask,
so the tasks also run (and are tested) in a plain process.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

PARQUET_MARK = b"rankboard.run"          # schema metadata key written by core.distributed.convert: the file was checked
ROWS = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64())])


def _converted(path):
    """The schema of a Parquet file that `python -m core convert` wrote (its rows were checked when it was
    written), else None."""
    import pyarrow.parquet as pq

    try:
        with open(path, "rb") as f:
            if f.read(4) != b"PAR1":
                return None
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException):
        return None
    return schema if PARQUET_MARK in (schema.metadata or {}) else None


def _checked_parquet(path):
    """A ParsedRun straight from a Parquet file that `python -m core convert` wrote, else None. Any other Parquet
    file goes through the checking reader (core.formats)."""
    import pyarrow.parquet as pq

    from core.formats.runs import build_run

    schema = _converted(path)
    if schema is None:
        return None
    table = pq.read_table(path, columns=[c for c in ("qid", "docno", "score", "tag") if c in schema.names])
    return build_run(table.select(["qid", "docno", "score"]), table["tag"] if "tag" in schema.names else None,
                     None, {}, "parquet")


def read_rows(path):
    """(qid, docno, score) of a run file (TREC text, gzip or not, CSV/TSV, or Parquet), its tag and warnings:
    what evaluate_files reads, with the same errors (a repeated document raises the parser's exact message)."""
    from core.formats import read_run, unique

    name = Path(str(path)).name
    parsed = _checked_parquet(path)
    if parsed is not None and not unique(parsed.table, ["qid", "docno"]):
        parsed = None                     # a repeated document after all: the checking reader names the lines
    if parsed is None:
        parsed = read_run(path, filename=name)
    return parsed.table.select(["qid", "docno", "score"]), parsed.tag, list(parsed.warnings)


def with_run(table: pa.Table, run: str) -> pa.Table:
    return table.append_column("run", pa.array(np.full(table.num_rows, run, dtype=object), pa.string()))


@contextmanager
def _scratch(path):
    """A scratch DuckDB connection sized for the run file at `path`, spilling to a temporary directory (both gone
    afterwards)."""
    from core.db.scratch import scratch, temp_directory
    from core.engine.stage1.files import size

    with temp_directory() as tmp, scratch(tmp, size(path)) as con:
        yield con


def run_task(path, key: str, qrels: pa.Table, measures: list[str], options):
    """Split by run: one run file -> (tag, warnings, the kernel's per-query table with run = `key`). A Parquet file
    that `core convert` wrote is read as it is; any other file goes through stage 1's file providers on a scratch
    connection, as evaluate_files reads it: a large run a piece at a time, in bounded memory (core.engine.stage1.files)."""
    from dataclasses import replace

    from core.distributed.kernel import evaluate_rows, long_table
    from core.engine.stage1 import RunFile, rankings
    from core.engine.stage2 import evaluate_rankings

    if _converted(path) is not None:
        table, tag, warnings = read_rows(path)
        return tag, warnings, evaluate_rows(with_run(table, key), qrels, measures, options)
    with _scratch(path) as con:
        con.register("rb_qrels", qrels.select(["qid", "docno", "rel"]))
        rk = rankings(RunFile(path, con, "rb_qrels"), options)
    tag = rk.runs[0]                      # the run's tag, else the file name: what file_names makes of either
    result = evaluate_rankings(rk.named(key), measures, replace(options, complete=False))
    return tag, list(rk.warnings), long_table(result)


def bucket_task(path, key: str, topics: pa.Array, per_bucket: int, complete: bool = False):
    """Split by topic, first half: one run file -> (tag, warnings, [rows of bucket 0, 1, ...]). A qrels topic's
    bucket is its position in the sorted qrels topics // per_bucket; topics without judgments are dropped here
    (no engine evaluates them), so they cost no transfer. With `complete` (-c), a blank file is a run that
    retrieved nothing, as evaluate_files reads it (the driver scores its topics 0). A run file of WHOLE_MAX_BYTES or
    more is read a piece at a time (core.engine.stage1.files.file_rows): its rows, not ~3-8x their text at once."""
    from core.formats import is_empty_file

    if complete and is_empty_file(path):
        table, tag, warnings = ROWS.empty_table(), None, []
    else:
        table, tag, warnings = _rows_in_pieces(path) or read_rows(path)
    position = pc.index_in(table["qid"], value_set=topics)
    keep = pc.is_valid(position)
    table, position = table.filter(keep), position.filter(keep).to_numpy(zero_copy_only=False)
    bucket = position // per_bucket
    n = (len(topics) + per_bucket - 1) // per_bucket
    order = np.argsort(bucket, kind="stable")             # a ranking's lines keep their order
    bounds = np.searchsorted(bucket[order], np.arange(n + 1))
    rows = with_run(table, key).take(pa.array(order))
    return tag, warnings, [rows.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:])]


def _rows_in_pieces(path):
    """read_rows' answer for a run file of WHOLE_MAX_BYTES or more (not a converted Parquet one), read in pieces;
    else None. (Below that a clean run is read faster whole: 186 MB in 2.1-2.7 s and 0.85-0.88 GB, against
    3.3-3.6 s and 1.0 GB through the DuckDB table.)"""
    from core.engine.stage1 import files
    from core.formats import pieces as limits

    if files.size(path) < limits.WHOLE_MAX_BYTES or _converted(path) is not None:   # as evaluate_files: whole below
        return None
    with _scratch(path) as con:
        got = files.file_rows(path, con)
    if got is None:
        return None
    rows, parsed = got
    return rows, parsed.tag, list(parsed.warnings)


def meta(read) -> tuple:
    """(tag, warnings) of a bucket_task's result."""
    return read[0], read[1]


def piece(read, b: int) -> pa.Table:
    """Bucket `b` of a bucket_task's result (runs where the reader ran: the shuffle's send side)."""
    return read[2][b]


def topic_task(qrels: pa.Table, measures: list[str], options, *pieces: pa.Table) -> pa.Table:
    """Split by topic, second half: the kernel over one bucket of topics of every run."""
    from core.distributed.kernel import OUTPUT, evaluate_rows

    pieces = [p for p in pieces if p.num_rows]
    return evaluate_rows(pa.concat_tables(pieces), qrels, measures, options) if pieces else OUTPUT.empty_table()
