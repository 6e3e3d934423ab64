"""The tolerant run parser a piece at a time, for large runs that the column reader declines (a '#' line below the
header, a line with extra fields, a repeated document, any error): each piece of whole lines goes through the same
checks as `read_run` (core.formats.runs), with its line numbers counted across pieces (`PieceLines`, which qrels'
pieces share) and its problems, warnings and comment lines merged, so such a run is read in bounded memory and
gets the error or the warnings it gets when parsed whole (tests/formats/test_tolerant_pieces.py,
tests/store/test_ingest_stream.py and tests/formats/test_formats_fastpath.py compare the two). The rows go into a
DuckDB table (`fill`), which spills to disk, and DuckDB finds the repeated documents;
core.formats.pieces.RunSource.fill puts them there for both sinks (core/store/prepare.py and
core/engine/stage1/files.py), which rank them.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import chain
from typing import Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.errors import MAX_PROBLEMS, Problem, UploadError
from core.formats._fast import unique
from core.formats._stream import NotClean, line_pieces
from core.formats._table import named_columns
from core.formats._text import (_NONSPACE, PARQUET_MAGIC, UTF8_BOM, UTF16_BOMS, Lines, Problems, empty_file,
                                max_line_bytes, no_data_lines, screen, split_lines, utf8_text)
from core.formats.metadata import parse_ir_metadata
from core.formats.runs import (REPEATED, REPEATED_HINT, ParsedRun, build_run, checked, extra_fields_warning,
                               is_msmarco, line_values)
from core.db.sqltext import statement

COMMENT_CHARS = 1 << 20      # '#' lines kept for the run's metadata (a file of nothing but comments is not held)


def shifted(exc: UploadError, offset: int) -> UploadError:
    """`exc` with its line numbers moved down by `offset` lines (a piece's numbers -> the file's)."""
    return UploadError([replace(p, line=p.line + offset) if p.line is not None else p for p in exc.problems],
                       total=exc.total)


class PieceLines:
    """A text split a piece of whole lines at a time, its lines numbered across the pieces (the pieces' problems
    go to `problems`). NotClean for UTF-16, Parquet, or a header naming qid, docno and one of `needs`."""

    def __init__(self, file: str, needs: tuple[str, ...]):
        self.file, self.needs, self.problems = file, needs, Problems(file)
        self.line = 1                        # the file's number of the next piece's first line
        self.text = self.data_lines = False

    def lines(self, data: bytes) -> tuple[Lines, int] | None:
        """(the Lines of `data`, the number of lines before it); None when `data` holds only white space."""
        offset = self.line - 1
        if offset == 0 and (data[:2] in UTF16_BOMS or data[:4] == PARQUET_MAGIC):
            raise NotClean()
        self.line += data.count(b"\n")
        start = 3 if offset == 0 and data.startswith(UTF8_BOM) else 0
        if _NONSPACE.search(data, start) is None:
            return None
        self.text = True
        try:
            lines = split_lines(utf8_text(data, self.file, start), self.file, empty_ok=True)
        except UploadError as exc:
            raise shifted(exc, offset) from None
        if len(lines.lineno) and not self.data_lines:
            if named_columns(lines.quote(int(lines.lineno[0])), self.needs) is not None:
                raise NotClean()
            self.data_lines = True
        return lines, offset

    def check_data(self) -> None:
        """Raise UploadError when no piece held any text, or no data line."""
        if not self.text:
            raise empty_file(self.file)
        if not self.data_lines:
            raise no_data_lines(self.file)


class TolerantRun(PieceLines):
    """The tolerant parse of one run file, fed its text a piece of whole lines at a time (`tables`)."""

    def __init__(self, file: str, again=None):
        super().__init__(file, ("score", "rank"))
        self.again = again                   # again(): the file's text from its first byte, once more
        self.fmt: str | None = None          # 'trec' or 'msmarco', from the first data line (as read_run decides)
        self.extra, self.extra_first = 0, None   # lines with more than 6 fields, and the first of them
        self.comments, self.comment_chars = [], 0
        self.tags: list[pa.Array] = []

    def tables(self, blocks: Iterable[bytes]) -> Iterator[tuple[pa.Table, pa.Array]]:
        """(pos: line number, qid, docno, score; the tags, distinct, then the last line's: runs.build_run) of the usable
        rows of each piece of `blocks` (the file's text from its first byte, cut here at line ends). Raises
        UploadError at once for what the whole-file parser refuses before it parses (binary data, an over-long line,
        text that is not UTF-8); NotClean for a file it reads differently (a CSV or TSV with a header line, UTF-16
        text, Parquet)."""
        for data in line_pieces(blocks, max_line_bytes(), self._screen):
            got = self.parse(data)
            del data
            if got is not None:
                yield got

    def _screen(self, data: bytes) -> None:
        try:
            screen(data, self.file)
        except UploadError as exc:
            raise shifted(exc, self.line - 1) from None

    def parse(self, data: bytes) -> tuple[pa.Table, pa.Array] | None:
        """The usable rows of `data` (whole lines that follow those already parsed) and their tags, as
        `tables` yields them."""
        self._screen(data)
        got = self.lines(data)
        if got is None:
            return None
        lines, offset = got
        self._keep_comments(lines.comments)
        if not len(lines.lineno):
            return None
        if self.fmt is None:
            self.fmt = "msmarco" if is_msmarco(lines.tokens[0].as_py()) else "trec"
        problems = Problems(self.file)
        values, lineno, extra = line_values(lines, self.fmt == "msmarco", problems)
        table, mask = checked(values, lineno, problems, lines)
        if len(extra):
            self.extra += len(extra)
            self.extra_first = self.extra_first or int(extra[0]) + offset
        self.problems.merge(problems.items, problems.total, offset)
        good = values["tag"].filter(mask) if "tag" in values else pa.array([], pa.string())
        tags = pc.unique(good)
        if len(good):       # then the last line's tag, which names the run (runs.build_run)
            tags = pa.concat_arrays([tags, pa.array([good[len(good) - 1].as_py()], pa.string())])
        self.tags.append(tags)
        pos = lineno[mask.to_numpy(zero_copy_only=False)] + offset
        return table.add_column(0, "pos", pa.array(pos, pa.int64())), tags

    def _keep_comments(self, comments: list[str]) -> None:
        for c in comments:
            if self.comment_chars + len(c) > COMMENT_CHARS:
                return
            self.comments.append(c)
            self.comment_chars += len(c)

    def report_repeats(self, rows: list[tuple], total: int) -> None:
        """Report repeated documents: `rows` (line, qid, docno, line of the first occurrence) are the first few of
        the `total` rows whose document repeats an earlier row of its topic. Their lines are quoted from the text
        read once more (`again`)."""
        quotes = quote_lines(self.again(), {int(r[0]) for r in rows}) if self.again is not None else {}
        self.problems.merge([Problem(self.file, int(line), f"document '{doc}' {REPEATED} for topic '{qid}' (first "
                                     f"on line {int(was)})", REPEATED_HINT, quotes.get(int(line)))
                             for line, qid, doc, was in rows[:MAX_PROBLEMS]], total)

    def raise_if_any(self) -> None:
        """Once every piece is parsed and the repeated documents reported (`report_repeats`): raise UploadError with
        every problem found, or when the file holds no data line."""
        self.check_data()
        self.problems.raise_if_any()

    def finish(self) -> ParsedRun:
        """The run without its rows (tag, metadata, warnings, format); raises as `raise_if_any`."""
        self.raise_if_any()
        meta = parse_ir_metadata(self.comments)
        run = build_run(None, self.tags if self.fmt == "trec" else None, None, meta, self.fmt)
        if self.extra:
            run.warnings.append(extra_fields_warning(self.extra, self.extra_first))
        return run


def quote_lines(blocks: Iterable[bytes], wanted: set[int], step: int = 1 << 20) -> dict[int, str]:
    """The text of the lines numbered `wanted` (1-based, without the line end and a CR before it) in a text given
    as `blocks`, read once more from its start; for the problems found after their piece was let go. Line ends
    are counted `step` bytes at a time, and located only in the steps that hold a wanted line."""
    found, line, rest = {}, 1, b""
    for block in chain(blocks, [b"\n"]):
        data, rest = rest + block, b""
        cut = data.rfind(b"\n") + 1
        data, rest = data[:cut], data[cut:]
        pos = 0
        while pos < len(data):
            end = data.find(b"\n", pos + step) + 1 or len(data)
            part = data[pos:end]
            count = part.count(b"\n")
            hits = sorted(w for w in wanted if line <= w < line + count)
            if hits:
                ends = np.flatnonzero(np.frombuffer(part, np.uint8) == 10)
                for w in hits:
                    i = w - line
                    start = int(ends[i - 1]) + 1 if i else 0
                    found[w] = part[start:int(ends[i])].removesuffix(b"\r").decode("utf-8", "replace")
            line += count
            pos = end
        if len(found) == len(wanted):
            break
    return found


def fill(con, table: str, parts, tolerant: TolerantRun | None = None) -> tuple[list[pa.Array], int] | None:
    """Insert the pieces `parts` yields ((pos, qid, docno, score) table; its tags) into a new temporary
    DuckDB table `table` (pos BIGINT, qid VARCHAR, docno VARCHAR, score DOUBLE) on `con`: (the tags of each piece,
    rows). Without `tolerant` the pieces are a clean run's, pos their order in the file, and the result is None
    when a document repeats within a topic (the tolerant parser names the lines) or there is no row. With
    `tolerant` (the TolerantRun whose `tables` these are, pos their line numbers), repeated documents are reported
    to it, and its `raise_if_any()` raises every problem found (UploadError)."""
    con.execute(statement("CREATE TEMP TABLE {t} (pos BIGINT, qid VARCHAR, docno VARCHAR, score DOUBLE)",
                          t=table)).fetchall()
    tags, n = [], 0
    for part, part_tags in parts:
        if tolerant is None and not unique(part, ["qid", "docno"]):     # a repeat within a piece: decline now
            return None
        tags.append(part_tags)
        con.register("_rb_part", part)
        con.execute(statement("INSERT INTO {t} SELECT pos, qid, docno, score FROM _rb_part", t=table)).fetchall()
        con.unregister("_rb_part")
        n += part.num_rows
        del part
    distinct = con.execute(statement("SELECT count(*) FROM (SELECT DISTINCT qid, docno FROM {t})", t=table))
    repeats = n and distinct.fetchall()[0][0] != n
    if tolerant is None:
        return (tags, n) if n and not repeats else None
    if repeats:
        tolerant.report_repeats(*_repeats(con, table))
    tolerant.raise_if_any()
    return tags, n


def _repeats(con, table: str) -> tuple[list[tuple], int]:
    """(the first MAX_PROBLEMS rows of `table` whose document repeats an earlier row of its topic, as (line, qid,
    docno, line of the first occurrence); how many such rows)."""
    con.execute(statement("CREATE TEMP TABLE _rb_repeated AS SELECT qid, docno, min(pos) AS first, count(*) AS c "
                          "FROM {t} GROUP BY qid, docno HAVING count(*) > 1", t=table)).fetchall()
    try:
        rows = con.execute(statement("SELECT r.pos, r.qid, r.docno, g.first FROM {t} r JOIN _rb_repeated g "
                                     "ON g.qid = r.qid AND g.docno = r.docno WHERE r.pos <> g.first ORDER BY r.pos "
                                     "LIMIT " + str(MAX_PROBLEMS), t=table)).fetchall()
        return rows, con.execute("SELECT sum(c - 1) FROM _rb_repeated").fetchall()[0][0]
    finally:
        con.execute("DROP TABLE _rb_repeated").fetchall()
