"""Score normalisations, ranx's seven plus `none`, each over whole columns of a Stack.

Every normalisation works on one run's ranking of one topic (a block of rows of the Stack) and follows
ranx.normalization: the same floors for a zero denominator (1e-9), the same population standard deviation. After
normalising, the runs are ranked again by the new scores; an order-preserving normalisation keeps every ranking
as it was, and min-max-inverted reverses it (ranx sorts its runs again after inverting). borda also gives every
run a score for each document another run retrieved for the topic and it did not.
"""
from __future__ import annotations

import numpy as np

from core.fusion.registry import Norm, register_norm
from core.fusion.stack import Stack

__all__ = ["FLOOR", "blocks", "candidates"]

FLOOR = 1e-9        # ranx's floor for a denominator


def blocks(s: Stack) -> tuple[np.ndarray, np.ndarray]:
    """(start, block) of the Stack's (run, topic) blocks: the first row of each, and each row's block number."""
    group = s.run * s.n_topics + s.topic
    new = np.r_[True, group[1:] != group[:-1]] if len(group) else np.zeros(0, bool)
    return np.flatnonzero(new), np.cumsum(new) - 1


def _stats(s: Stack):
    start, block = blocks(s)
    if len(start) == 0:
        z = np.zeros(0)
        return z, z, z, z, block
    count = np.diff(np.r_[start, len(s.score)]).astype(float)
    total = np.add.reduceat(s.score, start)
    return (np.minimum.reduceat(s.score, start), np.maximum.reduceat(s.score, start), total, count, block)


def _min_max(s: Stack) -> Stack:
    low, high, _, _, block = _stats(s)
    return s.ranked((s.score - low[block]) / np.maximum(high - low, FLOOR)[block])


def _min_max_inverted(s: Stack) -> Stack:
    low, high, _, _, block = _stats(s)
    return s.ranked((high[block] - s.score) / np.maximum(high - low, FLOOR)[block])


def _max(s: Stack) -> Stack:
    _, high, _, _, block = _stats(s)
    return s.ranked(s.score / np.maximum(high, FLOOR)[block])


def _sum(s: Stack) -> Stack:
    low, _, total, count, block = _stats(s)
    return s.ranked((s.score - low[block]) / np.maximum(total - low * count, FLOOR)[block])


def _zmuv(s: Stack) -> Stack:
    _, _, total, count, block = _stats(s)
    start, _ = blocks(s)
    mean = total / np.maximum(count, 1)
    dev = s.score - mean[block]
    std = np.sqrt(np.add.reduceat(dev * dev, start) / np.maximum(count, 1)) if len(start) else mean
    return s.ranked(dev / np.maximum(std, FLOOR)[block])


def _rank(s: Stack) -> Stack:
    _, _, _, count, block = _stats(s)
    return s.ranked(1 - s.pos / count[block])


def candidates(s: Stack) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(topic, doc, n): every document some run retrieved for a topic, once, and per topic their number."""
    key = np.unique(s.topic * len(s.docs) + s.doc)
    topic, doc = key // max(len(s.docs), 1), key % max(len(s.docs), 1)
    return topic, doc, np.bincount(topic, minlength=s.n_topics)


def _borda(s: Stack) -> Stack:
    """ranx's borda_norm: 1 - p/N for a retrieved document (N the topic's candidates), 0.5 - (n - 1)/(2N) for a
    candidate the run did not retrieve (n the run's number of documents for the topic)."""
    c_topic, c_doc, n_cand = candidates(s)
    n_docs = max(len(s.docs), 1)
    runs = np.repeat(np.arange(s.n_runs), len(c_topic))
    topic, doc = np.tile(c_topic, s.n_runs), np.tile(c_doc, s.n_runs)
    have = (s.run * s.n_topics + s.topic) * n_docs + s.doc
    want = (runs * s.n_topics + topic) * n_docs + doc
    missing = ~np.isin(want, have)
    retrieved = np.bincount(s.run * s.n_topics + s.topic, minlength=s.n_runs * s.n_topics)
    n = retrieved[(runs * s.n_topics + topic)[missing]]
    big_n = n_cand[topic[missing]].astype(float)
    added = 0.5 - (n - 1) / (2 * big_n)
    present = 1 - s.pos / n_cand[s.topic]
    whole = Stack(np.r_[s.run, runs[missing]], np.r_[s.topic, topic[missing]], np.r_[s.doc, doc[missing]],
                  np.r_[present, added], np.r_[s.pos, np.zeros(missing.sum(), np.int64)], s.topics, s.docs, s.n_runs)
    tie = np.r_[s.pos, np.full(missing.sum(), np.iinfo(np.int64).max)]
    return whole.ranked(whole.score, tie=tie)


def _none(s: Stack) -> Stack:
    return s


register_norm(Norm("min-max", _min_max, r"\frac{s - \min s}{\max(\max s - \min s,\ 10^{-9})}",
                   "Scores mapped to [0, 1] per run and topic.", aliases=("min_max",)))
register_norm(Norm("min-max-inverted", _min_max_inverted, r"\frac{\max s - s}{\max(\max s - \min s,\ 10^{-9})}",
                   "min-max for runs whose lower scores are better (distances); the ranking is reversed.",
                   aliases=("min_max_inverted",)))
register_norm(Norm("max", _max, r"\frac{s}{\max(\max s,\ 10^{-9})}", "Scores divided by the topic's best score."))
register_norm(Norm("sum", _sum, r"\frac{s - \min s}{\max(\sum s - n \min s,\ 10^{-9})}",
                   "Scores shifted to start at 0 and divided by their sum."))
register_norm(Norm("zmuv", _zmuv, r"\frac{s - \mu}{\max(\sigma,\ 10^{-9})}",
                   "Zero mean, unit variance (population standard deviation) per run and topic."))
register_norm(Norm("rank", _rank, r"1 - \frac{p}{n}", "The score is the place p (0-based) among the n retrieved."))
register_norm(Norm("borda", _borda, r"1 - \frac{p}{N};\ \ \tfrac12 - \frac{n - 1}{2N} \text{ if not retrieved}",
                   "Borda points over the topic's N candidates (the documents any run retrieved); a document the "
                   "run did not retrieve gets the mean of the points left."))
register_norm(Norm("none", _none, "s", "The scores as they are."))
