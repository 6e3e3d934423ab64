"""Qrels: `qid iter docno rel` (TREC), a CSV/TSV with a header, or Parquet.

Grades are integers and may be negative. Column 2 is normally ignored; in trec_eval's qrels_jg
format it is a judgment-group id, and `judgment_groups=True` splits the file by it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from core.formats._fast import fast_qrels, unique
from core.formats._table import open_columns
from core.formats._checks import check_duplicates, check_ids, check_values, quoter, to_number
from core.formats._text import FLOAT_RE, INT_RE, Lines, Problems, decompress, read_source, source_name

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
    """Parse a qrels file; raise UploadError listing what is wrong."""
    file = source_name(source, filename)
    raw = read_source(source, file)
    fast = fast_qrels(decompress(raw, file), judgment_groups)
    if fast is not None:
        table, groups = fast
        return ParsedQrels(table, groups if judgment_groups else None, [], "trec")
    src = open_columns(raw, file, ("rel",), "qrels")
    file, problems, lines = src.file, src.problems, src.lines
    if src.values is not None:
        return _finish(file, src.values, src.lineno, problems, lines, src.fmt, judgment_groups)
    bad = lines.nfields != 4
    bl, counts = lines.lineno[bad], lines.nfields[bad]
    problems.add_many(bl, lambda i: _field_problem(lines, int(bl[i]), int(counts[i])))
    good = ~bad
    values = {"qid": lines.column(0, good), "iter": lines.column(1, good),
              "docno": lines.column(2, good), "rel": lines.column(3, good)}
    return _finish(file, values, lines.lineno[good], problems, lines, "trec", judgment_groups)


def _field_problem(lines: Lines, lineno: int, count: int):
    quote = lines.quote(lineno)
    msg = f"found {count} field{'s' if count != 1 else ''} but a qrels line needs 4 ({QRELS_FIELDS})"
    parts = quote.split()
    if count == 6 and re.fullmatch(FLOAT_RE, parts[4]):
        return lineno, msg + "; this looks like a run file", "Upload it as a run instead", quote
    return lineno, msg, "Separate the fields with spaces or tabs and remove extra fields", quote


def _finish(file, values, lineno, problems: Problems, lines: Lines | None, fmt, jg: bool) -> ParsedQrels:
    quote = quoter(lines)
    good = check_ids(values, lineno, problems, "qrels", quote)
    good &= check_values(values["rel"], lineno, INT_RE, problems, "relevance grade '{}' is not a whole number",
                         "Use an integer grade such as 0, 1 or 2 (negative grades are allowed)", quote)
    mask = pa.array(good)
    table = pa.table({"qid": values["qid"].filter(mask).cast(pa.string()),
                      "docno": values["docno"].filter(mask).cast(pa.string()),
                      "rel": to_number(values["rel"].filter(mask), pa.int32())})
    groups = values["iter"].filter(mask).cast(pa.string()) if "iter" in values else None
    multi = groups is not None and not jg and len(pc.unique(groups)) > 1
    hint = ("Column 2 holds several judgment groups; load the file with judgment groups (qrels_jg) "
            "to get one qrels set per group" if multi else "Keep one judgment per document and remove the other")
    keyed = table.append_column("_g", groups) if (jg and groups is not None) else table
    keys = ["_g", "qid", "docno"] if keyed is not table else ["qid", "docno"]
    if not unique(keyed, keys):         # the hashed check first, as runs._finish does; the grouping names the lines
        check_duplicates(keyed, keys, lineno[good], problems, "is judged twice", hint, quote)
    problems.raise_if_any()
    return ParsedQrels(table, groups if jg else None, [], fmt)
