"""The methods that learn from judged topics (ranx.fusion.posfuse, probfuse, segfuse, slidefuse, bayesfuse,
mapfuse): `train` reads the normalised runs' rankings of the training topics against their qrels, and the
method scores documents from what was learned.

A hit is a retrieved document judged relevant (grade >= 1) in the qrels. The training topics are the qrels'
topics that some run has (a run that lacks one holds an empty ranking of it, as everywhere in core.fusion); a
place is 0-based in the run's normalised ranking. Everything is counted with bincounts over whole columns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.fusion.norms import blocks
from core.fusion.registry import Method, Param, register
from core.fusion.stack import Stack
from core.fusion.votes import Votes

LILLIS10 = ("Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, Estimating probabilities for effective data "
            "fusion, SIGIR 2010, https://doi.org/10.1145/1835449.1835508")
LILLIS06 = ("Lillis, Toolan, Collier and Dunnion, ProbFuse: a probabilistic approach to data fusion, SIGIR 2006, "
            "https://doi.org/10.1145/1148170.1148197")
LILLIS08 = ("Lillis, Toolan, Collier and Dunnion, Extending Probabilistic Data Fusion Using Sliding Windows, "
            "ECIR 2008, https://doi.org/10.1007/978-3-540-78646-7_33")
SHOKOUHI = ("Shokouhi, Segmentation of Search Engine Results for Effective Data-Fusion, ECIR 2007, "
            "https://doi.org/10.1007/978-3-540-71496-5_19")
ASLAM = "Aslam and Montague, Models for Metasearch, SIGIR 2001, https://doi.org/10.1145/383952.384007"
SEGMENTS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])       # segfuse: 0, 5, 15, 35, ..., 5115
CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])                    # bayesfuse
MIN_ODD = float(np.log(0.001 / 0.999))


class Hits:
    """The training topics' rows of a normalised Stack: hit (0/1), run, place, the ranking's length, topic."""

    def __init__(self, s: Stack, qrels: pd.DataFrame):
        topics = pd.Index(s.topics)
        judged = topics.get_indexer(pd.unique(qrels["qid"].astype(str)))
        self.topics = np.sort(judged[judged >= 0])
        self.n = len(self.topics)                                        # training queries
        relevant = qrels[qrels["rel"] >= 1]
        t = topics.get_indexer(relevant["qid"].astype(str))
        d = pd.Index(s.docs).get_indexer(relevant["docno"].astype(str))
        keys = (t * len(s.docs) + d)[(t >= 0) & (d >= 0)]
        rows = np.isin(s.topic, self.topics)
        start, block = blocks(s)
        length = np.diff(np.r_[start, len(s.run)])[block]
        self.run, self.pos, self.length = s.run[rows], s.pos[rows], length[rows]
        self.topic = s.topic[rows]
        self.hit = np.isin(s.topic[rows] * len(s.docs) + s.doc[rows], keys).astype(float)
        self.n_runs = s.n_runs

    def by_place(self) -> list[np.ndarray]:
        """Per run: the share of training queries with a hit at each place, among those that reach it."""
        out = []
        for r in range(self.n_runs):
            mine = self.run == r
            size = int(self.pos[mine].max()) + 1 if mine.any() else 0
            hits = np.bincount(self.pos[mine], weights=self.hit[mine], minlength=size)
            reach = np.bincount(self.pos[mine], minlength=size)
            out.append(hits / np.maximum(reach, 1))
        return out

    def per_segment(self, bounds: np.ndarray) -> np.ndarray:
        """run x segment: the mean over training queries of hits in the segment / the segment's full size."""
        seg = np.searchsorted(bounds, self.pos, side="right") - 1
        inside = seg < len(bounds) - 1
        size = np.diff(bounds).astype(float)
        out = np.zeros((self.n_runs, len(bounds) - 1))
        np.add.at(out, (self.run[inside], seg[inside]), self.hit[inside] / size[seg[inside]])
        return out / max(self.n, 1)


def _probs(s, qrels, **_):
    return {"probs": Hits(s, qrels).by_place()}


def _place_values(v: Votes, tables: list[np.ndarray]) -> np.ndarray:
    """tables[run][place] for each row of the Stack (0 past a table's end)."""
    s = v.stack
    out = np.zeros(len(s.run))
    for r, table in enumerate(tables):
        mine = (s.run == r) & (s.pos < len(table))
        out[mine] = table[s.pos[mine]]
    return out


def _posfuse(v: Votes, model) -> np.ndarray:
    return v.total(_place_values(v, model["probs"]))


def _slidefuse(v: Votes, model, w: int) -> np.ndarray:
    s = v.stack
    start, block = blocks(s)
    n = np.diff(np.r_[start, len(s.run)])[block]
    a, b = np.maximum(s.pos - w, 0), np.minimum(s.pos + w, n - 1)
    out = np.zeros(len(s.run))
    for r, probs in enumerate(model["probs"]):
        mine = s.run == r
        c = np.r_[0.0, np.cumsum(probs)]
        hi, lo = np.minimum(b[mine] + 1, len(probs)), np.minimum(a[mine], len(probs))
        out[mine] = (c[hi] - c[lo]) / (b[mine] - a[mine] + 1)
    return v.total(out)


def _segfuse_train(s, qrels, **_):
    return {"segments": Hits(s, qrels).per_segment(SEGMENTS)}


