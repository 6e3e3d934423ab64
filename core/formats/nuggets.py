"""RAG nugget files, as castorini's nuggetizer writes them (JSON Lines, one object per line).

- nuggets: `{"qid": ..., "nuggets": [{"text": ..., "importance": "vital" | "okay"}, ...]}`, one line per topic;
- assignments: `{"qid": ..., "run_id": ..., "nuggets": [{"text": ..., "importance": ..., "assignment":
  "support" | "partial_support" | "not_support"}, ...]}`, one line per (run, topic).

Other keys (`query`, `answer_text`, `response_length`, `trace`, ...) are ignored. nuggetizer also writes "failed"
for an importance or an assignment its model could not give; that label is read and scores as nuggetizer scores it.
The whole file is parsed by pyarrow's JSON reader; only a file that reader refuses is read line by line, to name
the line and what is wrong with it. `match_assignments` (nuggetmatch.py) checks the two files against each other.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from core.errors import Problem, UploadError
from core.formats._text import Problems, split_lines, text_lines

IMPORTANCE = ("vital", "okay", "failed")
ASSIGNMENT = ("support", "partial_support", "not_support", "failed")
# the labels a nugget's keys may take (None: any text that is not blank)
_LABELS = {"text": None, "importance": IMPORTANCE, "assignment": ASSIGNMENT}
_KEYS = {"nuggets": ("text", "importance"), "assignments": ("text", "importance", "assignment")}
_IDS = {"nuggets": ["qid"], "assignments": ["qid", "run_id"]}      # what a line is about


@dataclass
class ParsedNuggets:
    """One row per nugget: qid, nugget (its place in the topic's list, from 0), text, importance[, run_id,
    assignment], line; `records` has one row per line: qid[, run_id], line, n (its number of nuggets)."""
    nuggets: pd.DataFrame
    records: pd.DataFrame
    file: str
    warnings: list[str] = field(default_factory=list)


def read_nuggets(source, *, filename: str | None = None) -> ParsedNuggets:
    """A nuggets file (nuggetizer's `create` output); raises UploadError."""
    return _read(source, filename, "nuggets")


def read_assignments(source, *, filename: str | None = None) -> ParsedNuggets:
    """An assignments file (nuggetizer's `assign` output, one line per run and topic); raises UploadError."""
    return _read(source, filename, "assignments")


def _schema(kind: str) -> pa.Schema:
    nugget = pa.struct([(k, pa.string()) for k in _KEYS[kind]])
    return pa.schema([(k, pa.string()) for k in _IDS[kind]] + [("nuggets", pa.list_(nugget))])


def _read(source, filename, kind: str) -> ParsedNuggets:
    file, arr, _ = text_lines(source, filename)
    if arr is None:
        raise UploadError(Problem(file, None, f"a Parquet file is not a {kind} file",
                                  "Upload nuggetizer's JSON Lines output (one JSON object per line)"))
    lines = split_lines(arr, file, sep="\x00", max_splits=0)
    schema = _schema(kind)
    try:
        table = pj.read_json(pa.BufferReader(arr[0].as_buffer()), parse_options=pj.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore", newlines_in_values=False))
    except pa.ArrowException:          # bad JSON or a value of the wrong type: read line by line to say where
        table = _slow(arr[0].as_py(), file, kind, schema)
    if table.num_rows != len(lines.lineno):  # two objects on one line, or a JSON value that is not an object
        table = _slow(arr[0].as_py(), file, kind, schema)
    return _rows(table, lines, file, kind)


def _slow(text: str, file: str, kind: str, schema: pa.Schema) -> pa.Table:
    """Line-by-line JSON, only when pyarrow's reader refuses the file: every problem with its line."""
    problems, records = Problems(file), []
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            problems.add(n, f"this line is not valid JSON ({exc.msg})", "Write one JSON object per line", line)
            continue
        record = _record(obj, kind)
        if isinstance(record, tuple):
            problems.add(n, *record, line)
        else:
            records.append(record)
    problems.raise_if_any()
    return pa.Table.from_pylist(records, schema)


def _record(obj, kind: str):
    """obj with its ids as strings, or (message, hint) when its shape is wrong."""
    keys = _KEYS[kind]
    if not isinstance(obj, dict):
        return "this line is not a JSON object", "Write one {...} object per line"
    out = {}
    for key in _IDS[kind]:
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, type(None))):
            return f"'{key}' is {type(value).__name__}, not a string", f"Write the {key} as a JSON string"
        out[key] = None if value is None else str(value)
    nuggets = obj.get("nuggets")
    if nuggets is not None and not isinstance(nuggets, list):
        return "'nuggets' is not a list", "Write the nuggets as a list of {...} objects"
    for i, nugget in enumerate(nuggets or [], 1):
        bad = not isinstance(nugget, dict) or any(not isinstance(nugget.get(k), (str, type(None))) for k in keys)
        if bad:
            return (f"nugget {i} is not an object of strings {', '.join(keys)}",
                    "Write each nugget as {" + ", ".join(f'"{k}": "..."' for k in keys) + "}")
    out["nuggets"] = None if nuggets is None else [{k: n.get(k) for k in keys} for n in nuggets]
    return out


