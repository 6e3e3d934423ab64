"""Qrels: `qid iter docno rel` (TREC), a CSV/TSV with a header, or Parquet.

Grades are integers and may be negative. Column 2 is normally ignored; in trec_eval's qrels_jg
format it is a judgment-group id, and `judgment_groups=True` splits the file by it.

A clean TREC file is read by the column reader (core.formats._fast). Any other file goes to the tolerant parser,
which holds ~10x the text while it splits lines and fields; a TREC text of QRELS_PIECES_MIN_BYTES or more (the
sizes are core.formats.pieces') is given to it QRELS_PIECE_BYTES at a time (`_in_pieces`), with line numbers
counted across the pieces, so that a large file with a few bad lines, or a run uploaded as qrels by mistake, is
refused (or read) in bounded memory with the same messages (tests/formats/test_qrels_pieces.py compares the two).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.errors import UploadError
from core.formats.datasets import dataset_id, read_dataset_qrels
from core.formats._fast import fast_qrels, unique
from core.formats._stream import NotClean, line_pieces
from core.formats._table import open_columns
from core.formats._checks import check_duplicates, check_ids, check_values, fixed_columns, kept, quoter
from core.formats._text import (FLOAT_RE, INT_RE, Lines, Problems, decompress, read_source, screened,
                                source_name)
from core.formats import pieces as limits
from core.formats._tolerant import PieceLines, quote_lines

QRELS_FIELDS = "qid iter docno rel"


@dataclass
class ParsedQrels:
    table: pa.Table                  # qid (string), docno (string), rel (int32)
    groups: pa.Array | None = None   # column 2 (iter / judgment group), one per row
    warnings: list[str] = field(default_factory=list)
    format: str = "trec"

    @property
    def n_rows(self) -> int:
        return self.table.num_rows

    def by_group(self) -> dict[str, pa.Table]:
        """One table per judgment group (qrels_jg); a single group when column 2 is constant."""
        if self.groups is None:
            return {"0": self.table}
        return {g: self.table.filter(pc.equal(self.groups, g)) for g in sorted(pc.unique(self.groups).to_pylist())}


def read_qrels(source, *, filename: str | None = None, judgment_groups: bool = False) -> ParsedQrels:
    """Parse a qrels file, or take the qrels of the ir_datasets dataset `irds:ID` (core.formats.datasets); raise
    UploadError listing what is wrong."""
    if (did := dataset_id(source)) is not None:
        return ParsedQrels(read_dataset_qrels(did), None, [], "ir_datasets")
    file = source_name(source, filename)
    raw = read_source(source, file)
    text, controls = screened(raw, file)
    box = [text]
    del text
    fast = fast_qrels(box, judgment_groups, controls)      # lets go of the text once it has parsed it
    if fast is not None:
        table, groups = fast
        return ParsedQrels(table, groups if judgment_groups else None, [], "trec")
    text = box.pop() if box else decompress(raw, file)
    if len(text) >= limits.QRELS_PIECES_MIN_BYTES:
        parsed = _in_pieces(file, text, judgment_groups)
        if parsed is not None:
            return parsed
    del text
    src = open_columns(raw, file, ("rel",), "qrels")
    values, lineno = (src.values, src.lineno) if src.values is not None else _trec_values(src.lines, src.problems)
    return _finish(src.file, values, lineno, src.problems, src.lines, src.fmt, judgment_groups)


def _trec_values(lines: Lines, problems: Problems) -> tuple[dict, np.ndarray]:
    """The four columns of the lines that have four fields, and their line numbers; the others are reported."""
    return fixed_columns(lines, ("qid", "iter", "docno", "rel"), problems, "qrels", QRELS_FIELDS, _looks_like)


def _in_pieces(file: str, text, jg: bool, piece_bytes: int | None = None) -> ParsedQrels | None:
    """`read_qrels`' tolerant parse of a TREC `text`, `piece_bytes` of whole lines at a time: the same qrels, or
    the same UploadError (every problem, the first MAX_PROBLEMS by line). None for a text it reads another way
    (UTF-16, Parquet, a CSV or TSV with a header line): the whole-file parser reads those."""
    pieces, parts = PieceLines(file, ("rel",)), []
    piece_bytes = piece_bytes or limits.QRELS_PIECE_BYTES
    try:
        for data in line_pieces(_cut(text, piece_bytes)):
            got = pieces.lines(data)
            del data
            if got is None or not len(got[0].lineno):
                continue
            lines, offset = got
            local = Problems(file)
            values, lineno = _trec_values(lines, local)
            table, groups, lineno = _checked(values, lineno, local, quoter(lines))
            parts.append((table, groups, lineno + offset))
            pieces.problems.merge(local.items, local.total, offset)
    except NotClean:
        return None
    pieces.check_data()
    table = pa.concat_tables([p[0] for p in parts])
    groups = pa.chunked_array([p[1] for p in parts], pa.string())
    lineno = np.concatenate([p[2] for p in parts])
    del parts
    try:
        return _final(file, table, groups, lineno, pieces.problems, lambda n: None, "trec", jg)
    except UploadError as exc:
        wanted = {p.line for p in exc.problems if p.quote is None and p.line is not None}
        quotes = quote_lines(_cut(text, piece_bytes), wanted) if wanted else {}
        raise UploadError([replace(p, quote=quotes.get(p.line, p.quote)) for p in exc.problems],
                          total=exc.total) from None


def _looks_like(quote: str, count: int) -> tuple[str, str] | None:
    if count == 6 and re.fullmatch(FLOAT_RE, quote.split()[4]):
        return "a run file", "Upload it as a run instead"
    return None


def _finish(file, values, lineno, problems: Problems, lines: Lines | None, fmt, jg: bool) -> ParsedQrels:
    quote = quoter(lines)
    table, groups, lineno = _checked(values, lineno, problems, quote)
    return _final(file, table, groups, lineno, problems, quote, fmt, jg)


def _cut(text, size: int):
    """`text` in slices of `size` bytes."""
    return (text[i:i + size] for i in range(0, len(text), size))


def _checked(values: dict, lineno: np.ndarray, problems: Problems, quote) -> tuple[pa.Table, pa.Array | None,
                                                                                    np.ndarray]:
    """(qid, docno, rel) table, column 2 and the line numbers of the rows whose ids and grade are good; the
    others are reported."""
    good = check_ids(values, lineno, problems, "qrels", quote)
    good &= check_values(values["rel"], lineno, INT_RE, problems, "relevance grade '{}' is not a whole number",
                         "Use an integer grade such as 0, 1 or 2 (negative grades are allowed)", quote)
    table = kept(values, good, ("qid", "docno"), pa.int32())
    groups = values["iter"].filter(pa.array(good)).cast(pa.string()) if "iter" in values else None
    return table, groups, lineno[good]


def _final(file, table: pa.Table, groups, lineno: np.ndarray, problems: Problems, quote, fmt, jg: bool) -> ParsedQrels:
    """The qrels once every row is checked: repeated judgments reported, and every problem raised."""
    multi = groups is not None and not jg and len(pc.unique(groups)) > 1
    hint = ("Column 2 holds several judgment groups; load the file with judgment groups (qrels_jg) "
            "to get one qrels set per group" if multi else "Keep one judgment per document and remove the other")
    keyed = table.append_column("_g", groups) if (jg and groups is not None) else table
    keys = ["_g", "qid", "docno"] if keyed is not table else ["qid", "docno"]
    if not unique(keyed, keys):         # the hashed check first, as runs._finish does; the grouping names the lines
        check_duplicates(keyed, keys, lineno, problems, "is judged twice", hint, quote)
    problems.raise_if_any()
    return ParsedQrels(table, groups if jg else None, [], fmt)