def _segfuse(v: Votes, model) -> np.ndarray:
    s = v.stack
    seg = np.searchsorted(SEGMENTS, s.pos, side="right") - 1
    inside = seg < len(SEGMENTS) - 1
    prob = np.zeros(len(s.run))
    prob[inside] = model["segments"][s.run[inside], seg[inside]]
    return v.total(prob * (s.score + 1))


def _bayes_train(s, qrels, **_):
    precision = Hits(s, qrels).per_segment(CUTS)
    precision = np.where(precision == 0, 0.001, precision)
    negative = np.where(1 - precision == 0, 0.001, 1 - precision)
    return {"log_odds": np.repeat(np.log(precision / negative), np.diff(CUTS), axis=1)}


def _bayesfuse(v: Votes, model) -> np.ndarray:
    """Every run adds its log-odds of the document's place, or log(0.001/0.999) when it did not retrieve it (or
    placed it past 1000), in the runs' order, as ranx adds them."""
    s, odds = v.stack, model["log_odds"]
    inside = s.pos < odds.shape[1]
    values = np.where(inside, odds[s.run, np.minimum(s.pos, odds.shape[1] - 1)], MIN_ODD)
    table = v.by_run(values, np.full((s.n_runs, len(v.start)), MIN_ODD))
    total = np.zeros(len(v.start))
    for r in range(s.n_runs):
        total += table[r]
    return total


def _probfuse_train(s, qrels, n_segments: int, **_):
    h = Hits(s, qrels)
    size = np.ceil(h.length / n_segments).astype(np.int64)
    k = h.pos // size
    seg_len = np.minimum(size, h.length - k * size)
    out = np.zeros((s.n_runs, n_segments))
    np.add.at(out, (h.run, k), h.hit / seg_len)
    return {"segments": out / max(h.n, 1)}


def _probfuse(v: Votes, model, n_segments: int) -> np.ndarray:
    s = v.stack
    start, block = blocks(s)
    n = np.diff(np.r_[start, len(s.run)])[block]
    k = s.pos // np.ceil(n / n_segments).astype(np.int64)
    return v.total(model["segments"][s.run, k] / (k + 1))


def _mapfuse_train(s, qrels, **_):
    """Each run's MAP over the training topics (0 for a topic it lacks), in its normalised ranking."""
    from core.engine.relevance import evaluate_frames
    h = Hits(s, qrels)
    rows = np.isin(s.topic, h.topics)
    run = pd.DataFrame({"run": s.run[rows].astype(str), "qid": s.topics[s.topic[rows]],
                        "docno": s.docs[s.doc[rows]], "score": -s.pos[rows].astype(float)})
    per = evaluate_frames(qrels, run, ["AP"]).per_query
    sums = per.groupby("run")["value"].sum()
    return {"map": np.array([sums.get(str(r), 0.0) / max(h.n, 1) for r in range(s.n_runs)])}


def _mapfuse(v: Votes, model) -> np.ndarray:
    return v.total(model["map"][v.stack.run] / (v.stack.pos + 1.0))


W = Param("w", int, None, tuple(range(1, 101)), 0, 10**9, "the half-width of the sliding window")
SEGS = Param("n_segments", int, None, tuple(range(1, 101)), 1, 10**6, "the number of segments of each ranking")
P = r"\Pr_r(\text{rel} \mid p)"
register(Method("posfuse", _posfuse, r"\sum_{r \ni d} " + P, "PosFuse: the share of training topics with a "
                "relevant document at the place.", LILLIS10, train=_probs, ranx="posfuse"))
register(Method("probfuse", _probfuse, r"\sum_{r \ni d} \frac{P_r(k)}{k + 1}", "ProbFuse: each ranking cut into "
                "n_segments; P_r(k) the mean share of relevant documents in segment k (1-based k + 1) over the "
                "training topics.", LILLIS06, params=(SEGS,), train=_probfuse_train, learns_with=("n_segments",),
                ranx="probfuse"))
register(Method("segfuse", _segfuse, r"\sum_{r \ni d} P_r(k) \cdot (s_r(d) + 1)", "SegFuse: segments of sizes "
                "5, 10, 20, ..., 2560; P_r(k) the mean share of relevant documents in segment k.", SHOKOUHI,
                train=_segfuse_train, ranx="segfuse"))
register(Method("slidefuse", _slidefuse, r"\sum_{r \ni d} \operatorname{mean}_{|q - p| \le w} " +
                P.replace("p)", "q)"), "SlideFuse: PosFuse's probabilities averaged over a window of w places on "
                "each side.", LILLIS08, params=(W,), train=_probs, ranx="slidefuse"))
register(Method("bayesfuse", _bayesfuse, r"\sum_r \log \frac{\Pr_r(\text{rel} \mid p)}{\Pr_r(\text{nonrel} "
                r"\mid p)}", "BayesFuse: the log-odds of relevance of the place's segment (cut at 5, 10, 15, 20, 30, "
                "100, 200, 500, 1000), log(0.001/0.999) for a run that did not retrieve the document.", ASLAM,
                train=_bayes_train, ranx="bayesfuse"))
register(Method("mapfuse", _mapfuse, r"\sum_{r \ni d} \frac{\mathrm{MAP}_r}{p_r(d) + 1}", "MAPFuse: each run's "
                "MAP over the training topics, divided by the place.", LILLIS10, train=_mapfuse_train,
                ranx="mapfuse"))
