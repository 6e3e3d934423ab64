"""The columns the diversity family (core/measures/diversity.py) reads, and ndeval's greedy ideal ranking.

`SubtopicData` holds, for every evaluated (run, qid) "group" g, the judged retrieved (document, subtopic) pairs as
whole numpy columns sorted by (g, rank, subtopic): the rank in pyndeval's order (score descending, then docno
ascending), the subtopic as a per-topic index in the order pyndeval numbers subtopics (first appearance in the
qrels) and the grade. Per topic t it holds the qrels' (document, subtopic, grade) rows, the documents numbered
in docno-descending order. Unjudged retrieved documents are never materialised: they only take up a rank.
`SubtopicCtx` is that data at one relevance level (grade >= level is relevant, as pyndeval binarises).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

DEPTH = 20                   # ndeval's DEPTH: the cutoffs it computes (pyndeval refuses deeper ones)
BLOCK_CELLS = 1 << 22        # cells of one (topics x documents x subtopics) block of the greedy ideal ranking


class SubtopicData:
    def __init__(self, topic_of_group, n_topics, g, rank, sub, grade, q_topic, q_doc, q_sub, q_grade, options):
        self.topic_of_group = np.asarray(topic_of_group, dtype=np.int64)
        self.n_topics = int(n_topics)
        self.g, self.rank = np.asarray(g, dtype=np.int64), np.asarray(rank, dtype=np.int64)
        self.sub, self.grade = np.asarray(sub, dtype=np.int64), np.asarray(grade, dtype=np.int64)
        self.q_topic, self.q_doc = np.asarray(q_topic, dtype=np.int64), np.asarray(q_doc, dtype=np.int64)
        self.q_sub, self.q_grade = np.asarray(q_sub, dtype=np.int64), np.asarray(q_grade, dtype=np.int64)
        self.width = int(max(self.q_sub.max(initial=-1), self.sub.max(initial=-1)) + 1)   # subtopic slots
        self.options = options
        self._ctx: dict[int, SubtopicCtx] = {}
        self._judged: SubtopicData | None = None

    @property
    def n_groups(self) -> int:
        return len(self.topic_of_group)

    def judged_only(self) -> "SubtopicData":
        """The rankings without their unjudged documents, ranks closed up (ir_measures' judged_only=True keeps the
        documents that have any line in the subtopic qrels)."""
        if self._judged is None:
            new_doc = np.r_[True, (self.g[1:] != self.g[:-1]) | (self.rank[1:] != self.rank[:-1])] if len(self.g) \
                else np.zeros(0, bool)
            ordinal = np.cumsum(new_doc) - 1                       # the row's document, counted over all groups
            first_of_group = np.r_[True, self.g[1:] != self.g[:-1]] if len(self.g) else np.zeros(0, bool)
            start = np.maximum.accumulate(np.where(first_of_group, ordinal, 0))
            self._judged = SubtopicData(self.topic_of_group, self.n_topics, self.g, ordinal - start + 1, self.sub,
                                        self.grade, self.q_topic, self.q_doc, self.q_sub, self.q_grade, self.options)
        return self._judged

    def ctx(self, level: int) -> "SubtopicCtx":
        if level not in self._ctx:
            self._ctx[level] = SubtopicCtx(self, int(level))
        return self._ctx[level]


class SubtopicCtx:
    """The data at relevance level L: only relevant (document, subtopic) pairs matter to every ndeval measure."""

    def __init__(self, data: SubtopicData, L: int):
        self.d, self.L = data, L
        self.Q, self.W = data.n_groups, max(data.width, 1)
        keep = data.grade >= L
        self.g, self.rank, self.sub = data.g[keep], data.rank[keep], data.sub[keep]
        qk = data.q_grade >= L
        self.q_topic, self.q_doc, self.q_sub = data.q_topic[qk], data.q_doc[qk], data.q_sub[qk]
        self._ideal: dict[float, np.ndarray] = {}

    @cached_property
    def nrel_sub(self) -> np.ndarray:
        """(topics x subtopic slots): relevant documents per subtopic (ndeval's nrelSub)."""
        key = self.q_topic * self.W + self.q_sub
        return np.bincount(key, minlength=self.d.n_topics * self.W).reshape(self.d.n_topics, self.W)

    @cached_property
    def S(self) -> np.ndarray:
        """Per group: subtopics with at least one relevant document (ndeval's actualSubtopics)."""
        return (self.nrel_sub > 0).sum(axis=1)[self.d.topic_of_group].astype(np.float64)

    @cached_property
    def seen(self) -> np.ndarray:
        """Per relevant row: how many higher-ranked documents of its group were relevant to its subtopic."""
        order = np.lexsort((self.rank, self.sub, self.g))
        key = (self.g * self.W + self.sub)[order]
        first = np.r_[True, key[1:] != key[:-1]] if len(key) else np.zeros(0, bool)
        pos = np.arange(len(key))
        out = np.empty(len(key), dtype=np.int64)
        out[order] = pos - np.maximum.accumulate(np.where(first, pos, 0))
        return out

    def gains(self, alpha: float) -> np.ndarray:
        """(1 - alpha)^seen per relevant row, by repeated multiplication as ndeval does (np.cumprod is sequential)."""
        return powers(1.0 - alpha, int(self.seen.max(initial=0)) + 1)[self.seen]

    def per_rank(self, alpha: float) -> np.ndarray:
        """(groups x DEPTH): the gain at each rank, summed over subtopics in ndeval's order (bincount adds the
        rows in order, and they are sorted by (group, rank, subtopic))."""
        top = self.rank <= DEPTH
        key = self.g[top] * DEPTH + self.rank[top] - 1
        return np.bincount(key, weights=self.gains(alpha)[top], minlength=self.Q * DEPTH).reshape(self.Q, DEPTH)

    def ideal(self, alpha: float, steps: int) -> np.ndarray:
        """(topics x steps): the gain at each rank of ndeval's greedy ideal ranking (cached per alpha)."""
        have = self._ideal.get(alpha)
        if have is None or have.shape[1] < steps:
            have = greedy_ideal(self.q_topic, self.q_doc, self.q_sub, self.d.n_topics, self.W, alpha, steps)
            self._ideal[alpha] = have
        return have[:, :steps]

    @cached_property
    def max_relevant_docs(self) -> int:
        docs = np.unique(self.q_topic * (int(self.q_doc.max(initial=0)) + 1) + self.q_doc)
        return int(np.bincount(docs // (int(self.q_doc.max(initial=0)) + 1)).max(initial=0)) if len(docs) else 0


def powers(base: float, n: int) -> np.ndarray:
    """[1, base, base*base, ...] (n values), each the previous one times base, as ndeval's running products."""
    return np.cumprod(np.r_[1.0, np.full(max(n - 1, 0), base)])


def greedy_ideal(q_topic, q_doc, q_sub, n_topics: int, W: int, alpha: float, steps: int) -> np.ndarray:
    """ndeval's idealResult: at each rank, the unplaced document whose subtopics' current gains sum highest (ties:
    the larger docno), then its subtopics' gains times (1 - alpha). Vectorised over topics, a block at a time:
    each of the `steps` ranks is one pass over a dense (topics x relevant documents x subtopics) block; the loop
    over subtopics adds the gains in ndeval's order, so exact ties are decided as ndeval decides them. Documents
    are numbered in docno-descending order, so argmax's first maximum is ndeval's choice."""
    out = np.zeros((n_topics, steps))
    if not len(q_topic) or steps == 0:
        return out
    pairs = np.unique(q_topic * (int(q_doc.max()) + 1) + q_doc)              # relevant documents, per topic in order
    t_of = pairs // (int(q_doc.max()) + 1)
    first = np.searchsorted(t_of, np.arange(n_topics))
    doc_rank = np.searchsorted(pairs, q_topic * (int(q_doc.max()) + 1) + q_doc) - first[q_topic]
    n_docs = np.bincount(t_of, minlength=n_topics)
    D = int(n_docs.max())
    per_block = max(1, BLOCK_CELLS // max(D * W, 1))
    for lo in range(0, n_topics, per_block):
        hi = min(lo + per_block, n_topics)
        rows = (q_topic >= lo) & (q_topic < hi)
        M = np.zeros((hi - lo, D, W), dtype=bool)
        M[q_topic[rows] - lo, doc_rank[rows], q_sub[rows]] = True
        out[lo:hi] = _greedy_block(M, n_docs[lo:hi], alpha, steps)
    return out


def _greedy_block(M: np.ndarray, n_docs: np.ndarray, alpha: float, steps: int) -> np.ndarray:
    T, D, W = M.shape
    gain = np.ones((T, W))
    placed = np.arange(D)[None, :] >= n_docs[:, None]             # padding counts as placed
    rows = np.arange(T)
    out = np.zeros((T, steps))
    for i in range(min(steps, D)):
        score = np.zeros((T, D))
        for s in range(W):                                        # ndeval: score += subtopicGain[j], j ascending
            score += np.where(M[:, :, s], gain[:, s:s + 1], 0.0)
        score[placed] = -1.0
        best = score.argmax(axis=1)
        value = score[rows, best]
        take = value > 0.0
        out[:, i] = np.where(take, value, 0.0)
        placed[rows[take], best[take]] = True
        hit = M[rows, best] & take[:, None]
        gain = np.where(hit, gain * (1.0 - alpha), gain)
        if not take.any():
            break
    return out
