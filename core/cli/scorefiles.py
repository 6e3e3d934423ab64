"""Per-query score files on the command line: `compare --scores FILE [FILE ...]` reads them (core.formats.read_scores)
into one per-query table, without a store and without qrels."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from core.errors import EvalError
from core.formats import read_scores


def per_query(paths) -> tuple[pd.DataFrame, list[str], dict[str, str]]:
    """(run, qid, measure, value) of every file, the run names in order, and the path each run came from. A run
    given by two files (the same name) is an error that names both."""
    frames, origin = [], {}
    for path in map(str, paths):
        parsed = read_scores(path, filename=Path(path).name)
        for run in parsed.runs:
            if run in origin:
                raise EvalError(f"Run '{run}' is in {Path(origin[run]).name} and in {parsed.file}. Give each run "
                                "in one file, or rename one of them (a trec_eval file is named by its runid line, else "
                                "by its file name).")
            origin[run] = path
        frames.append(parsed.frame)
    return pd.concat(frames, ignore_index=True), list(origin), origin
