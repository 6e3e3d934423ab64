"""Tests over every pair of runs at once: a runs x runs matrix of adjusted p-values.

Input is a complete matrix X (n_topics x k_runs): the topics every run has (or, with -c, every
topic with missing values counted as 0). Output is a symmetric k x k matrix of adjusted p-values
(NaN on the diagonal), from one of:

- 'tukey': Tukey's HSD on the two-way (system x topic) ANOVA without interaction, as Carterette
  recommends for IR: MSE is the residual mean square with df = (k-1)(n-1), and a pair's
  p-value is the studentized range tail P(Q_{k,df} >= |mean_a - mean_b| / sqrt(MSE / n)).
  statsmodels' pairwise_tukeyhsd fits only the one-way design (its MSE keeps the topic effect,
  with df = k(n-1)), so the two-way ANOVA is computed here in numpy and the tail comes from
  scipy.stats.studentized_range; the tests check both against a statsmodels OLS fit.
- 'randomization-all': the randomisation test with the max-statistic correction (Carterette 2012,
  after Smucker et al. 2007): each resample permutes the k values of every topic among the runs;
  the statistic is the range max_j mean_j - min_j mean_j of the permuted means, and a pair's
  adjusted p-value is (b + 1) / (B + 1), b = resamples whose range is >= |mean_a - mean_b|.
- any paired test of core.stats.paired ('t', 'wilcoxon', 'randomization', 'bootstrap') run on every
  pair, with a statsmodels correction ('none', 'bonferroni', 'holm', 'bh') over all k(k-1)/2 pairs.

References
- B. Carterette. "Multiple testing in statistical analysis of systems-based information
  retrieval experiments." ACM TOIS 30(1), 2012.
- M. D. Smucker, J. Allan, B. Carterette. "A comparison of statistical significance tests for
  information retrieval evaluation." CIKM 2007.
- J. W. Tukey. "Comparing individual means in the analysis of variance." Biometrics 5(2), 1949.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.stats import permute
from core.stats import paired as stats
from core.errors import OptionError

MULTI_TESTS = ("tukey", "randomization-all")
ALL_TESTS = stats.TESTS + MULTI_TESTS
_GRID_PAIRS = 64        # above this many distinct statistics, studentized_range is read off a grid
_SCIPY_ASYMPTOTIC_DF = 100_000   # scipy uses the df = inf formula above this (fast)


class PairMatrix(NamedTuple):
    """An all-pairs matrix with the runs its rows and columns follow."""
    runs: tuple
    p: np.ndarray


def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(k, 1)


def _symmetric(k: int, values: np.ndarray) -> np.ndarray:
    out = np.full((k, k), np.nan)
    a, b = _pairs(k)
    out[a, b] = out[b, a] = values
    return out


def _check(X) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.isfinite(X).all():
        raise OptionError("the all-pairs tests need a complete topics x runs matrix of finite values")
    return X


def two_way_anova(X) -> tuple[np.ndarray, float, int]:
    """Run means, the residual mean square and its degrees of freedom of the additive two-way
    (run x topic) model x_tj = mu + topic_t + run_j + e_tj, one observation per cell."""
    X = _check(X)
    n, k = X.shape
    means = X.mean(axis=0)
    resid = X - X.mean(axis=1, keepdims=True) - means[None, :] + X.mean()
    df = (k - 1) * (n - 1)
    mse = float((resid ** 2).sum() / df) if df > 0 else float("nan")
    return means, mse, df


def studentized_range_sf(q: np.ndarray, k: int, df: float) -> np.ndarray:
    """scipy.stats.studentized_range.sf(q, k, df) for many q at once.

    scipy integrates numerically for each value (~10 ms each when df <= 100,000), so with more
    than _GRID_PAIRS distinct values the tail is computed on a grid of _GRID_PAIRS points over
    [0, max q] and read off a monotone cubic (PCHIP) interpolation of log sf. Plain equivalent:
    `studentized_range.sf(q, k, df)`; tests/stats/test_multisys.py compares the two."""
    from scipy import interpolate                  # scipy.stats on first use (core.stats.paired._sp says why)
    from scipy.stats import studentized_range
    q = np.asarray(q, dtype=float)
    out = np.full(q.shape, np.nan)
    ok = np.isfinite(q)
    out[np.isposinf(q)] = 0.0
    uniq, inverse = np.unique(q[ok], return_inverse=True)
    if len(uniq) <= _GRID_PAIRS or df > _SCIPY_ASYMPTOTIC_DF:
        out[ok] = studentized_range.sf(uniq, k, df)[inverse]
        return out
    grid = np.linspace(0.0, uniq[-1], _GRID_PAIRS)
    tail = np.maximum(studentized_range.sf(grid, k, df), 1e-300)
    curve = interpolate.PchipInterpolator(grid, np.log(tail))
    out[ok] = np.minimum(np.exp(curve(uniq)), 1.0)[inverse]
    return out


def tukey_hsd(X) -> np.ndarray:
    """k x k Tukey HSD adjusted p-values on the two-way design (see the module docstring)."""
    X = _check(X)
    n, k = X.shape
    if n < 2 or k < 2:
        return np.full((k, k), np.nan)
    means, mse, df = two_way_anova(X)
    a, b = _pairs(k)
    diff = np.abs(means[a] - means[b])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = diff / np.sqrt(mse / n)
    q = np.where(diff <= 1e-12 * max(1.0, float(np.abs(means).max())), 0.0, q)   # equal means: q = 0, p = 1
    return _symmetric(k, studentized_range_sf(q, k, df))


def permuted_ranges(X, n_resamples: int, seed: int) -> np.ndarray:
    """Range of the run means in each of n_resamples seeded resamples that permute every topic's
    values among the runs (the null of 'randomization-all'); shape (n_resamples,).

    The permutations come from core.stats.permute: exactly uniform, drawn in fixed blocks from one
    SeedSequence(seed) and evaluated on 2 threads; the draws do not depend on threads or memory.
    Plain equivalent: `np.argsort(rng.random((B, n, k)), axis=2)` (argsort of uniform keys) or
    numpy's Generator.permuted per row; tests/stats/test_multisys.py compares with a naive loop."""
    X = _check(X)
    n, k = X.shape
    if n == 0 or k == 0:
        return np.full(n_resamples, np.nan)
    means = permute.column_sums(X, n_resamples, seed) / n
    return means.max(axis=1) - means.min(axis=1)


