"""The tolerant parsers' vectorised checks of a file's columns: each reports every row that fails to `Problems`
(core.formats._text) and returns the mask of the good ones. Also the steps the line formats share around them:
the wrong-field-count problem, the columns of lines with a fixed number of fields, the table of the good rows."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.formats._text import Lines, Problems


def bad_values(values: pa.Array, pattern: str) -> np.ndarray:
    """Boolean mask of values that do not match `pattern` (nulls count as bad)."""
    ok = pc.fill_null(pc.match_substring_regex(values, pattern), False)
    return ~ok.to_numpy(zero_copy_only=False)


def to_number(values: pa.Array, typ: pa.DataType) -> pa.Array:
    """Cast already-validated numeric strings; a leading '+' is allowed."""
    return pc.cast(pc.replace_substring_regex(values, r"^\+", ""), typ)


def quoter(lines: Lines | None):
    """line number -> the quoted line (None for Parquet, which has no lines to quote)."""
    return (lambda n: lines.quote(int(n))) if lines is not None else (lambda n: None)


def field_problem(lineno: int, count: int, quote: str, kind: str, fields: str,
                  looks: tuple[str, str] | None = None):
    """(line, message, hint, quote) for a line of `count` fields where a `kind` line needs the `fields` (their
    names, space-separated); `looks`: (what the line looks like, what to do) when it resembles another kind of
    file."""
    needs = len(fields.split())
    msg = f"found {count} field{'s' if count != 1 else ''} but a {kind} line needs {needs} ({fields})"
    if looks is not None:
        return lineno, f"{msg}; this looks like {looks[0]}", looks[1], quote
    return lineno, msg, "Separate the fields with spaces or tabs and remove extra fields", quote


def fixed_columns(lines: Lines, names: tuple[str, ...], problems: Problems, kind: str, fields: str,
                  looks=None) -> tuple[dict, np.ndarray]:
    """The columns `names` of the lines that have as many fields, and their line numbers; every other line is
    reported (field_problem; `looks(quote, count)` says what such a line looks like, or None)."""
    bad = lines.nfields != len(names)
    bl, counts = lines.lineno[bad], lines.nfields[bad]

    def problem(i: int):
        quote = lines.quote(int(bl[i]))
        like = looks(quote, int(counts[i])) if looks is not None else None
        return field_problem(int(bl[i]), int(counts[i]), quote, kind, fields, like)

    problems.add_many(bl, problem)
    good = ~bad
    return {name: lines.column(i, good) for i, name in enumerate(names)}, lines.lineno[good]


def kept(values: dict, good: np.ndarray, strings: tuple[str, ...], rel: pa.DataType) -> pa.Table:
    """The rows `good` of `values`: the columns `strings` as strings, then the grade `rel` cast to `rel`."""
    mask = pa.array(good)
    table = pa.table({k: values[k].filter(mask).cast(pa.string()) for k in strings})
    return table.append_column("rel", to_number(values["rel"].filter(mask), rel))


def check_values(values: pa.Array, lineno: np.ndarray, pattern: str, problems: Problems, message: str,
                 hint: str, quote) -> np.ndarray:
    """Report every value not matching `pattern` (`message` formats the value); -> mask of the good ones."""
    bad = bad_values(values, pattern)
    bl, bv = lineno[bad], values.filter(pa.array(bad))
    problems.add_many(bl, lambda i: (int(bl[i]), message.format(bv[i].as_py()), hint, quote(bl[i])))
    return ~bad


def check_ids(values: dict, lineno: np.ndarray, problems: Problems, kind: str, quote) -> np.ndarray:
    """qid and docno must be present and non-empty (a CSV field or a Parquet cell can be empty)."""
    ok = np.ones(len(lineno), bool)
    for col in ("qid", "docno"):
        filled = pc.fill_null(pc.greater(pc.utf8_length(values[col]), 0), False)
        empty = ~filled.to_numpy(zero_copy_only=False)
        el = lineno[empty]
        problems.add_many(el, lambda i: (int(el[i]), f"the {col} is empty",
                                         f"Give every {kind} row a qid and a docno", quote(el[i])))
        ok &= ~empty
    return ok


def check_duplicates(table: pa.Table, keys: list[str], lineno: np.ndarray, problems: Problems, verb: str,
                     hint: str, quote) -> None:
    """Report each row whose keys repeat an earlier row: "document 'd' <verb> for topic 'q' (first on line n)"."""
    rows, first = duplicate_rows(table, keys)
    if not len(rows):
        return
    qid, doc = table["qid"].take(pa.array(rows)), table["docno"].take(pa.array(rows))
    problems.add_many(rows, lambda i: (
        int(lineno[rows[i]]), f"document '{doc[i].as_py()}' {verb} for topic '{qid[i].as_py()}' "
        f"(first on line {int(lineno[first[i]])})", hint, quote(lineno[rows[i]])))


def duplicate_rows(table: pa.Table, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose key repeats an earlier row: (row positions, line of the first occurrence)."""
    t = table.select(keys).append_column("_row", pa.array(np.arange(table.num_rows)))
    g = t.group_by(keys, use_threads=False).aggregate([("_row", "min"), ("_row", "count")])
    g = g.filter(pc.greater(g["_row_count"], 1))
    if g.num_rows == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    j = t.join(g.select(keys + ["_row_min"]), keys)
    j = j.filter(pc.not_equal(j["_row"], j["_row_min"])).sort_by("_row")
    return j["_row"].to_numpy(), j["_row_min"].to_numpy()
