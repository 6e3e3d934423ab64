"""Agreement between two orderings of systems: Kendall's tau and tau_AP, and "does it matter?".

A system ordering is given as scores keyed by system name (a dict or a pd.Series): the higher the
score, the better the system. Both correlations use the systems present in both inputs with a
finite score in both.

- `kendall_tau`: Kendall's tau-b (ties in either ordering handled), via `scipy.stats.kendalltau`.
- `tau_ap`: Yilmaz, Aslam & Robertson (2008), "A new rank correlation coefficient for information
  retrieval", SIGIR. It weights swaps near the top more than swaps near the bottom:
      tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1)  -  1
  where the systems are listed in the order of `scores_b` (best first) and C(i) is the number of
  systems above position i that `scores_a` also puts above the system at position i.
  It is asymmetric: `scores_a` is the reference ("true") ordering, `scores_b` the one judged.
  The paper assumes no ties. Here systems tied in `scores_b` are listed by name (a fixed,
  documented order) and a pair tied in `scores_a` counts as half correct, so for tie-free inputs
  the value is exactly the paper's.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from core.errors import EvalError


def _aligned(scores_a, scores_b) -> pd.DataFrame:
    a = pd.Series(scores_a, dtype="float64")
    b = pd.Series(scores_b, dtype="float64")
    both = pd.DataFrame({"a": a, "b": b}).dropna()
    both.index = both.index.astype(str)
    if len(both) < 2:
        raise EvalError("A rank correlation needs at least two systems scored in both orderings.")
    return both


def kendall_tau(scores_a, scores_b) -> float:
    """Kendall's tau-b between two system orderings (scores keyed by system name)."""
    both = _aligned(scores_a, scores_b)
    return float(stats.kendalltau(both["a"], both["b"], variant="b").statistic)


def tau_ap(scores_a, scores_b) -> float:
    """AP rank correlation (Yilmaz et al. 2008) of ordering b against reference ordering a."""
    both = _aligned(scores_a, scores_b).rename_axis("system").reset_index()
    both = both.sort_values(["b", "system"], ascending=[False, True], kind="mergesort")
    ref = both["a"].to_numpy()
    n = len(ref)
    above = np.tril(np.ones((n, n), dtype=bool), k=-1)          # above[i, j]: j listed before i
    correct = (ref[None, :] > ref[:, None]) + 0.5 * (ref[None, :] == ref[:, None])
    c = (correct * above).sum(axis=1)[1:]
    return float(2.0 / (n - 1) * (c / np.arange(1, n)).sum() - 1.0)


@dataclass(frozen=True)
class DoesItMatter:
    """Voorhees (2000): do system rankings change when the judges change?"""
    measure: str
    scores: pd.DataFrame        # index: run name; one column per qrels set (assessor name)
    correlations: pd.DataFrame  # a, b, kendall_tau, tau_ap (b judged against a as reference)
    qrels_ids: dict             # column name -> qrels_id

    def to_dict(self) -> dict:
        return {"measure": self.measure, "scores": self.scores.to_dict(orient="index"),
                "correlations": self.correlations.to_dict(orient="records")}


def correlation_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau and tau_AP for every pair of columns of a runs x qrels-sets score table."""
    rows = [{"a": a, "b": b, "kendall_tau": kendall_tau(scores[a], scores[b]), "tau_ap": tau_ap(scores[a], scores[b]),
             "tau_ap_reversed": tau_ap(scores[b], scores[a])} for a, b in combinations(scores.columns, 2)]
    return pd.DataFrame(rows, columns=["a", "b", "kendall_tau", "tau_ap", "tau_ap_reversed"])


