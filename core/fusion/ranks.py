"""The methods that read places, not scores (ranx.fusion.rrf, rbc, isr, log_isr, logn_isr, bordafuse,
weighted_bordafuse). A place p_r(d) is 0-based, in the run's ranking after normalisation. A document a run did
not retrieve gets nothing from it, except in Borda, where it shares the points the run left unused."""
from __future__ import annotations

from functools import partial

import numpy as np

from core.fusion.norms import blocks
from core.fusion.registry import Method, Param, register, unit_grid
from core.fusion.votes import Votes

CORMACK = ("Cormack, Clarke and Buettcher, Reciprocal rank fusion outperforms Condorcet and individual rank "
           "learning methods, SIGIR 2009, https://doi.org/10.1145/1571941.1572114")
BAILEY = ("Bailey, Moffat, Scholer and Thomas, Retrieval Consistency in the Presence of Query Variations, "
          "SIGIR 2017, https://doi.org/10.1145/3077136.3080839")
MOURAO = ("Mourao, Martins and Magalhaes, Multimodal medical information retrieval with unsupervised rank "
          "fusion, Computerized Medical Imaging and Graphics 39 (2015), "
          "https://doi.org/10.1016/j.compmedimag.2014.05.006")
ASLAM = "Aslam and Montague, Models for Metasearch, SIGIR 2001, https://doi.org/10.1145/383952.384007"

K = Param("k", int, 60, tuple(range(10, 101, 10)), 0, 10**9, "the constant added to the rank")
PHI = Param("phi", float, None, unit_grid(), 0.0, 1.0, "the persistence of the user")
SIGMA = Param("sigma", float, 0.01, unit_grid(), 0.0, 1.0, "the constant added to the number of runs")


def _rrf(v: Votes, k: int) -> np.ndarray:
    return v.total(1.0 / (k + v.stack.pos + 1))


def _rbc(v: Votes, phi: float) -> np.ndarray:
    return v.total((1 - phi) * phi ** v.stack.pos.astype(float))


def _inverse_square(v: Votes) -> np.ndarray:
    return v.total(1.0 / (v.stack.pos + 1.0) ** 2)


def _isr(v: Votes) -> np.ndarray:
    return _inverse_square(v) * v.count


def _log_isr(v: Votes) -> np.ndarray:
    return _inverse_square(v) * np.log(v.count)


def _logn_isr(v: Votes, sigma: float) -> np.ndarray:
    return _inverse_square(v) * np.log(v.count + sigma)


def borda_points(v: Votes, weighted: bool) -> np.ndarray:
    """sum_r w_r points_r(d) (w_r the run's weight when `weighted`, else 1): N - p for a retrieved document (N
    the topic's candidates), (N - n_r + 1)/2 for one the run did not retrieve (n_r its number of documents for
    the topic; 0 for a topic it lacks). The runs' points are added in the runs' order, as ranx adds them, so
    that equal sums stay equal to the last bit."""
    s = v.stack
    weights = v.weights if weighted else np.ones(s.n_runs)
    n_cand = np.bincount(v.topic, minlength=s.n_topics).astype(float)
    start, _ = blocks(s)
    n_run = np.zeros((s.n_runs, s.n_topics))
    if len(start):
        n_run[s.run[start], s.topic[start]] = np.diff(np.r_[start, len(s.run)])
    unretrieved = ((n_cand[None, :] - n_run + 1) / 2)[:, v.topic]       # run x fused document
    points = v.by_run(n_cand[s.topic] - s.pos, unretrieved)
    total = np.zeros(len(v.start))
    for r in range(s.n_runs):
        total += weights[r] * points[r]
    return total


ISR = r"\sum_{r \ni d} \frac{1}{(p_r(d) + 1)^2}"
register(Method("rrf", _rrf, r"\sum_{r \ni d} \frac{1}{k + p_r(d) + 1}", "Reciprocal rank fusion.", CORMACK,
                params=(K,), aliases=("reciprocal_rank_fusion",), ranx="rrf"))
register(Method("rbc", _rbc, r"\sum_{r \ni d} (1 - \phi)\, \phi^{p_r(d)}", "Rank-biased centroid.", BAILEY,
                params=(PHI,), ranx="rbc"))
register(Method("isr", _isr, ISR + r" \cdot |\{r \ni d\}|", "Inverse square rank.", MOURAO, ranx="isr"))
register(Method("log_isr", _log_isr, ISR + r" \cdot \ln |\{r \ni d\}|", "Inverse square rank with the log of the "
                "number of runs (0 for a document one run retrieved).", MOURAO, ranx="log_isr"))
register(Method("logn_isr", _logn_isr, ISR + r" \cdot \ln (|\{r \ni d\}| + \sigma)", "log_isr with sigma added "
                "to the count.", MOURAO, params=(SIGMA,), ranx="logn_isr"))
BORDA = r"\begin{cases} N - p_r(d) & r \ni d \\ (N - n_r + 1)/2 & \text{otherwise} \end{cases}"
register(Method("bordafuse", partial(borda_points, weighted=False), r"\sum_r " + BORDA, "Borda count over the "
                "topic's N candidates; n_r documents in run r.", ASLAM, ranx="bordafuse"))
register(Method("w_bordafuse", partial(borda_points, weighted=True), r"\sum_r w_r " + BORDA,
                "Weighted Borda count.", ASLAM, weighted=True, aliases=("weighted_bordafuse",),
                ranx="weighted_bordafuse"))
