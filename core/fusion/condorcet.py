"""Condorcet fusion (ranx.fusion.condorcet, weighted_condorcet), by pairwise majorities counted over whole
matrices.

ranx sorts each topic's candidates with a comparison: d goes before e when the runs (or their weights) that rank
d strictly above e are at least as many as the rest, a document a run did not retrieve counting as ranked below
all it did; the document in place i (0-based) of N scores N - i. When that majority relation is a strict order, the
document in place i is before exactly the N - 1 - i documents after it, so its score is 1 + the number of
documents it goes before: that count (Copeland's) is what Rankboard computes. When the majorities form a cycle (or
a pair is tied), ranx's sort meets an inconsistent comparison and its result depends on the order Python's sort
visits the candidates, which comes from a set of strings and changes with the process's hash seed; the count
gives every document of a cycle its number of wins instead, which does not depend on any order.

The pairs are compared per topic (a loop over topics and, for a topic of many candidates, over blocks of
`BLOCK` rows of the N x N matrix, so that memory stays at about BLOCK x N numbers); each comparison itself is one
numpy expression over a whole block.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from core.fusion.registry import Method, register
from core.fusion.votes import Votes

MONTAGUE = ("Montague and Aslam, Condorcet fusion for improved retrieval, CIKM 2002, "
            "https://doi.org/10.1145/584792.584881")
BLOCK = 512
UNRANKED = np.iinfo(np.int64).max


def copeland(v: Votes, weighted: bool) -> np.ndarray:
    """1 + the number of other candidates each fused document goes before (ties in the votes count for both);
    each run's vote weighs its weight (`weighted`) or 1."""
    s = v.stack
    weights = v.weights if weighted else np.ones(s.n_runs)
    out = np.zeros(len(v.start))
    place = v.by_run(s.pos, np.full((s.n_runs, len(v.start)), UNRANKED, np.int64))   # run x fused document
    bounds = np.flatnonzero(np.r_[True, v.topic[1:] != v.topic[:-1]]) if len(v.topic) else np.zeros(0, int)
    for a, b in zip(bounds, np.r_[bounds[1:], len(v.topic)]):          # one topic: fused documents a..b-1
        topic = place[:, a:b]
        for lo in range(0, b - a, BLOCK):
            rows = topic[:, lo:lo + BLOCK]
            ahead = np.zeros((rows.shape[1], b - a))                     # weight of the runs that put d above e
            behind = np.zeros((rows.shape[1], b - a))
            for r in range(s.n_runs):
                above = rows[r][:, None] < topic[r][None, :]
                ahead += np.where(above, weights[r], 0.0)
                behind += np.where(above, 0.0, weights[r])
            wins = ahead >= behind
            own = np.arange(rows.shape[1])
            wins[own, lo + own] = False                                  # a document does not beat itself
            out[a + lo:a + lo + rows.shape[1]] = 1 + wins.sum(axis=1)
    return out


register(Method("condorcet", partial(copeland, weighted=False),
                r"1 + |\{e \ne d : |\{r : p_r(d) < p_r(e)\}| \ge |\{r : p_r(d) \not< p_r(e)\}|\}|",
                "Condorcet fusion: documents ordered by pairwise majority (the number of documents each beats; "
                "see below for cycles).", MONTAGUE, ranx="condorcet"))
register(Method("w_condorcet", partial(copeland, weighted=True),
                r"1 + |\{e \ne d : \sum_{r : p_r(d) < p_r(e)} w_r \ge \sum_{r : p_r(d) \not< p_r(e)} w_r\}|",
                "Weighted Condorcet fusion.", MONTAGUE, weighted=True, aliases=("weighted_condorcet",),
                ranx="weighted_condorcet"))