def randomization_all(X, n_resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """k x k max-statistic adjusted p-values of the all-pairs randomisation test."""
    X = _check(X)
    n, k = X.shape
    if n < 1 or k < 2:
        return np.full((k, k), np.nan)
    ranges = np.sort(permuted_ranges(X, n_resamples, seed))
    means = X.sum(axis=0) / n
    a, b = _pairs(k)
    observed = np.abs(means[a] - means[b])
    eps = 1e-10 * max(float(np.abs(X).max()), 1e-300)      # float noise of the sums
    b_count = n_resamples - np.searchsorted(ranges, observed - eps, side="left")
    return _symmetric(k, (b_count + 1) / (n_resamples + 1))


def pairwise(X, test: str, correction: str = "none", alpha: float = 0.05, n_resamples: int = 10_000,
             seed: int = 0, tie_tol: float = 1e-9) -> np.ndarray:
    """k x k p-values of a core.stats.paired paired test on every pair, corrected over all pairs.

    The resampling tests draw their signs / bootstrap counts once (the same draw as core.stats.paired
    would for any single pair) and apply them to the k runs, not to the k(k-1)/2 differences:
    signs @ (X[:, a] - X[:, b]) = (signs @ X)[:, a] - (signs @ X)[:, b]. Plain equivalent:
    `stats.randomization_test(D, mask)` / `stats.bootstrap_test(D, mask)` on the difference
    matrix D; tests/stats/test_multisys.py checks they agree."""
    X = _check(X)
    n, k = X.shape
    if test not in stats.TESTS:
        raise OptionError(f"unknown test {test!r}; choose one of {', '.join(ALL_TESTS)}")
    a, b = _pairs(k)
    if test == "t":
        p = _paired_t_pairs(X)
    elif test == "wilcoxon":
        D = X[:, a] - X[:, b]
        p = np.array([stats.wilcoxon(D[:, c], tie_tol) for c in range(D.shape[1])])
    elif test == "randomization":
        p = _sign_flip_pairs(X, n_resamples, seed)
    else:
        p = _bootstrap_pairs(X, n_resamples, seed)
    return _symmetric(k, stats.correct(p, correction, alpha))


def _paired_t_pairs(X) -> np.ndarray:
    """scipy.stats.ttest_rel(X[:, a], X[:, b]) for every pair, from the runs' covariance matrix:
    the differences' variance is var_a + var_b - 2 cov_ab, so k runs cost one k x k product instead
    of k(k-1)/2 difference columns (at 50 runs x 5,000 topics, ~0.05 s instead of ~3 s in scipy).
    Pairs whose difference variance is within float noise of 0 (identical or nearly identical runs,
    where the subtraction loses digits) are computed by scipy on their differences. Plain
    equivalent: `stats.paired_t_columns(X[:, a], X[:, b], mask)`; tests/stats/test_multisys.py compares."""
    n, k = X.shape
    a, b = _pairs(k)
    p = np.full(len(a), np.nan)
    if n < 2 or not len(a):
        return p
    C = np.cov(X, rowvar=False, ddof=1).reshape(k, k)
    var = C[a, a] + C[b, b] - 2.0 * C[a, b]
    unsafe = var <= 1e-8 * (C[a, a] + C[b, b])
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (X.mean(axis=0)[a] - X.mean(axis=0)[b]) / np.sqrt(var / n)
    from scipy.stats import t as _sp_t              # on first use (core.stats.paired._sp)
    p[~unsafe] = 2.0 * _sp_t.sf(np.abs(t[~unsafe]), n - 1)
    if unsafe.any():
        cols = np.flatnonzero(unsafe)
        full = np.ones((n, len(cols)), dtype=bool)
        p[cols] = stats.paired_t_columns(X[:, a[cols]], X[:, b[cols]], full)
    return p


def _sign_flip_pairs(X, n_resamples: int, seed: int) -> np.ndarray:
    """stats.randomization_test on every pair's differences, from one draw of signs."""
    n, k = X.shape
    a, b = _pairs(k)
    D = X[:, a] - X[:, b]
    observed = np.abs(D.sum(axis=0))
    eps = 1e-10 * np.maximum(np.abs(D).sum(axis=0), 1e-300)
    counts = np.zeros(len(a), dtype=np.int64)
    for signs in stats._sign_blocks(n, n_resamples, seed):     # the draws of stats.randomization_test
        S = signs @ X
        counts += (np.abs(S[:, a] - S[:, b]) >= observed - eps).sum(axis=0)
    return (counts + 1) / (n_resamples + 1) if n else np.full(len(a), np.nan)


def _bootstrap_pairs(X, n_resamples: int, seed: int) -> np.ndarray:
    """stats.bootstrap_test on every pair's differences (full masks), from one draw of counts."""
    n, k = X.shape
    a, b = _pairs(k)
    D = X[:, a] - X[:, b]
    observed = D.sum(axis=0) / n
    eps = 1e-10 * np.maximum(np.abs(D).sum(axis=0) / n, 1e-300)
    counts_b = np.zeros(len(a), dtype=np.int64)
    for C in stats._count_blocks(n, n_resamples, seed):
        M = (C @ X) / n
        null = M[:, a] - M[:, b]
        counts_b += (np.abs(null - observed) >= np.abs(observed) - eps).sum(axis=0)
    return (counts_b + 1) / (n_resamples + 1)


def all_pairs(X, test: str, correction: str = "none", alpha: float = 0.05, n_resamples: int = 10_000,
              seed: int = 0, tie_tol: float = 1e-9) -> np.ndarray:
    """The runs x runs matrix of adjusted p-values for `test` (a multi-system test adjusts by
    itself and ignores `correction`)."""
    if test == "tukey":
        return tukey_hsd(X)
    if test == "randomization-all":
        return randomization_all(X, n_resamples, seed)
    return pairwise(X, test, correction, alpha, n_resamples, seed, tie_tol)


__all__ = ["PairMatrix", "MULTI_TESTS", "ALL_TESTS", "two_way_anova", "studentized_range_sf", "tukey_hsd", "permuted_ranges",
           "randomization_all", "pairwise", "all_pairs"]
