"""Preference judgments: trec_eval's `-R prefs` file, `qid jg jsg docno rel_level` (get_prefs.c).

Within one judgment subgroup (jsg) of a judgment group (jg), a document with a higher rel_level is preferred to
every document with a lower one; rel_level 0 means non-relevant. Lines starting with '#' are comments. A document
may appear in several subgroups of a group (that is how partial orders are written), but only once per subgroup.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.errors import Problem, UploadError
from core.formats._checks import check_duplicates, check_ids, check_values, fixed_columns, kept, quoter
from core.formats._text import FLOAT_RE, Problems, split_lines, text_lines

PREFS_FIELDS = "qid jg jsg docno rel_level"


@dataclass
class ParsedPrefs:
    table: pa.Table                  # qid, jg, jsg, docno (strings), rel (float64)


def read_prefs(source, *, filename: str | None = None) -> ParsedPrefs:
    """Parse a prefs file; raise UploadError listing what is wrong (file, line, problem, fix, the line)."""
    file, text, _ = text_lines(source, filename)
    if text is None:
        raise UploadError(Problem(file, None, "this is a Parquet file, but a prefs file is text with 5 fields per "
                                  f"line ({PREFS_FIELDS})", "Save the preferences as a text file"))
    problems = Problems(file)
    lines = split_lines(text, file)
    values, lineno = fixed_columns(lines, ("qid", "jg", "jsg", "docno", "rel"), problems, "prefs", PREFS_FIELDS,
                                   _looks_like)
    quote = quoter(lines)
    ok = check_ids(values, lineno, problems, "prefs", quote)
    ok &= check_values(values["rel"], lineno, FLOAT_RE, problems, "rel_level '{}' is not a number",
                       "Use a number such as 0, 1 or 2.5 (higher is preferred; 0 is non-relevant)", quote)
    table = kept(values, ok, ("qid", "jg", "jsg", "docno"), pa.float64())
    check_duplicates(table, ["qid", "jg", "jsg", "docno"], lineno[ok], problems, "appears twice in one judgment "
                     "subgroup", "Give a document one rel_level per (topic, jg, jsg): remove the other line", quote)
    problems.raise_if_any()
    return ParsedPrefs(table)


def _looks_like(quote: str, count: int) -> tuple[str, str] | None:
    if count == 4 and re.fullmatch(FLOAT_RE, quote.split()[-1]):
        return "a qrels file", "Evaluate it with -R qrels_prefs (a qrels file read as preferences) instead"
    return None


def prefs_from_qrels(parsed) -> pa.Table:
    """trec_eval's -R qrels_prefs (get_qrels_prefs.c): a qrels file read as preferences, column 2 (iter) as the
    judgment group and one subgroup "0" for every line. `parsed`: a ParsedQrels read with judgment_groups=True."""
    t = parsed.table
    zeros = pa.array(np.full(t.num_rows, "0", object), pa.string())
    return pa.table({"qid": t["qid"], "jg": parsed.groups if parsed.groups is not None else zeros, "jsg": zeros,
                     "docno": t["docno"], "rel": pc.cast(t["rel"], pa.float64())})
