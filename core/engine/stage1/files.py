"""Stage 1 of run files: four providers, tried in this order by `core.engine.stage1.choose` (only `whole` for a file
smaller than PIECES_BYTES or already parsed; `pieces` and `whole` for one smaller than STREAM_BYTES).

- `pieces`: a large clean file whose topics are contiguous, read a piece of whole topics at a time and ranked in
  Arrow (memory stays bounded however long the file); the next piece is read and checked on a second thread
  while this one is ranked (`ahead`);
- `spilled`: a large clean file in any order, read in chunks into a DuckDB table and ranked in SQL (DuckDB spills);
- `tolerant`: any other large file, parsed by the tolerant parser a piece at a time (core/formats/_tolerant.py)
  into the same table; it reports every problem as `read_run` does;
- `whole`: any file, parsed by `read_run` (which reports every problem) and ranked in Arrow;
and before them `empty`: under -c, a blank file is a run that retrieved nothing (without -c the parser refuses it).
All but `whole` decline (return None) what they cannot serve; `whole` serves everything. `file_rows` reads a run
file's rows the way `spilled` and `tolerant` do, without ranking them (the Dask engine's topic split).
"""
from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator, TypeVar

import duckdb
import pyarrow as pa
from isal import isal_zlib

from core.formats import ParsedRun, is_empty_file, read_qrels, read_run
from core.formats._stream import NotClean, file_blocks, file_text, interleaved, positioned, run_batches, run_chunks
from core.formats._tolerant import TolerantRun, fill
from core.formats.runs import _build
from core.measures import EvalOptions
from core.engine.stage1.arrow import arrow_rankings, concat
from core.engine.stage1.tables import qrels_summary, table_rankings
from core.db.sqltext import ident
from core.engine.types import Rankings

STREAM_BYTES = 256 << 20   # run files at least this big are read in pieces, never whole
PIECES_BYTES = 32 << 20    # run files (plain or gzip) this big or more are read in pieces when written topic by topic
CHUNK_BYTES = 1 << 26
TOLERANT_BYTES = 32 << 20  # text parsed at a time by the tolerant parser (which holds ~8x its text)
BIG_QRELS_BYTES = 32 << 20  # qrels files this big take long enough to parse that a mid-sized run is parsed beside them
T = TypeVar("T")
_END = object()


def ahead(items: Iterable[T]) -> Iterator[T]:
    """The items of `items`, each next one computed on a worker thread while the caller works on this one (reading
    and checking a piece of a run overlaps with ranking the one before; most of both runs outside the GIL).
    Plain equivalent: `iter(items)`; tests/engine/test_stage1_pieces.py compares the two. An exception raised by `items`
    is raised here, in its place; at most one item is computed that the caller does not take."""
    it = iter(items)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(next, it, _END)
        try:
            while (item := pending.result()) is not _END:
                pending = pool.submit(next, it, _END)
                yield item
        finally:
            pending.cancel()
            try:
                pending.result()
            except BaseException:     # the caller stopped (or failed) first: what the worker raised is moot
                pass
            if hasattr(it, "close"):
                it.close()


def size(path) -> int:
    try:
        return Path(path).stat().st_size if isinstance(path, (str, Path)) else 0
    except OSError:
        return 0


def _name(parsed, path) -> str:
    return parsed.tag or Path(str(path)).name


def empty(src, options: EvalOptions) -> Rankings | None:
    """Under -c, a file holding nothing but blanks: no rankings, so every qrels topic scores 0."""
    if not options.complete or src.parsed is not None or not is_empty_file(src.path):
        return None
    topics, levels = qrels_summary(src.con, src.qrels_table)
    return Rankings.empty(levels, [Path(str(src.path)).name], topics)


def whole(src, options: EvalOptions) -> Rankings:
    """Parse the whole file (or take `src.parsed`), then rank the judged rows in Arrow."""
    parsed = src.parsed or read_run(src.path, filename=Path(str(src.path)).name)
    rk = arrow_rankings(src.con, parsed.table, src.qrels_table, _name(parsed, src.path), src.summary)
    rk.warnings = list(parsed.warnings)
    return rk


def pieces(src, options: EvalOptions) -> Rankings | None:
    """A large clean file whose topics are contiguous, a piece of whole topics at a time; None otherwise."""
    summary, parts, tags = src.summary or qrels_summary(src.con, src.qrels_table), [], []
    text = file_text(src.path, src.chunk_bytes or CHUNK_BYTES)
    if text is None or interleaved(text.head):
        return None
    try:
        for batch, batch_tags in ahead(run_batches(None, src.chunk_bytes or CHUNK_BYTES, blocks=text.blocks,
                                                   fmt=text.fmt)):
            tags.append(batch_tags)
            if batch.num_rows:
                parts.append(arrow_rankings(src.con, batch, src.qrels_table, "", summary))
    except NotClean:
        return None
    if not parts:
        return None
    parsed = _build(None, pa.chunked_array(tags, pa.string()), None, text.meta, text.fmt)
    rk = concat(parts).named(_name(parsed, src.path))
    rk.warnings = list(parsed.warnings)
    return rk


def spilled(src, options: EvalOptions) -> Rankings | None:
    """A large clean file in any order, read in chunks into a DuckDB table and ranked in SQL; None otherwise."""
    clean = _clean_parts(src.path, src.chunk_bytes)
    return None if clean is None else _ranked_table(src, options, *clean)