def _rows(table: pa.Table, lines, file: str, kind: str) -> ParsedNuggets:
    """The checks over whole columns: missing ids, missing nuggets, unknown labels, a topic twice."""
    problems, keys, ids, lineno = Problems(file), _KEYS[kind], _IDS[kind], lines.lineno
    table = table.combine_chunks()
    for key in ids + ["nuggets"]:
        at = lineno[np.flatnonzero(table[key].is_null().to_numpy(zero_copy_only=False))]
        problems.add_many(at, lambda i, key=key, at=at: (int(at[i]), f"this object has no '{key}'",
                                                         f"Give every line a '{key}'", lines.quote(int(at[i]))))
    problems.raise_if_any()
    flat = pc.list_flatten(table["nuggets"])
    parent = pc.list_parent_indices(table["nuggets"]).to_numpy()
    counts = pc.list_value_length(table["nuggets"]).to_numpy(zero_copy_only=False)
    place = np.arange(len(parent)) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = {k: pc.struct_field(flat, [i]).to_numpy(zero_copy_only=False) for i, k in enumerate(keys)}
    bad = np.column_stack([_bad(cols[key], _LABELS[key]) for key in keys])
    rows, which = np.nonzero(bad)                       # nugget by nugget, in the file's order
    problems.add_many(rows, lambda i: _label_problem(int(lineno[parent[rows[i]]]), int(place[rows[i]]) + 1,
                                                     keys[which[i]], cols[keys[which[i]]][rows[i]], lines))
    frame = pd.DataFrame({k: table[k].to_numpy(zero_copy_only=False) for k in ids})
    _duplicates(frame, ids, lineno, problems, kind)
    problems.raise_if_any()
    nuggets = pd.DataFrame({**{k: frame[k].to_numpy()[parent] for k in ids}, "nugget": place.astype(np.int32),
                            **cols, "line": lineno[parent]})
    return ParsedNuggets(nuggets, frame.assign(line=lineno, n=counts), file)


def _bad(values: np.ndarray, labels: tuple[str, ...] | None) -> np.ndarray:
    """A blank text, or a label not among `labels`."""
    values = pd.Series(values, dtype=object)
    return values.fillna("").str.strip().eq("").to_numpy() if labels is None else ~values.isin(labels).to_numpy()


def _label_problem(line: int, place: int, key: str, value, lines):
    labels = _LABELS[key]
    if labels is None:
        return line, f"nugget {place} has no text", "Give every nugget its text", lines.quote(line)
    what = "no " + key if value is None else f"{key} '{value}'"
    return (line, f"nugget {place} has {what}", f"Use one of {', '.join(labels)}", lines.quote(line))


def _duplicates(frame: pd.DataFrame, ids: list[str], lineno: np.ndarray, problems: Problems, kind: str) -> None:
    again = frame.duplicated(ids).to_numpy()
    first = lineno[~again][frame.groupby(ids, sort=False).ngroup().to_numpy()]    # the line of each row's first
    rows = np.flatnonzero(again)
    what = "topic '{}' appears twice" if kind == "nuggets" else "run '{}' has topic '{}' twice"
    hint = ("Keep one line per topic" if kind == "nuggets" else "Keep one line per run and topic")
    problems.add_many(rows, lambda i: (int(lineno[rows[i]]), what.format(
        *[frame[k].iat[rows[i]] for k in reversed(ids)]) + f" (first on line {int(first[rows[i]])})", hint, None))
