"""The assignments file checked against its nuggets file.

Each (run, topic) of the assignments must hold the nuggets the nuggets file gives that topic: the same texts with
the same importance, as many times each (in any order). A nugget is matched by (topic, text, importance, its
occurrence among equal ones), in one join, so each assignment row learns its nugget's place in the nuggets file.
A topic of the nuggets file that a run has no line for scores 0 there, with a warning.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.formats.nuggets import ParsedNuggets
from core.formats._text import Problems

_KEY = ["qid", "text", "importance", "occurrence"]


@dataclass
class MatchedNuggets:
    """`nuggets`: the nuggets file's rows (qid, nugget, text, importance, line); `assignments`: one row per run and
    nugget it was assigned (run_id, qid, nugget, importance, assignment); `runs` in the order of their first line;
    `topics` in the nuggets file's order; `lines`: the assignments file's lines (one per run and topic); `missing`:
    run -> the topics it has no line for."""
    nuggets: pd.DataFrame
    assignments: pd.DataFrame
    runs: list[str]
    topics: list[str]
    lines: int = 0
    missing: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def match_assignments(nuggets: ParsedNuggets, assignments: ParsedNuggets) -> MatchedNuggets:
    """Raises UploadError naming each (run, topic) whose nuggets differ from the nuggets file's, with its line."""
    n = nuggets.nuggets.assign(occurrence=nuggets.nuggets.groupby(_KEY[:3], sort=False).cumcount())
    a = assignments.nuggets
    a = a.assign(occurrence=a.groupby(["run_id"] + _KEY[:3], sort=False).cumcount())
    joined = a.merge(n[_KEY + ["nugget"]], on=_KEY, how="left", suffixes=("_given", ""))
    records = assignments.records.merge(nuggets.records[["qid", "n"]], on="qid", how="left", suffixes=("", "_file"))
    unmatched = joined.loc[joined["nugget"].isna(), ["run_id", "qid", "text", "importance"]]
    unmatched = unmatched.drop_duplicates(["run_id", "qid"])
    bad = records.merge(unmatched, on=["run_id", "qid"], how="left")
    wrong = bad["text"].notna().to_numpy() | (bad["n"] != bad["n_file"]).to_numpy()
    problems = Problems(assignments.file)
    rows = np.flatnonzero(wrong)
    problems.add_many(rows, lambda i: _differ(bad.iloc[rows[i]], nuggets.file))
    problems.raise_if_any()
    return _matched(nuggets, joined, records)


def _differ(row, nuggets_file: str):
    topic, run = row["qid"], row["run_id"]
    if pd.isna(row["n_file"]):
        return (int(row["line"]), f"topic '{topic}' (run '{run}') is not in {nuggets_file}",
                f"Load the nuggets file these assignments were made from, or remove the lines of topic '{topic}'",
                None)
    what = (f"'{row['text']}' ({row['importance']}) is not among them" if isinstance(row["text"], str) else
            f"this line has {int(row['n'])} nuggets, {nuggets_file} has {int(row['n_file'])}")
    return (int(row["line"]), f"the nuggets of topic '{topic}' (run '{run}') differ from those in {nuggets_file}: "
            + what, "Load the nuggets file these assignments were made from, or assign its nuggets again", None)


def _matched(nuggets: ParsedNuggets, joined: pd.DataFrame, records: pd.DataFrame) -> MatchedNuggets:
    runs = list(dict.fromkeys(records["run_id"]))
    topics = list(nuggets.records["qid"])
    have = pd.MultiIndex.from_frame(records[["run_id", "qid"]])
    every = pd.MultiIndex.from_product([runs, topics], names=["run_id", "qid"])
    lacking = every.difference(have, sort=False).to_frame(index=False)
    missing = {run: list(group["qid"]) for run, group in lacking.groupby("run_id", sort=False)}
    warnings = [f"run '{run}' has no assignments for {_topics(qids)}: {'it scores' if len(qids) == 1 else 'they score'}"
                " 0 there" for run, qids in missing.items()]
    table = joined[["run_id", "qid", "nugget", "importance", "assignment"]].astype({"nugget": np.int32})
    kept = nuggets.nuggets[["qid", "nugget", "text", "importance", "line"]]
    return MatchedNuggets(kept, table.reset_index(drop=True), runs, topics, len(records), missing, warnings)


def _topics(qids: list[str]) -> str:
    shown = ", ".join(qids[:20]) + (f" ...and {len(qids) - 20} more" if len(qids) > 20 else "")
    return f"topic {shown}" if len(qids) == 1 else f"{len(qids)} topics ({shown})"

