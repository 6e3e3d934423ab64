"""Label agreement of many judges with one reference, all judges at once (part of core/judges/report.py).

Input: stacked qrels `(s, qid, docno, rel)` in DuckDB, s = 0 for the reference and 1..J for the judges.
One SQL join pairs every judge's labels with the reference's on (qid, docno); numpy counts the pairs into
one array C[judge, topic, reference grade, judge grade] (a single bincount), from which every per-judge
and per-topic statistic below is a few array operations: no loop over judges, topics or labels.

As in `core.agreement.qrels`, grades are nominal labels compared on the pairs both judged, and negative grades
(trec_eval's "in the pool but unjudged") are left out of the label comparison. Cohen's kappa is
(p_o - p_e) / (1 - p_e) with each judge's own marginals (sklearn's `cohen_kappa_score`); NaN when there is
nothing to compare or p_e = 1 (both used one and the same label).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.agreement.kappa import binary
from core.db.sqltext import ident

PAIRS_SQL = ("SELECT j.s, r.qid, r.rel AS a, j.rel AS b FROM {q} r JOIN {q} j ON j.qid = r.qid AND j.docno = r.docno "
             "WHERE r.s = 0 AND j.s > 0 AND r.rel >= 0 AND j.rel >= 0")
COUNTS_SQL = "SELECT s, count(*) AS n FROM {q} WHERE rel >= 0 GROUP BY s"


@dataclass(frozen=True)
class Labels:
    """Per-judge label agreement (index: judge 1..J in the order given) and the counts behind it."""
    grades: np.ndarray          # the grade axis of the confusion matrices (sorted union of observed grades)
    topics: np.ndarray          # the topic axis (qids, sorted)
    counts: np.ndarray          # C[judge, topic, reference grade, judge grade]
    n_reference: int            # the reference's labels (grade >= 0)
    n_judge: np.ndarray         # each judge's labels (grade >= 0)
    rel_level: int


def kappa(counts: np.ndarray) -> np.ndarray:
    """Cohen's kappa of every square confusion matrix in the last two axes of `counts`."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(counts, axis1=-2, axis2=-1) / n
        p_e = (counts.sum(axis=-1) * counts.sum(axis=-2)).sum(axis=-1) / n ** 2
        out = (p_o - p_e) / (1.0 - p_e)
    return np.where((n > 0) & ~np.isclose(p_e, 1.0), out, np.nan)


def labels(con, qrels_table: str, n_judges: int, rel_level: int = 1) -> Labels:
    """Count every judge's labels against the reference's in stacked qrels table `qrels_table`."""
    q = ident(qrels_table)
    pairs = con.execute(PAIRS_SQL.format(q=q)).fetchnumpy()
    sizes = dict(con.execute(COUNTS_SQL.format(q=q)).fetchall())
    s = np.asarray(pairs["s"], np.int64) - 1
    a, b = np.asarray(pairs["a"], np.int64), np.asarray(pairs["b"], np.int64)
    grades = np.union1d(a, b) if len(a) else np.array([0, 1])
    codes, found = pd.factorize(np.asarray(pairs["qid"], dtype=object))   # hashing, not a string sort of every pair
    order = np.argsort(np.asarray(found, dtype=str), kind="stable")
    topics, t = np.asarray(found, dtype=object)[order], np.argsort(order)[codes] if len(codes) else codes
    k, nt = len(grades), len(topics)
    cell = ((s * nt + t) * k + np.searchsorted(grades, a)) * k + np.searchsorted(grades, b)
    counts = np.bincount(cell, minlength=n_judges * nt * k * k).reshape(n_judges, nt, k, k)
    return Labels(grades, topics.astype(object), counts, int(sizes.get(0, 0)),
                  np.array([int(sizes.get(j, 0)) for j in range(1, n_judges + 1)]), int(rel_level))


def _agreement(c: np.ndarray, lab: Labels) -> dict[str, np.ndarray]:
    """n, agreement, cohen_kappa, binary_kappa, over_rate and under_rate of every confusion matrix in the last two
    axes of `c` (NaN where n = 0); over: the judge's grade above the reference's, under: below it."""
    n = c.sum(axis=(-2, -1))
    above = np.triu(np.ones((len(lab.grades),) * 2, bool), k=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"n": n, "agreement": np.trace(c, axis1=-2, axis2=-1) / n, "cohen_kappa": kappa(c),
                "binary_kappa": kappa(binary(c, lab.grades, lab.rel_level)),
                "over_rate": (c * above).sum(axis=(-2, -1)) / n, "under_rate": (c * above.T).sum(axis=(-2, -1)) / n}


def per_judge(lab: Labels) -> pd.DataFrame:
    """cohen_kappa, binary_kappa, n_common, only_reference, only_judge, over_rate, under_rate per judge."""
    a = _agreement(lab.counts.sum(axis=1), lab)                      # judge x grade x grade
    n = a["n"]
    return pd.DataFrame({"cohen_kappa": a["cohen_kappa"], "binary_kappa": a["binary_kappa"],
                         "agreement": a["agreement"], "n_common": n.astype(np.int64),
                         "only_reference": lab.n_reference - n, "only_judge": lab.n_judge - n,
                         "over_rate": a["over_rate"], "under_rate": a["under_rate"]})


def per_topic(lab: Labels) -> pd.DataFrame:
    """judge (0-based), qid, n, agreement, cohen_kappa, binary_kappa, over_rate, under_rate: one row per
    (judge, topic) with pairs both judged."""
    J, T = lab.counts.shape[:2]
    frame = pd.DataFrame({"judge": np.repeat(np.arange(J), T), "qid": np.tile(lab.topics, J),
                          **{k: v.ravel() for k, v in _agreement(lab.counts, lab).items()}})
    return frame[frame["n"] > 0].reset_index(drop=True)
