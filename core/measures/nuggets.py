"""nuggetizer's four scores of a RAG answer, per (run, topic), as its `calculate_nugget_scores` defines them
(castorini/nuggetizer, src/nuggetizer/core/metrics.py).

Each score is the credit of the nuggets it counts over their number: a `support` earns 1, a `partial_support` 0.5
in the two lenient scores and 0 in the two strict ones, anything else 0. A topic with no nugget of the kind counted
scores 0, and so does a topic a run has no assignments for (core.formats.nuggetmatch warns about it). The scores
are declared once, in NUGGET_SCORES: the computation, the command line, the store and the docs read that table.
These are not ranking measures: they are not in the measure registry, and are stored as imported measures.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.formats.nuggetmatch import MatchedNuggets, match_assignments
from core.formats.nuggets import read_assignments, read_nuggets


@dataclass(frozen=True)
class NuggetScore:
    name: str              # the measure's name in Rankboard
    nuggetizer: str        # the field of nuggetizer's NuggetMetrics
    vital_only: bool       # counts only the vital nuggets (else every nugget)
    partial: float         # what a partial_support earns
    description: str


NUGGET_SCORES = (
    NuggetScore("strict_vital", "strict_vital_score", True, 0.0,
                "the share of the topic's vital nuggets that the answer supports"),
    NuggetScore("strict_all", "strict_all_score", False, 0.0,
                "the share of all the topic's nuggets that the answer supports"),
    NuggetScore("vital", "vital_score", True, 0.5, "strict_vital, with a partial support counting 0.5"),
    NuggetScore("all", "all_score", False, 0.5, "strict_all, with a partial support counting 0.5"),
)
NUGGET_SOURCE = "nuggets"      # the source the scores are stored under, as imported measures


@dataclass
class NuggetResult:
    """`per_query`: (run, qid, measure, value) for every run and every topic of the nuggets file, runs in the order
    of the assignments file, topics in the nuggets file's, measures in NUGGET_SCORES's; `summary`: (run, measure,
    value), the mean over those topics."""
    per_query: pd.DataFrame
    summary: pd.DataFrame
    runs: list[str]
    topics: list[str]
    warnings: list[str] = field(default_factory=list)


def nugget_scores(matched: MatchedNuggets) -> NuggetResult:
    """The four scores of every (run, topic): a weighted count per (run, topic) over whole columns."""
    a, runs, topics = matched.assignments, matched.runs, matched.topics
    cells = len(runs) * len(topics)
    key = (pd.Categorical(a["run_id"], categories=runs).codes.astype(np.int64) * len(topics)
           + pd.Categorical(a["qid"], categories=topics).codes)
    assignment = a["assignment"].to_numpy()
    support = (assignment == "support").astype(np.float64)
    partial = (assignment == "partial_support").astype(np.float64)
    vital = (a["importance"].to_numpy() == "vital").astype(np.float64)
    values = {}
    for score in NUGGET_SCORES:
        counted = vital if score.vital_only else np.ones(len(a))
        credit = np.bincount(key, weights=(support + score.partial * partial) * counted, minlength=cells)
        total = np.bincount(key, weights=counted, minlength=cells)
        values[score.name] = np.divide(credit, total, out=np.zeros(cells), where=total > 0)
    names = [s.name for s in NUGGET_SCORES]
    per_query = pd.DataFrame({
        "run": np.repeat(np.array(runs, dtype=object), len(topics) * len(names)),
        "qid": np.tile(np.repeat(np.array(topics, dtype=object), len(names)), len(runs)),
        "measure": np.tile(np.array(names, dtype=object), cells),
        "value": np.column_stack([values[n] for n in names]).ravel()})
    summary = per_query.groupby(["run", "measure"], sort=False, as_index=False)["value"].mean()
    return NuggetResult(per_query, summary, list(runs), list(topics), list(matched.warnings))


def score_nugget_files(nuggets, assignments, *, nuggets_name: str | None = None,
                       assignments_name: str | None = None) -> tuple[MatchedNuggets, NuggetResult]:
    """Read a nuggets file and its assignments file (paths, bytes or uploads), check them against each other and
    score every run; raises UploadError."""
    matched = match_assignments(read_nuggets(nuggets, filename=nuggets_name),
                                read_assignments(assignments, filename=assignments_name))
    return matched, nugget_scores(matched)
