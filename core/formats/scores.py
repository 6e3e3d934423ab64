"""Per-query scores from any tool: `read_scores` reads a file of (run, qid, measure, value) rows in one of the
layouts of core/formats/_scores_read.py, detected by content, and checks it as a whole:

- every value is a number;
- a run gives each topic once per measure;
- a run gives each of its measures for all of its topics (the topics it gives any measure for).

Every problem is an UploadError naming the file and the line (`read_scores` never writes anywhere).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from core.errors import MAX_PROBLEMS, Problem, UploadError
from core.formats._checks import bad_values, to_number
from core.formats._scores_read import Read, columns
from core.formats._text import FLOAT_RE, Problems, source_name

__all__ = ["ParsedScores", "read_scores", "scores_from_frame", "scores_name"]


@dataclass(frozen=True)
class ParsedScores:
    """`frame`: run, qid, measure, value (float64), one row per (run, qid, measure), in the file's order;
    `fmt`: the layout read (e.g. "trec_eval -q")."""
    file: str
    fmt: str
    frame: pd.DataFrame

    @property
    def runs(self) -> list[str]:
        return list(dict.fromkeys(self.frame["run"]))

    @property
    def measures(self) -> list[str]:
        return list(dict.fromkeys(self.frame["measure"]))


def scores_name(file: str) -> str:
    """The run name of a file that names none: its file name without the extensions (`bm25.q.txt.gz` -> `bm25.q`)."""
    return re.sub(r"(\.(txt|tsv|csv|json|jsonl|parquet|out|eval|trec))?(\.gz)?$", "", Path(file).name) or file


def read_scores(source, *, filename: str | None = None, name: str | None = None) -> ParsedScores:
    """Read and check a per-query scores file. `name`: the run's name, for a file of one run (a file that names
    no run is named by `name`, else by its file name)."""
    read = columns(source, source_name(source, filename))
    read.problems.raise_if_any()
    return _checked(read, _values(read), name)


def scores_from_frame(frame: pd.DataFrame, *, file: str = "scores", fmt: str = "table",
                      name: str | None = None) -> ParsedScores:
    """Per-query scores computed in Python (a DataFrame of run, qid, measure, value; run optional, then `name`)
    checked as a file is, its rows numbered from 1 in the messages."""
    def text(col: str) -> pa.Array:
        return pa.array(frame[col].to_numpy(), from_pandas=False).cast(pa.large_string())   # NaN as 'nan'
    read = Read(file, fmt, Problems(file, unit="row"), text("run") if "run" in frame else None, text("qid"),
                text("measure"), text("value"), np.arange(1, len(frame) + 1), lambda n: None)
    values = pd.to_numeric(frame["value"], errors="coerce").to_numpy(np.float64)
    finite = np.isfinite(values)
    return _checked(read, values if finite.all() else _values(read, ~finite), name)


def _checked(read: Read, values: np.ndarray, name: str | None) -> ParsedScores:
    file = read.file
    run = _runs(read, name)
    frame = pd.DataFrame({"run": run, "qid": read.qid.to_numpy(zero_copy_only=False).astype(str),
                          "measure": read.measure.to_numpy(zero_copy_only=False).astype(str), "value": values})
    if not len(frame):
        raise UploadError(Problem(file, None, "the file has no per-query values (only summary lines)",
                                  "Write the per-query values: trec_eval -q, or ir_measures -q"))
    _twice(frame, read)
    _incomplete(frame, file)
    return ParsedScores(file, read.fmt, frame)


def _values(read: Read, bad: np.ndarray | None = None) -> np.ndarray:
    """The values as numbers; `bad`: the rows that are not (default: the text that is no decimal number)."""
    bad = bad_values(read.value, FLOAT_RE) if bad is None else bad
    if bad.any():
        idx = np.flatnonzero(bad)
        problems = [read.problem(i, f"value '{read.value[int(i)].as_py()}' of measure "
                                 f"'{read.measure[int(i)].as_py()}' for topic '{read.qid[int(i)].as_py()}' is not "
                                 "a number", "Give a number such as 0.25") for i in idx[:MAX_PROBLEMS]]
        raise UploadError(problems, total=len(idx))
    values = to_number(read.value, pa.float64()).to_numpy(zero_copy_only=False)
    finite = np.isfinite(values)
    return values if finite.all() else _values(read, ~finite)       # 1e999 reads as infinity: not a score


def _runs(read: Read, name: str | None) -> np.ndarray:
    n = len(read.qid)
    if read.run is None:
        return np.full(n, name or scores_name(read.file), dtype=object)
    run = read.run.to_numpy(zero_copy_only=False).astype(object)
    if name:
        names = list(dict.fromkeys(run))
        if len(names) > 1:
            raise UploadError(Problem(read.file, None, f"the file holds {len(names)} runs ({', '.join(names[:5])}), "
                                      f"so it cannot be loaded under the one name '{name}'",
                                      "Leave the name out: each run keeps the name the file gives it"))
        return np.full(n, name, dtype=object)
    empty = run == ""
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise UploadError(read.problem(i, "the run name is empty", "Give every row a run name"))
    return run


def _twice(frame: pd.DataFrame, read: Read) -> None:
    """A (run, qid, measure) given twice: each repeat is reported at its line, with the line of the first."""
    keys = ["run", "qid", "measure"]
    repeat = frame.duplicated(keys).to_numpy()
    if not repeat.any():
        return
    first = read.lineno[~repeat][frame.groupby(keys, sort=False).ngroup().to_numpy()]   # each row's first line
    again = np.flatnonzero(repeat)
    problems = []
    for i in again[:MAX_PROBLEMS]:
        r, q, m, before = frame.iat[i, 0], frame.iat[i, 1], frame.iat[i, 2], first[i]
        where = f" (first on {read.problems.unit} {before})" if before > 0 else ""
        problems.append(read.problem(i, f"run '{r}' has topic '{q}' twice for measure '{m}'{where}",
                                     "Keep one value per run, topic and measure"))
    raise UploadError(problems, total=len(again))


def _incomplete(frame: pd.DataFrame, file: str) -> None:
    """A measure given for some of a run's topics but not all: which topics it lacks."""
    topics = frame.groupby("run", sort=False)["qid"].nunique()
    per = frame.groupby(["run", "measure"], sort=False)["qid"].size()
    short = per[per.to_numpy() < topics.reindex(per.index.get_level_values(0)).to_numpy()]
    if not len(short):
        return
    problems = []
    for (run, measure), n in short.iloc[:MAX_PROBLEMS].items():
        have = set(frame.loc[(frame["run"] == run) & (frame["measure"] == measure), "qid"])
        lack = [q for q in dict.fromkeys(frame.loc[frame["run"] == run, "qid"]) if q not in have]
        shown = ", ".join(lack[:10]) + (f" and {len(lack) - 10} more" if len(lack) > 10 else "")
        problems.append(Problem(file, None, f"run '{run}' gives measure '{measure}' for {n} of its "
                                f"{topics[run]} topics; it lacks {shown}",
                                "Give the measure for every topic of the run, or leave it out"))
    raise UploadError(problems, total=len(short))
