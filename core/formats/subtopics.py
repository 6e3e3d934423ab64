"""Subtopic (diversity) qrels: `qid subtopic docno rel`, the file ndeval reads (TREC Web track diversity qrels).

One line judges one document for one subtopic (intent) of a topic. Grades are integers and may be negative; the
diversity measures count a grade >= the relevance level (1 unless rel= or -l says otherwise) as relevant, as
pyndeval does. Subtopic ids are kept as text, in the order they first appear in the file (pyndeval numbers them
that way, and ndeval adds a document's subtopic gains in that order).
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from core.errors import Problem, UploadError
from core.formats._checks import check_duplicates, check_ids, check_values, fixed_columns, kept, quoter
from core.formats._text import INT_RE, Problems, split_lines, text_lines

SUBTOPIC_FIELDS = "qid subtopic docno rel"


@dataclass
class ParsedSubtopics:
    table: pa.Table                  # qid, subtopic, docno (strings), rel (int32), in file order

    @property
    def n_rows(self) -> int:
        return self.table.num_rows

    def single_subtopic(self) -> bool:
        """True when no topic has two subtopics: these are ordinary qrels, not diversity qrels."""
        per = self.table.group_by("qid").aggregate([("subtopic", "count_distinct")])
        return bool(pc.max(per["subtopic_count_distinct"]).as_py() <= 1)


def read_subtopic_qrels(source, *, filename: str | None = None) -> ParsedSubtopics:
    """Parse a subtopic qrels file; raise UploadError listing what is wrong (file, line, problem, fix)."""
    file, text, _ = text_lines(source, filename)
    if text is None:
        raise UploadError(Problem(file, None, "this is a Parquet file, but subtopic qrels are read as text",
                                  f"Save it as text with four columns: {SUBTOPIC_FIELDS}"))
    problems = Problems(file)
    lines = split_lines(text, file)
    quote = quoter(lines)
    values, lineno = fixed_columns(lines, ("qid", "subtopic", "docno", "rel"), problems, "subtopic qrels",
                                   SUBTOPIC_FIELDS)
    ok = check_ids(values, lineno, problems, "subtopic qrels", quote)
    ok &= check_values(values["rel"], lineno, INT_RE, problems, "relevance grade '{}' is not a whole number",
                       "Use an integer grade such as 0 or 1 (negative grades are allowed)", quote)
    table = kept(values, ok, ("qid", "subtopic", "docno"), pa.int32())
    check_duplicates(table, ["qid", "subtopic", "docno"], lineno[ok], problems,
                     "is judged twice (same subtopic)", "Keep one judgment per document and subtopic", quote)
    problems.raise_if_any()
    return ParsedSubtopics(table)