def tolerant(src, options: EvalOptions) -> Rankings | None:
    """A large file the column reader declines (comment lines below the top, extra fields, a repeated document, any
    error), parsed by the tolerant parser a piece at a time (TOLERANT_BYTES) into a DuckDB table and ranked in
    SQL; it raises what `whole` would raise. None for a file the whole-file parser reads another way (a CSV or
    TSV with a header line, Parquet, UTF-16)."""
    return _ranked_table(src, options, *_tolerant_parts(src.path))


def _clean_parts(path, chunk_bytes: int | None = None):
    """(pieces, parsed, None) for `_filled`: a clean run file's pieces (`chunk_bytes`, else CHUNK_BYTES) with their
    place in the file (NotClean further in); None when its header cannot be read this way."""
    text = file_text(path, chunk_bytes or CHUNK_BYTES)
    if text is None:
        return None

    def parsed(tags):
        return _build(None, pa.chunked_array(tags, pa.string()), None, text.meta, text.fmt)
    return positioned(run_chunks(None, blocks=text.blocks, fmt=text.fmt)), parsed, None


def _tolerant_parts(path):
    """(pieces, parsed, the TolerantRun) for `_filled`: the tolerant parser's pieces of any run file."""
    run = TolerantRun(Path(str(path)).name, again=lambda: file_blocks(path))
    return run.tables(file_blocks(path, TOLERANT_BYTES)), lambda tags: run.finish(), run


def _filled(con, parts, parsed, run=None):
    """The ParsedRun (without rows) of the run whose pieces `parts` yields, once they are in the DuckDB table
    rb_run_stream on `con` (core.formats._tolerant.fill; `run`: the TolerantRun they come from; the caller drops
    the table); `parsed(tags of each piece)` gives it. None when `fill` declines, the pieces are not clean
    (NotClean) or DuckDB fails while reading them."""
    try:
        got = fill(con, "rb_run_stream", parts, run)
    except (NotClean, duckdb.Error, OSError, EOFError, zlib.error, isal_zlib.error):
        return None
    return None if got is None else parsed(got[0])


def _ranked_table(src, options: EvalOptions, parts, parsed, run=None) -> Rankings | None:
    """Rank the run of `_filled` in SQL on src.con; None when `_filled` declines it."""
    try:
        info = _filled(src.con, parts, parsed, run)
        if info is None:
            return None
        rk = table_rankings(src.con, "rb_run_stream", src.qrels_table, options, run_name=_name(info, src.path))
    finally:
        src.con.execute("DROP TABLE IF EXISTS rb_run_stream").fetchall()
    rk.warnings = list(info.warnings)
    return rk


def file_rows(path, con) -> tuple[pa.Table, ParsedRun] | None:
    """(qid, docno, score) of every line of a run file in file order, and its ParsedRun (tag, warnings, no rows),
    read as `spilled`, else `tolerant`, reads it (through a DuckDB table on `con`, which spills): a large run in
    bounded memory besides its rows, with the same errors as `read_run`. None for a file those decline (a CSV or
    TSV with a header line, Parquet, UTF-16): `read_run` reads it."""
    for parts in (_clean_parts(path), _tolerant_parts(path)):
        if parts is None:
            continue
        try:
            info = _filled(con, *parts)
            if info is not None:
                rows = con.sql("SELECT qid, docno, score FROM rb_run_stream ORDER BY pos").to_arrow_table()
                return rows, info
        finally:
            con.execute("DROP TABLE IF EXISTS rb_run_stream").fetchall()
    return None


def read_whole(path) -> bool:
    """Whether stage 1 reads the run file at `path` whole (`whole`, not `pieces` or `spilled`): it is smaller than
    PIECES_BYTES, or smaller than STREAM_BYTES and not written topic by topic. (`pieces` may still decline a file
    further in, e.g. for a comment line, and leave it to `whole`.)"""
    n = size(path)
    if n >= STREAM_BYTES or n < PIECES_BYTES:
        return n < STREAM_BYTES
    text = file_text(path)
    return text is None or interleaved(text.head)


def read_first(qrels_path, run_path):
    """(parsed qrels, the parsed first run or None). A run that is read whole (read_whole) is parsed on this thread
    while a second thread parses the qrels: most of a parse holds one core, so the two fit side by side. So is a
    mid-sized run that `pieces` would read, when the qrels file is BIG_QRELS_BYTES or more: its pieces could not
    start before the qrels are parsed, and its whole parse fits beside them. Plain equivalent:
    `read_qrels(qrels_path)`, then `read_run(run_path)`. A problem in the qrels is still reported before one in
    the run."""
    def qrels():
        return read_qrels(qrels_path, filename=Path(str(qrels_path)).name)

    if run_path is None or not isinstance(run_path, (str, Path)) or size(run_path) >= STREAM_BYTES or \
            (not read_whole(run_path) and size(qrels_path) < BIG_QRELS_BYTES):
        return qrels(), None
    with ThreadPoolExecutor(1) as pool:
        qrels_job = pool.submit(qrels)
        try:
            run = read_run(run_path, filename=Path(str(run_path)).name)
        except Exception:
            qrels_job.result()          # the qrels' own error first, as when they were read first
            raise
        return qrels_job.result(), run
