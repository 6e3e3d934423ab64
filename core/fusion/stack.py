"""Runs stacked in one long table of whole columns: every row is (run, topic, doc, score), with its place in its
run's ranking of the topic.

Topics and documents are integer codes into sorted arrays of their names (`topics`, `docs`), so that every step
after this one sorts and groups numbers, never strings; a larger doc code is a larger docno, so trec_eval's order
(score descending, docno descending) is a sort by (-score, -doc). A run that lacks a topic holds an empty ranking
of it (ranx refuses runs whose topics differ; only borda's points for unranked documents see the difference).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

__all__ = ["Stack", "stack"]


@dataclass(frozen=True)
class Stack:
    run: np.ndarray       # int64: the run's index in the list given
    topic: np.ndarray     # int64: code into `topics`
    doc: np.ndarray       # int64: code into `docs`
    score: np.ndarray     # float64
    pos: np.ndarray       # int64: 0-based place in the run's ranking of the topic
    topics: np.ndarray    # the qids, sorted
    docs: np.ndarray      # the docnos, sorted
    n_runs: int

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def ranked(self, score: np.ndarray, *, tie: np.ndarray | None = None) -> "Stack":
        """The same rows with new scores, in the runs' new rankings: sorted by (run, topic, score descending,
        then `tie` ascending (the old place, so that an order-preserving normalisation keeps every ranking as
        it was, as ranx does), then docno descending)."""
        tie = self.pos if tie is None else tie
        order = np.lexsort((-self.doc, tie, -score, self.topic, self.run))
        run, topic = self.run[order], self.topic[order]
        return replace(self, run=run, topic=topic, doc=self.doc[order], score=score[order],
                       pos=places(run * self.n_topics + topic))


def places(group: np.ndarray) -> np.ndarray:
    """0-based place of each row inside its block of equal `group` values (rows already grouped)."""
    n = len(group)
    if n == 0:
        return np.zeros(0, np.int64)
    start = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    first = np.repeat(start, np.diff(np.r_[start, n]))
    return np.arange(n, dtype=np.int64) - first


def stack(runs: list[pd.DataFrame]) -> Stack:
    """Runs (one or more) as frames of (qid, docno, score), a document at most once per topic of a run -> one
    Stack, each run ranked in trec_eval's order."""
    sizes = [len(r) for r in runs]
    run = np.repeat(np.arange(len(runs), dtype=np.int64), sizes)
    qid = np.concatenate([r["qid"].astype(str).to_numpy(object) for r in runs])
    docno = np.concatenate([r["docno"].astype(str).to_numpy(object) for r in runs])
    score = np.concatenate([r["score"].to_numpy(np.float64) for r in runs])
    topic, topics = pd.factorize(qid, sort=True)
    doc, docs = pd.factorize(docno, sort=True)
    raw = Stack(run, topic.astype(np.int64), doc.astype(np.int64), score, np.zeros(len(run), np.int64),
                np.asarray(topics, object), np.asarray(docs, object), len(runs))
    return raw.ranked(score, tie=np.zeros(len(run), np.int64))
