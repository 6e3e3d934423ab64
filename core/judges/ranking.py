"""System-ranking stability of every judge at once (part of core/judges/report.py).

The same statistics as `core.agreement.rankcorr` (whose conventions these follow exactly), for J judges in one set of
(judge, run, run) array operations instead of J calls: with 33 judges the per-call pandas and scipy overhead
was ~2 s of a 5 s report (benchmarks/PROFILE.md). The plain equivalent is
`[kendall_tau(ref, scores[j]) for j]` and `[tau_ap(ref, scores[j]) for j]`; tests compare the two, and scipy.
- Kendall's tau-b: S / sqrt((n0 - n1)(n0 - n2)) over the pairs of runs scored by both orderings, S = sum of
  sign(a_i - a_j) sign(b_i - b_j), n0 the pairs, n1 / n2 the pairs tied in a / in b (scipy's variant 'b').
- tau_AP (Yilmaz et al. 2008), the reference `a` as the true ordering: runs listed by b descending, ties by
  name; C(i) counts the runs listed above i that a also puts above i (a tie in a counts one half);
  tau_AP = 2 / (N - 1) * sum_{i >= 2} C(i) / (i - 1) - 1.
- the largest rank change: max |rank in a - rank in b|, rank = 1 + the number of runs scored higher.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def ranking_table(ref: np.ndarray, scores: np.ndarray, runs: list[str]) -> pd.DataFrame:
    """kendall_tau, tau_ap, largest_rank_change, largest_rank_change_run for each row of scores (judges x runs)
    against ref (runs); runs without a finite score in both are left out of that judge's figures."""
    a = np.broadcast_to(np.asarray(ref, np.float64), scores.shape)
    b = np.asarray(scores, np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    pair = ok[:, :, None] & ok[:, None, :]
    upper = np.triu(np.ones((a.shape[1],) * 2, bool), k=1)[None]
    da, db = a[:, :, None] - a[:, None, :], b[:, :, None] - b[:, None, :]
    with np.errstate(invalid="ignore"):
        sa, sb = np.sign(np.where(pair, da, 0.0)), np.sign(np.where(pair, db, 0.0))
    both = pair & upper
    n0 = both.sum(axis=(1, 2))
    n1, n2 = (both & (sa == 0)).sum(axis=(1, 2)), (both & (sb == 0)).sum(axis=(1, 2))
    s = (sa * sb * both).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt((n0 - n1).astype(float) * (n0 - n2))
    n = ok.sum(axis=1)
    tau = np.where(n >= 2, tau, np.nan)

    name_rank = np.argsort(np.argsort(np.asarray(runs, dtype=str), kind="stable"), kind="stable")
    first = (name_rank[None, :] < name_rank[:, None])[None]             # [i, j]: j's name sorts before i's
    before = pair & ((db < 0) | ((db == 0) & first))                     # [i, j]: j listed above i (b[j] > b[i])
    correct = (da < 0) + 0.5 * (da == 0)                                 # a[j] above a[i], half for a tie
    c = (before * correct).sum(axis=2)
    pos = before.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(ok & (pos > 0), c / np.maximum(pos, 1), 0.0).sum(axis=1)
        tap = np.where(n >= 2, 2.0 / (n - 1) * terms - 1.0, np.nan)

    rank_a = 1 + (pair & (da < 0)).sum(axis=2)
    rank_b = 1 + (pair & (db < 0)).sum(axis=2)
    change = np.where(ok, np.abs(rank_a - rank_b), 0)
    worst = change.argmax(axis=1)
    big = change.max(axis=1) if change.size else np.zeros(len(b), int)
    names = np.asarray(runs, dtype=object)
    return pd.DataFrame({"kendall_tau": tau, "tau_ap": tap, "largest_rank_change": big.astype(int),
                         "largest_rank_change_run": [names[w] if m > 0 else None for w, m in zip(worst, big)]})
