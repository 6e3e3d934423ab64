"""Agreement statistics from count tables: the kappa family from a confusion matrix, Fleiss' kappa
from an items x grades table, Krippendorff's alpha from a coincidence matrix, and a plain reading
of a kappa. Pure numpy over a handful of grades; `core/agreement/qrels.py` builds the tables from qrels.

Chance models, labelled as what they are (see seeds/ERRATA.md):
- `cohen_kappa`: Cohen (1960), chance agreement from each judge's *own* marginals,
  p_e = sum_c p_A(c) * p_B(c). Equals `sklearn.metrics.cohen_kappa_score`.
- `pooled_kappa`: Scott's pi (1955), chance agreement from the marginals *pooled* over both
  judges, p_e = sum_c ((p_A(c) + p_B(c)) / 2)^2. This is the "kappa statistic" of seed 004 and
  of Manning, Raghavan & Schuetze (2008, sec. 8.5); Fleiss' kappa generalises it to 3+ judges.
- `weighted_kappa` (weights='linear' | 'quadratic'): disagreement weights come from the *grade
  values*: w(i, j) = |g_i - g_j| (linear) or (g_i - g_j)^2 (quadratic). scikit-learn's
  `cohen_kappa_score(weights=...)` instead uses the *index positions* of the labels in the sorted
  union of observed labels, |i - j|. The two agree when the observed grades are consecutive
  integers (e.g. 0,1,2,3); they differ when a grade is missing from both judges or grades are not
  evenly spaced: with grades {0, 1, 3}, a 1-vs-3 disagreement is 2 steps here but 1 step in sklearn.
  Grade values are what a relevance scale means, so we use them.
- Krippendorff's alpha (nominal, ordinal, interval): from the coincidence matrix (Krippendorff
  2011, "Computing Krippendorff's Alpha-Reliability"); matches the `krippendorff` package.
"""
from __future__ import annotations

import numpy as np

from core.errors import EvalError

LEVELS = ("nominal", "ordinal", "interval")
WEIGHTS = {None: None, "linear": 1, "quadratic": 2}   # weighted kappa: the power of |g_i - g_j|

# Landis & Koch (1977), "The measurement of observer agreement for categorical data":
# upper bound of each band (kappa below 0 is "poor").
_LANDIS_KOCH = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"))


def reading(kappa: float | None) -> str:
    """Plain-language reading of a kappa after Landis & Koch (1977): 0.78 -> '0.78 = substantial'."""
    if kappa is None or not np.isfinite(kappa):
        return "undefined (nothing to compare, or every judge used one and the same label)"
    shown = round(float(kappa), 2)          # the bands are stated on two decimals: 0.21-0.40 = fair
    if shown < 0:
        return f"{kappa:.2f} = poor (worse than chance)"
    label = next((name for upper, name in _LANDIS_KOCH if shown <= upper), "almost perfect")
    return f"{kappa:.2f} = {label}"


def _ratio(num: float, den: float) -> float:
    return float(num / den) if not np.isclose(den, 0.0) else float("nan")


def kappa_from_confusion(counts: np.ndarray, grades: np.ndarray, weights: str | None = None) -> dict:
    """p_o, p_e (own and pooled marginals), Cohen's, Scott's and, if asked, weighted kappa."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    if n == 0:
        nan = float("nan")
        return dict(p_observed=nan, p_expected=nan, p_expected_pooled=nan, cohen_kappa=nan,
                    pooled_kappa=nan, weighted_kappa=None if weights is None else nan)
    p = counts / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    p_o, p_e = float(np.trace(p)), float(row @ col)
    p_pool = float((((row + col) / 2) ** 2).sum())
    out = dict(p_observed=p_o, p_expected=p_e, p_expected_pooled=p_pool,
               cohen_kappa=_ratio(p_o - p_e, 1 - p_e), pooled_kappa=_ratio(p_o - p_pool, 1 - p_pool),
               weighted_kappa=None)
    if weights is not None:      # |g_i - g_j| or (g_i - g_j)^2 on grade *values* (not label positions, as sklearn)
        g = np.asarray(grades, dtype=float)
        w = np.abs(g[:, None] - g[None, :]) ** WEIGHTS[weights]
        out["weighted_kappa"] = 1.0 - _ratio((w * p).sum(), (w * np.outer(row, col)).sum())
    return out


def binary(counts: np.ndarray, grades: np.ndarray, rel_level: int) -> np.ndarray:
    """Confusion matrices (the last two axes of `counts`) collapsed to 2x2 at rel >= rel_level (not relevant,
    relevant)."""
    hi = np.asarray(grades) >= rel_level
    rows = np.stack([counts[..., ~hi, :].sum(axis=-2), counts[..., hi, :].sum(axis=-2)], axis=-2)
    return np.stack([rows[..., ~hi].sum(axis=-1), rows[..., hi].sum(axis=-1)], axis=-1)


def alpha_from_coincidence(o: np.ndarray, grades, level: str = "nominal") -> float:
    """Krippendorff's alpha = 1 - D_o / D_e from a coincidence matrix o (values x values)."""
    o = np.asarray(o, dtype=float)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return float("nan")
    g = np.asarray(grades, dtype=float)
    if level == "nominal":
        delta = 1.0 - np.eye(len(g))
    elif level == "interval":
        delta = (g[:, None] - g[None, :]) ** 2
    elif level == "ordinal":
        cs = np.cumsum(n_c)                       # sum of n_g for g between c and k, inclusive
        span = cs[None, :] - cs[:, None] + n_c[:, None]
        span = np.where(np.arange(len(g))[:, None] <= np.arange(len(g))[None, :], span, span.T)
        delta = (span - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    else:
        raise EvalError(f"Unknown level of measurement {level!r}. Use one of {', '.join(LEVELS)}.")
    d_o = (o * delta).sum() / n
    d_e = (np.outer(n_c, n_c) * delta).sum() / (n * (n - 1))
    return 1.0 - _ratio(d_o, d_e)


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss (1971) kappa from an items x categories count table, same raters per item."""
    counts = np.asarray(counts, dtype=float)
    n_items = counts.shape[0]
    raters = counts.sum(axis=1)
    if n_items == 0 or raters[0] < 2 or not np.all(raters == raters[0]):
        return float("nan")
    r = raters[0]
    p_item = ((counts ** 2).sum(axis=1) - r) / (r * (r - 1))
    p_cat = counts.sum(axis=0) / (n_items * r)
    p_bar, p_e = p_item.mean(), (p_cat ** 2).sum()
    return _ratio(p_bar - p_e, 1 - p_e)


def coincidence_matrix(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's o_ck = sum_u n_uc * n_uk / (m_u - 1) minus the self-pairs, pairable units."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    counts = counts[m >= 2]
    scale = 1.0 / (m[m >= 2] - 1)
    return counts.T @ (counts * scale[:, None]) - np.diag((counts * scale[:, None]).sum(axis=0))
