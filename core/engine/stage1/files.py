"""Stage 1 of run files: the engine's sink of the one large-file reader (core.formats.pieces). The
providers `empty`, `pieces`, `table` and `whole` are tried in that order by `core.engine.stage1.choose` (only
`empty` and `whole` for a file smaller than pieces_min_bytes() or already parsed; not `table` for one smaller
than WHOLE_MAX_BYTES); all but `whole` decline (return None) what they cannot serve. `file_rows` reads a run
file's rows as `table` does, without ranking them (the Dask engine's topic split).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

import pyarrow as pa

from core.engine.stage1.arrow import arrow_rankings, concat
from core.engine.stage1.tables import arrow_qrels_summary, qrels_summary, table_rankings
from core.engine.types import Rankings
from core.formats import GZIP_MAGIC, ParsedRun, is_empty_file, read_qrels, read_run, read_run_unchecked
from core.formats import pieces as limits
from core.formats.pieces import NotClean, RunSource
from core.formats.runs import build_run
from core.db.sqltext import statement
from core.measures import EvalOptions

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
    """Parse the whole file (or take `src.parsed`) with read_run, which reports every problem, then rank the
    judged rows in Arrow. A gzip text of WHOLE_MAX_BYTES or more goes to `table` (see parse_whole)."""
    parsed = src.parsed or parse_whole(src.path)
    if parsed is None:                       # a gzip text of WHOLE_MAX_BYTES or more: read into the table
        rk = table(src, options)
        if rk is not None:
            return rk
        parsed = read_run(src.path, filename=Path(str(src.path)).name)
    rk = arrow_rankings(src.con, parsed.table, src.qrels_table, _name(parsed, src.path), src.summary)
    rk.warnings = list(parsed.warnings)
    return rk


def parse_whole(path) -> ParsedRun | None:
    """read_run of the run file at `path`; a gzip file's text is read through the reader first (bounded, so no more
    than WHOLE_MAX_BYTES of text is ever held) and parsed from memory: None when it is larger."""
    file = Path(str(path)).name
    if not isinstance(path, (str, Path)) or not _gzip(path):
        return read_run(path, filename=file)
    reader = RunSource.open(path, file, head_bytes=limits.WHOLE_MAX_BYTES)
    if reader is None:
        return read_run(path, filename=file)
    with reader:
        return read_run(reader.head, filename=file) if reader.complete else None


def _gzip(path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == GZIP_MAGIC
    except OSError:
        return False


def pieces(src, options: EvalOptions) -> Rankings | None:
    """A clean file written topic by topic, a piece of whole topics at a time, each ranked in Arrow (memory
    stays bounded however long the file); the next piece is read and checked on a second thread (`ahead`)
    while this one is ranked. None otherwise."""
    summary, parts, tags = src.summary or qrels_summary(src.con, src.qrels_table), [], []
    reader = RunSource.open(src.path, Path(str(src.path)).name)
    if reader is None:
        return None
    with reader:
        if reader.interleaved:
            return None
        try:
            for batch, batch_tags in ahead(reader.batches(src.chunk_bytes)):
                tags.append(batch_tags)
                if batch.num_rows:
                    parts.append(arrow_rankings(src.con, batch, src.qrels_table, "", summary, overlap=False))
        except NotClean:
            return None
        meta, fmt = reader.meta, reader.fmt
    if not parts:
        return None
    parsed = build_run(None, tags, None, meta, fmt)
    rk = concat(parts).named(_name(parsed, src.path))
    rk.warnings = list(parsed.warnings)
    return rk


@contextmanager
def _filled(path, con) -> Iterator[ParsedRun | None]:
    """The run file's rows in DuckDB table rb_run_stream on `con` (which spills), dropped afterwards, and its
    ParsedRun (tag, warnings, no rows); None for a file the reader declines (a CSV or TSV with a header line,
    Parquet, UTF-16): `read_run` reads it."""
    reader = RunSource.open(path, Path(str(path)).name)
    if reader is None:
        yield None
        return
    try:
        with reader:
            info = reader.fill(con, "rb_run_stream")
        yield info
    finally:
        con.execute(statement("DROP TABLE IF EXISTS {t}", t="rb_run_stream")).fetchall()


def table(src, options: EvalOptions) -> Rankings | None:
    """Any file the reader takes (clean in any order, or one the tolerant parser must read), its rows in a
    DuckDB table (rb_run_stream, which spills), ranked in SQL, raising what `whole` would raise; None for a
    file the tolerant parser reads another way (a CSV or TSV with a header line, Parquet, UTF-16)."""
    with _filled(src.path, src.con) as info:
        if info is None:
            return None
        rk = table_rankings(src.con, "rb_run_stream", src.qrels_table, options, run_name=_name(info, src.path))
    rk.warnings = list(info.warnings)
    return rk


def file_rows(path, con) -> tuple[pa.Table, ParsedRun] | None:
    """(qid, docno, score) of every line of a run file in file order, and its ParsedRun (tag, warnings, no rows),
    read as `table` reads it: a large run in bounded memory besides its rows, with the same errors as
    `read_run`. None for a file that reader declines."""
    with _filled(path, con) as info:
        if info is None:
            return None
        return con.sql("SELECT qid, docno, score FROM rb_run_stream ORDER BY pos").to_arrow_table(), info


def read_whole(path) -> bool:
    """Whether stage 1 reads the run file at `path` whole (`whole`, not `pieces`): it is smaller than
    pieces_min_bytes(), or smaller than WHOLE_MAX_BYTES and not written topic by topic. (`pieces` may still decline
    a file further in, e.g. for a comment line, and leave it to `whole`.)"""
    n = size(path)
    if n >= limits.WHOLE_MAX_BYTES or n < limits.pieces_min_bytes():
        return n < limits.WHOLE_MAX_BYTES
    reader = RunSource.open(path, Path(str(path)).name, probe=True)      # its first HEADER_BYTES only
    if reader is None:
        return True
    with reader:
        return reader.interleaved


def checked() -> None:
    """The `confirm` of a run whose checks are all made: nothing is left to check."""


def confirmed(confirm: Callable[[], None], work: Callable[[], T]) -> T:
    """work(), while confirm() (read_run_unchecked's duplicate check) runs on a second thread; what confirm raises
    takes the place of work's outcome, whatever that was (work assumed a run the check refuses). The check costs
    most of a core for a 5M-line run, and stage 2 leaves one idle. Plain equivalent: confirm(), then work();
    tests/engine/test_stage1_pieces.py compares the two."""
    if confirm is checked:
        return work()
    with ThreadPoolExecutor(1) as pool:
        check = pool.submit(confirm)
        try:
            result = work()
        except BaseException:
            check.result()
            raise
        check.result()
        return result


def _parse_first(path) -> tuple[ParsedRun | None, Callable[[], None]]:
    """parse_whole of the run file at `path`, and what is left of its checks (read_run_unchecked's `confirm`)."""
    if isinstance(path, (str, Path)) and not _gzip(path):
        return read_run_unchecked(path, filename=Path(str(path)).name)
    return parse_whole(path), checked


def read_first(qrels_path, run_path):
    """(parsed qrels, the parsed first run or None, the qrels' `qrels_summary` or None, `confirm`). A run that is
    read whole (read_whole) is parsed on this thread while a second thread parses the qrels and then summarises them:
    most of a parse holds one core, so the two fit side by side. So is a mid-sized run that `pieces` would read, when
    the qrels file is BIG_QRELS_BYTES or more: its pieces could not start before the qrels are parsed, and its whole
    parse fits beside them. The run's duplicate check is left to `confirm` (read_run_unchecked), which the caller
    makes beside its evaluation (`confirmed`). Plain equivalent: `read_qrels(qrels_path)`, then `read_run(run_path)`,
    then the summary when stage 1 needs it. A problem in the qrels is still reported before one in the run."""
    def qrels():
        return read_qrels(qrels_path, filename=Path(str(qrels_path)).name)

    def qrels_and_summary():
        parsed = qrels()
        return parsed, arrow_qrels_summary(parsed.table)

    if run_path is None or not isinstance(run_path, (str, Path)) or size(run_path) >= limits.WHOLE_MAX_BYTES or \
            (size(qrels_path) < limits.BIG_QRELS_BYTES and not read_whole(run_path)):   # (read_whole opens the run)
        return qrels(), None, None, checked
    with ThreadPoolExecutor(1) as pool:
        qrels_job = pool.submit(qrels_and_summary)
        try:
            run, confirm = _parse_first(run_path)
        except Exception:
            qrels_job.result()          # the qrels' own error first, as when they were read first
            raise
        parsed, summary = qrels_job.result()
        return parsed, run, summary, confirm
