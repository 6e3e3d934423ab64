"""Tables with named columns: CSV/TSV with a header line, and Parquet.

Column names are matched case-insensitively against a few common aliases, so that
`query_id,doc_id,score` and `qid,docno,score` both work.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.errors import Problem, UploadError
from core.formats._text import PARQUET_MAGIC, Lines, Problems, split_lines, text_lines

ALIASES = {
    "qid": ("qid", "query_id", "queryid", "qno", "topic", "topic_id", "query"),
    "docno": ("docno", "docid", "doc_id", "document_id", "pid", "did", "doc"),
    "score": ("score", "sim", "similarity"),
    "rank": ("rank",),
    "rel": ("rel", "relevance", "label", "grade", "judgment", "judgement"),
    "iter": ("iter", "q0"),
    "tag": ("tag", "run_tag", "runid"),        # a run's name (as column 6 of a TREC run); Parquet from `core convert`
}


def match_header(names: list[str], columns: dict[str, tuple[str, ...]] = ALIASES) -> dict[str, int]:
    """Canonical column -> position, for the names that match one of its `columns` aliases."""
    clean = [n.strip().strip('"').strip().lower() for n in names]
    found = {}
    for canon, aliases in columns.items():
        for i, name in enumerate(clean):
            if name in aliases and canon not in found and i not in found.values():
                found[canon] = i
    return found


def named_columns(first: str, needs: tuple[str, ...]) -> tuple[str | None, dict[str, int]] | None:
    """(separator, column positions) when the line `first` is a header naming qid, docno and one of `needs`."""
    first = first.strip()
    sep = "," if "," in first else ("\t" if "\t" in first else None)
    cols = match_header(first.split(sep) if sep else first.split())
    if "qid" not in cols or "docno" not in cols or not any(n in cols for n in needs):
        return None
    return sep, cols


def header_columns(lines: Lines, cols: dict[str, int], problems, line: str) -> tuple[dict, np.ndarray]:
    """Values of the named columns for every row after the header; rows with the wrong number of fields are
    reported ("Give every `line` the same columns as the header") and dropped."""
    n = len(lines.tokens[0])
    body = np.ones(len(lines.lineno), bool)
    body[0] = False
    bad = body & (lines.nfields != n)
    bad_lines = lines.lineno[bad]
    problems.add_many(bad_lines, lambda i: (
        int(bad_lines[i]), f"found {lines.nfields[bad][i]} fields but the header names {n} columns",
        f"Give every {line} the same columns as the header", lines.quote(int(bad_lines[i]))))
    keep = body & ~bad
    values = {c: pc.utf8_trim(lines.column(i, keep), ' "\t') for c, i in cols.items()}
    return values, lines.lineno[keep]


def parquet_table(data: bytes, file: str):
    """The Arrow table of a Parquet file, or an UploadError that names the file."""
    try:
        return pq.read_table(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise UploadError(Problem(file, None, f"the Parquet file cannot be read ({exc})",
                                  "Upload a complete Parquet file, or a text file")) from None


def read_parquet(data: bytes, file: str, needs: tuple[str, ...]) -> tuple[dict, np.ndarray]:
    """Columns of a Parquet file as strings; their 'line' numbers are 1-based row numbers (errors say "row")."""
    table = parquet_table(data, file)
    cols = match_header(table.column_names)
    missing = [c for c in ("qid", "docno") if c not in cols]
    if missing or not any(n in cols for n in needs):
        want = ", ".join(["qid", "docno"] + [" or ".join(needs)])
        raise UploadError(Problem(file, None, f"the Parquet file has columns {table.column_names}, "
                                  f"but needs {want}", "Rename the columns and upload it again"))
    values = {}
    for canon, i in cols.items():
        col = table.column(i)
        try:
            values[canon] = pc.cast(col, pa.large_string()).combine_chunks()
        except pa.ArrowException:
            raise UploadError(Problem(file, None, f"column '{table.column_names[i]}' of type {col.type} "
                                      "cannot be read as text", "Store it as a string or number column")) from None
    if table.num_rows == 0:
        raise UploadError(Problem(file, None, "the file is empty", "Choose a file with at least one row"))
    return values, np.arange(1, table.num_rows + 1)


@dataclass
class Opened:
    """A run or qrels file after the shared first steps: named-column `values` for Parquet and
    CSV/TSV with a header (fmt 'parquet' / 'csv'); for a plain TREC file only its `lines`."""
    file: str
    problems: Problems
    lines: Lines | None
    values: dict | None
    lineno: np.ndarray | None
    fmt: str
    comments: list[str]


def open_columns(source, filename: str | None, needs: tuple[str, ...], kind: str) -> Opened:
    """Read, decompress and decode `source`; read Parquet or a header-named CSV/TSV into columns."""
    file, text, data = text_lines(source, filename)
    if data.startswith(PARQUET_MAGIC):
        values, lineno = read_parquet(data, file, needs)
        return Opened(file, Problems(file, unit="row"), None, values, lineno, "parquet", [])
    problems = Problems(file)
    lines = split_lines(text, file)
    header = named_columns(lines.quote(int(lines.lineno[0])), needs)
    if header is None:
        return Opened(file, problems, lines, None, None, "trec", lines.comments)
    sep, cols = header        # a header line: the file is split again by its separator
    relined = split_lines(text, file, sep=sep) if sep else lines
    values, lineno = header_columns(relined, cols, problems, f"{kind} line")
    return Opened(file, problems, relined, values, lineno, "csv", lines.comments)
