"""The engine's shared values, at the bottom of the stack: stage 1 produces `Rankings`, stage 2 (`core.engine.stage2`)
turns them into an `EvalResult`. Nothing here reads a file or a store."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.measures import Measure

__all__ = ["Rankings", "EvalResult", "merge"]


@dataclass
class Rankings:
    """Stage 1's output: one row per ranking of a qrels topic, and its judged retrieved documents."""
    groups: pd.DataFrame                         # run, qid: the rankings (topics of the qrels that the run has)
    num_ret: np.ndarray                          # documents retrieved per ranking
    g: np.ndarray                                # judged retrieved documents: ranking index,
    rank: np.ndarray                             #   canonical trec_eval rank,
    rel: np.ndarray                              #   grade (any, negative included)
    levels: pd.DataFrame                         # qid, rel, n: judged documents per grade >= 0 (qrels_levels.sql)
    runs: list[str]                              # every run asked for, in order
    topics: list[str]                            # the qrels topics, sorted
    warnings: list[str] = field(default_factory=list)   # what reading the run reported (e.g. several tags)
    key: np.ndarray | None = None                # per judged row: its qrels' key column, when the qrels are stacked
                                                 #   (a judge's set, a subtopic: stage1.Tables(key=...))

    @classmethod
    def empty(cls, levels: pd.DataFrame, runs: list[str], topics: list[str],
              groups: pd.DataFrame | None = None) -> "Rankings":
        """No judged retrieved document: no rankings at all, or `groups` (run, qid) that retrieved nothing (what -c
        evaluates for a topic a run lacks)."""
        if groups is None:
            groups = pd.DataFrame({"run": pd.Series([], dtype=object), "qid": pd.Series([], dtype=object)})
        none = np.zeros(0, dtype=np.int64)
        return cls(groups, np.zeros(len(groups), dtype=np.int64), none, none, none, levels, list(runs), list(topics))

    def named(self, name: str) -> "Rankings":
        """The same rankings with their single run called `name`."""
        self.groups["run"] = name
        self.runs = [name]
        return self


@dataclass
class EvalResult:
    per_query: pd.DataFrame                      # run, qid, measure, value
    summary: pd.DataFrame                        # run, measure, value
    missing_topics: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    text: pd.DataFrame | None = None             # run, qid, measure, text (string measures: relstring)
    num_q: dict[str, int] = field(default_factory=dict)
    measures: list[Measure] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    imported: dict[str, str] = field(default_factory=dict)    # imported measure -> its source (core/service/imported.py)


def merge(parts: list[EvalResult]) -> EvalResult:
    """Concatenate results of disjoint runs (same measures and options)."""
    if len(parts) == 1:
        return parts[0]
    return EvalResult(pd.concat([p.per_query for p in parts], ignore_index=True),
                      pd.concat([p.summary for p in parts], ignore_index=True),
                      {k: v for p in parts for k, v in p.missing_topics.items()},
                      [w for p in parts for w in p.warnings],
                      pd.concat([p.text for p in parts], ignore_index=True),
                      {k: v for p in parts for k, v in p.num_q.items()},
                      parts[0].measures, [r for p in parts for r in p.runs])
