"""The layouts of per-query score files, read into columns of text: run, qid, measure, value, and each row's line.

Detected by content (core/formats/scores.py calls `columns`):
- Parquet, or CSV/TSV with a header naming qid, measure and value (and optionally run): a long table, as
  `pd.DataFrame(ir_measures.iter_calc(...))` or `run, qid, measure, value` write it;
- JSON lines with query_id, measure and value: ir_measures' `-o jsonl` output;
- JSON `{measure: {qid: value}}`: a ranx Run's per-query scores (`dict(run.scores)` after `ranx.evaluate`);
- whitespace-separated lines of three fields: trec_eval's `-q` output (`measure qid value`, with `runid` and
  `all` lines) or ir_measures' `-q` output (`qid measure value`, its summary lines of two fields).
A ranx Report (its JSON or its `to_dataframe()`) holds each run's means only, and is refused with how to export
the per-query scores instead.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from core.errors import Problem, UploadError
from core.formats._table import header_columns, match_header, parquet_table
from core.formats._text import PARQUET_MAGIC, Lines, Problems, split_lines, text_lines

COLUMNS = {
    "run": ("run", "run_id", "runid", "run_name", "system", "model", "tag", "name"),
    "qid": ("qid", "query_id", "queryid", "topic", "topic_id", "query"),
    "measure": ("measure", "metric"),
    "value": ("value", "score"),
}
TEXT_MEASURES = ("relstring",)    # trec_eval's measures whose values are text: left out
RANX_REPORT = "a ranx Report holds each run's mean of each measure, not its per-query values"
RANX_HINT = ("Export the per-query values instead: after ranx.evaluate(qrels, run, metrics), save "
             "json.dumps(dict(run.scores)) to a .json file")


@dataclass
class Read:
    """A file's rows as text columns (run is None when the file does not name its runs), their line numbers (-1:
    none, in a JSON object) and how to quote a line."""
    file: str
    fmt: str
    problems: Problems
    run: pa.Array | None
    qid: pa.Array
    measure: pa.Array
    value: pa.Array
    lineno: np.ndarray
    quote: Callable

    def problem(self, i: int, message: str, hint: str) -> Problem:
        """The problem of row `i`, at its line (quoted) when it has one."""
        n = self.lineno[i]
        return Problem(self.file, int(n) if n > 0 else None, message, hint, self.quote(n) if n > 0 else None,
                       self.problems.unit)


def columns(source, filename: str | None) -> Read:
    file, text, data = text_lines(source, filename)
    if data.startswith(PARQUET_MAGIC):
        return _parquet(data, file)
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return _json(data, file)
    lines = split_lines(text, file)
    first = lines.quote(int(lines.lineno[0]))
    sep = "," if "," in first else ("\t" if "\t" in first else None)
    fields = first.split(sep) if sep else first.split()
    named = match_header(fields, COLUMNS)
    if "model_names" in [n.strip().lower() for n in fields] and "qid" not in named:
        raise UploadError(Problem(file, None, RANX_REPORT, RANX_HINT))
    if {"qid", "measure", "value"} <= named.keys():
        return _csv(text, file, sep, named, lines)
    return _whitespace(lines, file)


def _csv(text, file: str, sep, named: dict[str, int], lines: Lines) -> Read:
    lines = split_lines(text, file, sep=sep) if sep else lines
    problems = Problems(file)
    col, lineno = header_columns(lines, named, problems, "line")
    return Read(file, "CSV table", problems, col.get("run"), col["qid"], col["measure"], col["value"], lineno,
                lambda n: lines.quote(int(n)))


def _parquet(data: bytes, file: str) -> Read:
    table = parquet_table(data, file)
    named = match_header(table.column_names, COLUMNS)
    if "model_names" in table.column_names and "qid" not in named:
        raise UploadError(Problem(file, None, RANX_REPORT, RANX_HINT))
    if not {"qid", "measure", "value"} <= named.keys():
        raise UploadError(Problem(file, None, f"the Parquet file has columns {table.column_names}, but per-query "
                                  "scores need qid, measure and value (and optionally run)",
                                  "Rename the columns and upload it again", unit="row"))
    col = {c: pc.cast(table.column(i), pa.large_string()).combine_chunks() for c, i in named.items()}
    return Read(file, "Parquet table", Problems(file, unit="row"), col.get("run"), col["qid"],
                col["measure"], col["value"], np.arange(1, table.num_rows + 1), lambda n: None)


def _json(data: bytes, file: str) -> Read:
    text = bytes(data).decode("utf-8")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return _jsonl(text, file)
    if isinstance(whole, dict) and {"query_id", "measure", "value"} <= whole.keys():
        return _jsonl(text, file)                            # ir_measures' jsonl of one line
    if isinstance(whole, dict) and "model_names" in whole and "metrics" in whole:
        raise UploadError(Problem(file, None, RANX_REPORT, RANX_HINT))
    if not isinstance(whole, dict) or not all(isinstance(v, dict) for v in whole.values()):
        raise UploadError(Problem(file, None, "the JSON is not a ranx Run's per-query scores "
                                  "({measure: {qid: value}})", RANX_HINT))
    rows = [(m, q, v) for m, per in whole.items() for q, v in per.items()]
    measure, qid, value = zip(*rows) if rows else ((), (), ())
    return Read(file, "ranx JSON", Problems(file), None, _text(qid), _text(measure), _text(value),
                np.full(len(rows), -1), lambda n: None)


def _jsonl(text: str, file: str) -> Read:
    """ir_measures' jsonl: read by Arrow's JSON reader in C; a file it refuses (or whose fields are not plain
    values) goes through `_jsonl_lines`, which names the lines."""
    try:
        table = pa_json.read_json(io.BytesIO(text.encode()))
        cols = {c: pc.cast(table.column(c), pa.large_string()).combine_chunks()
                for c in ("query_id", "measure", "value", "run_id") if c in table.column_names}
    except (pa.ArrowException, ValueError):
        return _jsonl_lines(text, file)
    needs = ("query_id", "measure", "value")
    if not set(needs) <= cols.keys() or cols["measure"].null_count or cols["value"].null_count:
        return _jsonl_lines(text, file)
    keep = pc.and_(pc.is_valid(cols["query_id"]), pc.not_equal(pc.fill_null(cols["query_id"], ""), "all"))
    lineno = np.flatnonzero(keep.to_numpy(zero_copy_only=False)) + 1     # one object a line, no blank line
    lines = text.splitlines()
    if len(lineno) == 0 or len(lines) != table.num_rows:
        return _jsonl_lines(text, file)
    run = cols["run_id"].filter(keep) if "run_id" in cols else None
    return Read(file, "ir_measures jsonl", Problems(file), run, cols["query_id"].filter(keep),
                cols["measure"].filter(keep), cols["value"].filter(keep), lineno, lambda n: lines[int(n) - 1])


def _jsonl_lines(text: str, file: str) -> Read:
    """The line-by-line reader of jsonl, which names every line it cannot read."""
    rows, problems, lines = [], Problems(file), text.splitlines()
    for n, line in enumerate(lines, 1):       # only for a file Arrow's reader refused
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.add(n, f"the line is not JSON ({exc.msg})", "Give one JSON object per line", line)
            continue
        if not isinstance(obj, dict) or not {"query_id", "measure", "value"} <= obj.keys():
            if isinstance(obj, dict) and {"measure", "value"} <= obj.keys():
                continue                                     # a summary line (no query_id)
            problems.add(n, "the object has no query_id, measure and value", "Write it with ir_measures -q -o jsonl",
                         line)
            continue
        if obj["query_id"] == "all":                         # ir_measures' summary, under -q
            continue
        rows.append((obj.get("run_id", obj.get("run")), obj["query_id"], obj["measure"], obj["value"], n))
    problems.raise_if_any()
    if not rows:
        raise UploadError(Problem(file, None, "the file has no per-query values (no query_id)",
                                  "Write it with ir_measures -q"))
    run, qid, measure, value, lineno = zip(*rows)
    return Read(file, "ir_measures jsonl", problems, None if all(r is None for r in run) else _text(run),
                _text(qid), _text(measure), _text(value), np.asarray(lineno), lambda n: lines[int(n) - 1])


def _text(values) -> pa.Array:
    return pa.array(["" if v is None else str(v) for v in values], pa.large_string())


def _whitespace(lines: Lines, file: str) -> Read:
    """trec_eval's `measure qid value` or ir_measures' `qid measure value`, told apart by their marks."""
    problems = Problems(file)
    three = lines.nfields == 3
    first, second = lines.column(0, three), lines.column(1, three)
    two = lines.nfields == 2       # ir_measures' summary lines (`measure value`) name a measure of its other lines
    if two.any():
        two[two] = pc.is_in(lines.column(0, two), value_set=pc.unique(second)).to_numpy(zero_copy_only=False)
    trec = _is_trec(first, second, bool(two.any()))
    bad = ~three if trec else ~(three | two)
    bl = lines.lineno[bad]
    problems.add_many(bl, lambda i: (int(bl[i]), f"found {lines.nfields[bad][i]} fields where per-query scores "
                                     "have 3 (trec_eval: measure qid value; ir_measures: qid measure value)",
                                     "Give each line three fields", lines.quote(int(bl[i]))))
    measure, qid = (first, second) if trec else (second, first)
    value = lines.column(2, three)
    lineno = lines.lineno[three]
    run = None
    if trec:
        is_runid = pc.equal(measure, "runid").to_numpy(zero_copy_only=False)
        names = pc.unique(value.filter(pa.array(is_runid))).to_pylist()
        if len(names) > 1:
            raise UploadError(Problem(file, int(lineno[is_runid][1]), f"the file holds the output of {len(names)} "
                                      f"runs ({', '.join(names[:5])}), but trec_eval's output holds one",
                                      "Give each run's output as a file of its own"))
        run = names[0] if names else None
    summary = pc.equal(qid, "all").to_numpy(zero_copy_only=False)    # trec_eval's summary (and runid) lines
    if trec:                                                          # and its one measure of text, not numbers
        summary |= pc.is_in(measure, value_set=pa.array(TEXT_MEASURES)).to_numpy(zero_copy_only=False)
    keep = pa.array(~summary)
    n = int((~summary).sum())
    runs = None if run is None else pa.array([run] * n, pa.large_string())
    return Read(file, "trec_eval -q" if trec else "ir_measures -q", problems, runs, qid.filter(keep),
                measure.filter(keep), value.filter(keep), lineno[~summary], lambda k: lines.quote(int(k)))


def _is_trec(first: pa.Array, second: pa.Array, has_summary_pairs: bool) -> bool:
    """trec_eval when a line says `runid` or `all` in its second field; ir_measures when it has two-field summary
    lines or `all` first; else the field of topic numbers (digits) is the qid, else the field of fewer distinct
    values is the measure (a tie reads as trec_eval)."""
    if pc.any(pc.equal(first, "runid")).as_py() or pc.any(pc.equal(second, "all")).as_py():
        return True
    if has_summary_pairs or pc.any(pc.equal(first, "all")).as_py():
        return False
    digits = [pc.all(pc.match_substring_regex(c, r"^[0-9]+$")).as_py() for c in (first, second)]
    if digits[0] != digits[1]:
        return bool(digits[1])
    return len(pc.unique(first)) <= len(pc.unique(second))
