"""Risk-sensitive evaluation: URisk and TRisk against a baseline, GeoRisk across all runs.

Per topic t, with delta_t = run_t - baseline_t and a risk weight alpha >= 0 (alpha = 0: plain
mean difference), a loss is weighted (1 + alpha) times:
    f_t = delta_t            if delta_t >= 0
    f_t = (1 + alpha) delta_t otherwise
    URisk = mean(f),  TRisk = URisk / (sd(f, ddof=1) / sqrt(n))
TRisk is a t-statistic: below -2 the run significantly hurts topics relative to the baseline,
above +2 it significantly helps. Its per-topic contributions f_t / (n SE) sum to TRisk.

GeoRisk (multiple baselines: every run in the matrix) for run i over c topics, with S_i its sum
over topics, T_t the topic's sum over runs and N the grand total:
    e_ti = S_i T_t / N,  z_ti = (x_ti - e_ti) / sqrt(e_ti)   (0 when e_ti = 0)
    ZRisk_i = sum_t [z_ti if z_ti >= 0 else (1 + alpha) z_ti]
    GeoRisk_i = sqrt(S_i / c * Phi(ZRisk_i / c))

References
- B. T. Dinçer, C. Macdonald, I. Ounis. "Hypothesis testing for the risk-sensitive evaluation of
  retrieval systems." SIGIR 2014 (URisk, TRisk).
- B. T. Dinçer, C. Macdonald, I. Ounis. "Risk-sensitive evaluation and learning to rank using
  multiple baselines." SIGIR 2016 (ZRisk, GeoRisk).
- L. Wang, P. N. Bennett, K. Collins-Thompson. "Robust ranking models via risk-sensitive
  optimization." SIGIR 2012 (the URisk / U_RISK measure).
"""
from __future__ import annotations

import numpy as np

from core.errors import OptionError

RISKS = ("urisk", "trisk")


def check_alpha(alpha) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        a = float("nan")
    if not (a >= 0 and np.isfinite(a)):
        raise OptionError(f"The risk weight alpha must be a number of 0 or more (e.g. 1 or 5), not {alpha!r}.")
    return a


def weighted(delta, alpha: float) -> np.ndarray:
    """f: gains as they are, losses (delta < 0) times (1 + alpha)."""
    d = np.asarray(delta, dtype=float)
    return np.where(d >= 0, d, (1.0 + check_alpha(alpha)) * d)


def urisk_trisk(D, mask, alpha: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """URisk and TRisk of every column of the topics x comparisons matrix of differences D,
    over the topics in its mask. TRisk is NaN with fewer than 2 topics or when sd(f) = 0."""
    mask = np.asarray(mask, dtype=bool)
    F = np.where(mask, weighted(np.where(mask, D, 0.0), alpha), 0.0)
    n = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(n > 0, F.sum(axis=0) / n, np.nan)
        ss = np.where(mask, (F - u[None, :]) ** 2, 0.0).sum(axis=0)
        se = np.sqrt(ss / (n - 1)) / np.sqrt(n)
        t = np.where((n > 1) & (se > 0), u / se, np.nan)
    return u, t


def trisk_contributions(delta, alpha: float = 1.0) -> np.ndarray:
    """Each topic's share f_t / (n SE) of TRisk (they sum to TRisk); NaN when TRisk is."""
    f = weighted(delta, alpha)
    n = len(f)
    if n < 2:
        return np.full(n, np.nan)
    se = np.std(f, ddof=1) / np.sqrt(n)
    return f / (n * se) if se > 0 else np.full(n, np.nan)


def georisk(X, alpha: float = 1.0) -> np.ndarray:
    """GeoRisk of each column (run) of the complete topics x runs matrix X (values >= 0)."""
    X = np.asarray(X, dtype=float)
    a = check_alpha(alpha)
    if X.size and X.min() < 0:
        raise OptionError("GeoRisk needs measure values of 0 or more (it models them as counts).")
    c = X.shape[0]
    if c == 0:
        return np.full(X.shape[1], np.nan)
    S, T, N = X.sum(axis=0), X.sum(axis=1), X.sum()
    E = np.outer(T, S) / N if N > 0 else np.zeros_like(X)
    with np.errstate(invalid="ignore", divide="ignore"):
        Z = np.where(E > 0, (X - E) / np.sqrt(E), 0.0)
    zrisk = np.where(Z >= 0, Z, (1.0 + a) * Z).sum(axis=0)
    from scipy.stats import norm                    # on first use (core.stats.paired._sp says why)
    return np.sqrt(S / c * norm.cdf(zrisk / c))


__all__ = ["RISKS", "check_alpha", "weighted", "urisk_trisk", "trisk_contributions", "georisk"]
