"""Paired significance tests, bootstrap intervals and multiple-testing correction.

Everything here works on *columns*: a matrix ``D`` of shape (n_queries, k) holds k paired
comparisons at once (one column per run x measure), with a boolean ``mask`` of the same shape that
says which queries take part in each comparison. Resampling tests draw one matrix of signs or of
bootstrap counts and do a single matrix product for all k comparisons, so 10,000 resamples cost one
BLAS call per block rather than a Python loop.

References
- Fisher randomisation test for IR: M. D. Smucker, J. Allan, B. Carterette. "A comparison of
  statistical significance tests for information retrieval evaluation." CIKM 2007.
  p = (b + 1) / (n + 1) (Phipson & Smyth 2010), so a p-value is never exactly 0.
- Paired bootstrap test (shift method): B. Efron, R. Tibshirani. "An Introduction to the
  Bootstrap", 1993, sec. 16.4; T. Sakai. "Evaluating evaluation metrics based on the bootstrap."
  SIGIR 2006.
- Cohen's d for paired samples (d_z): mean difference / standard deviation of the differences
  (J. Cohen, 1988; D. Lakens, "Calculating and reporting effect sizes", 2013).
"""
from __future__ import annotations

import warnings

import numpy as np

from core.errors import OptionError

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = {"none": None, "bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh"}
_BLOCK_CELLS = 2_000_000  # resample rows per block = this / n_queries (bounds memory at ~16 MB)
_COUNT_CELLS = 1 << 18    # cells counted by one bincount (2 MB of counts: stays in cache), see _count_blocks


def _sp():
    """scipy.stats, imported when a test first needs it: it (and statsmodels, below) takes ~1 s to import, which
    every `python -m core` command paid at start-up, also those that test nothing (load, list, evaluate)."""
    from scipy import stats
    return stats


def _row_blocks(n: int, n_resamples: int) -> list[int]:
    """The resamples of each block, so that a block of n_resamples x n draws holds at most _BLOCK_CELLS cells."""
    block = max(1, min(n_resamples, _BLOCK_CELLS // max(n, 1)))
    return [min(block, n_resamples - done) for done in range(0, n_resamples, block)]


def _sign_blocks(n: int, n_resamples: int, seed: int):
    """The seeded random signs of the randomisation tests: blocks of shape (rows, n) of -1.0 and +1.0, drawn from
    one generator stream, so the draws do not depend on the block size."""
    rng = np.random.default_rng(seed)
    for rows in _row_blocks(n, n_resamples):
        yield rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(float) * 2.0 - 1.0


def paired_t(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided paired t-test p-value, exactly scipy.stats.ttest_rel(x, y)."""
    if len(x) < 2:
        return float("nan")
    # near-identical samples: scipy warns, the p-value is still its answer (so in every call below)
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        return float(_sp().ttest_rel(x, y).pvalue)


def welch_t(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided unpaired t-test p-value with unequal variances (Welch), exactly
    scipy.stats.ttest_ind(x, y, equal_var=False); for samples on different topics."""
    if len(x) < 2 or len(y) < 2:
        return float("nan")
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        return float(_sp().ttest_ind(x, y, equal_var=False).pvalue)


def paired_t_columns(X: np.ndarray, Y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`paired_t(X[mask[:, c], c], Y[mask[:, c], c])` for every column c, with one vectorised
    scipy.stats.ttest_rel(axis=0) call per distinct column mask instead of one call per column."""
    p = np.full(X.shape[1], np.nan)
    for rows, cols in _mask_groups(mask):
        if len(rows) < 2:
            continue
        with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
            p[cols] = _sp().ttest_rel(X[np.ix_(rows, cols)], Y[np.ix_(rows, cols)], axis=0).pvalue
    return p


def paired_t_interval(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The `level` confidence interval of mean(x - y) that goes with the paired t-test: exactly
    scipy.stats.ttest_rel(x, y).confidence_interval(level); (NaN, NaN) for fewer than 2 pairs."""
    if len(x) < 2:
        return float("nan"), float("nan")
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        ci = _sp().ttest_rel(x, y).confidence_interval(level)
    return float(ci.low), float(ci.high)


def wilcoxon(d: np.ndarray, tie_tol: float = 0.0) -> float:
    """Two-sided Wilcoxon signed-rank p-value of the differences, exactly scipy.stats.wilcoxon(d).

    Differences within `tie_tol` are ties (exactly 0). Zero differences are dropped (scipy's default
    zero_method='wilcox'); when every difference is zero there is no evidence of any difference and
    the p-value is 1.
    """
    if len(d) == 0:
        return float("nan")
    d = np.where(np.abs(d) <= tie_tol, 0.0, d)
    if not np.any(d != 0):
        return 1.0
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        return float(_sp().wilcoxon(d).pvalue)


def cohens_d(d: np.ndarray) -> float:
    """Cohen's d for paired samples: mean(d) / sd(d) with ddof=1; NaN when sd is 0 or n < 2."""
    if len(d) < 2:
        return float("nan")
    sd = float(np.std(d, ddof=1))
    return float(np.mean(d) / sd) if sd > 0 else float("nan")


def randomization_test(D: np.ndarray, mask: np.ndarray, n_resamples: int = 10_000,
                       seed: int = 0) -> np.ndarray:
    """Two-sided Fisher randomisation (sign-flip permutation) test for every column of D.

    Under H0 each query's difference is equally likely to have either sign. One seeded matrix of
    random signs (n_resamples x n) is shared by all columns; queries outside a column's mask
    contribute 0 to its sums, so each column sees exactly the permutation distribution of its own
    queries. b counts permuted |sum| >= observed |sum|; p = (b + 1) / (n_resamples + 1).
    """
    D = np.where(mask, D, 0.0).astype(float)
    n, k = D.shape
    observed = np.abs(D.sum(axis=0))
    eps = 1e-10 * np.maximum(np.abs(D).sum(axis=0), 1e-300)  # float noise of the matrix product
    b = np.zeros(k, dtype=np.int64)
    for signs in _sign_blocks(n, n_resamples, seed):
        b += (np.abs(signs @ D) >= observed - eps).sum(axis=0)
    p = (b + 1) / (n_resamples + 1)
    return np.where(mask.sum(axis=0) > 0, p, np.nan)


def _mask_groups(mask: np.ndarray):
    """Yield (query_indices, column_indices) for each distinct column mask, in first-seen order.

    Columns are keyed by their bit-packed mask (one bytes key per column), so finding the groups
    costs one pass over the mask rather than a sort of k x n booleans.
    """
    mask = np.asarray(mask, dtype=bool)
    groups: dict[bytes, list[int]] = {}
    for c, key in enumerate(np.packbits(mask, axis=0).T):
        groups.setdefault(key.tobytes(), []).append(c)
    for cols in groups.values():
        yield np.flatnonzero(mask[:, cols[0]]), np.asarray(cols, dtype=np.intp)


def _count_blocks(n: int, n_resamples: int, seed: int):
    """The seeded bootstrap draws as count matrices: yields blocks of shape (rows, n), float64,
    where entry [b, i] is how often query i was drawn in resample b (each row sums to n).

    Blocks of at most _BLOCK_CELLS cells bound memory; the indices come from one generator stream,
    so the draws do not depend on the block size. Bincounts of _COUNT_CELLS cells at most turn indices
    into counts: one bincount of a 400 x 5,000 block scatters into 16 MB, which misses the cache
    (benchmarks/PROFILE.md). Plain equivalent: one bincount of the whole block (`_COUNT_CELLS` >=
    rows x n); tests/stats/test_stats.py compares the two.
    """
    rng = np.random.default_rng(seed)
    step = max(1, _COUNT_CELLS // max(n, 1))
    for rows in _row_blocks(n, n_resamples):
        drawn = rng.integers(0, n, size=(rows, n))
        counts = np.empty((rows, n))
        for a in range(0, rows, step):
            part = drawn[a:a + step]
            part += (np.arange(len(part)) * n)[:, None]         # in place: no second block of indices
            counts[a:a + len(part)] = np.bincount(part.ravel(), minlength=len(part) * n).reshape(len(part), n)
        yield counts


def _bootstrap_means(X: np.ndarray, n_resamples: int, seed: int,
                     mask: np.ndarray | None = None) -> np.ndarray:
    """Means of n_resamples seeded bootstrap resamples of the rows of X: shape (n_resamples, k).

    One count matrix C (resamples x n: how often each row was drawn) is shared by every column.
    Without a mask, C @ X / n gives every resample's mean. With a mask, column c's resampled mean
    is the mean of its values over the drawn rows in its mask: (C @ (X * mask))[:, c] divided by
    (C @ mask)[:, c], the number of drawn rows it has; NaN for a resample that drew none of them.
    The denominators are one product with the distinct masks only, so many columns cost little.
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if mask is None:
        A, which = X, None
    else:
        mask = np.asarray(mask, dtype=bool)
        groups = list(_mask_groups(mask))
        M = np.zeros((n, len(groups)))
        which = np.empty(k, dtype=np.intp)  # column -> its distinct mask
        for g, (rows, cols) in enumerate(groups):
            M[rows, g] = 1.0
            which[cols] = g
        A = np.hstack([np.where(mask, X, 0.0), M])
    out = np.empty((n_resamples, k))
    done = 0
    for counts in _count_blocks(n, n_resamples, seed):
        P = counts @ A
        rows = slice(done, done + len(counts))
        if which is None:
            out[rows] = P / n
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out[rows] = P[:, :k] / P[:, k:][:, which]   # 0 / 0 = NaN: no row of the mask drawn
        done += len(counts)
    return out


def bootstrap_ci_and_test(V: np.ndarray, v_mask: np.ndarray, D: np.ndarray | None = None,
                          d_mask: np.ndarray | None = None, n_resamples: int = 10_000, seed: int = 0,
                          level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`bootstrap_ci(V, v_mask)` and `bootstrap_test(D, d_mask)` from one set of bootstrap draws.

    The rows of V and D are the same queries (the aligned query set). One seeded draw resamples
    those n rows with replacement, n_resamples times (`_count_blocks(n, n_resamples, seed)`), and
    every column, interval and test alike, is evaluated on the same resamples: its statistic is
    the mean of its values over the drawn rows in its mask (see `_bootstrap_means`). With a full
    mask this is the textbook bootstrap of the column's mean; with a partial mask it is the
    bootstrap of "the mean over the queries this column has", resampling the query set (the
    query is the unit, and whether a column has it is part of the query's data). So a whole
    `compare()` call costs one draw whatever topics the runs miss. A resample that drew none of a
    column's queries has no value for it and is left out of that column's percentiles and test
    (its count of valid resamples replaces n_resamples). Returns (ci_low, ci_high, p).
    """
    V = np.asarray(V, dtype=float)
    if D is None:
        D, d_mask = np.zeros((V.shape[0], 0)), np.zeros((V.shape[0], 0), dtype=bool)
    kv = V.shape[1]
    X = np.hstack([V, np.asarray(D, dtype=float)])
    mask = np.hstack([np.asarray(v_mask, dtype=bool), np.asarray(d_mask, dtype=bool)])
    low, high, p = np.full(kv, np.nan), np.full(kv, np.nan), np.full(X.shape[1] - kv, np.nan)
    if X.shape[0] == 0 or X.shape[1] == 0:
        return low, high, p
    means = _bootstrap_means(X, n_resamples, seed, mask=mask)
    tail = (1.0 - level) / 2.0
    low[:], high[:] = _percentiles(means[:, :kv], tail)
    if X.shape[1] > kv:
        Xd, md = np.where(mask[:, kv:], X[:, kv:], 0.0), mask[:, kv:]
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = Xd.sum(axis=0) / md.sum(axis=0)
            eps = 1e-10 * np.maximum(np.abs(Xd).sum(axis=0) / md.sum(axis=0), 1e-300)
        null = means[:, kv:]
        with np.errstate(invalid="ignore"):
            b = (np.abs(null - observed) >= np.abs(observed) - eps).sum(axis=0)   # NaN compares False
        valid = np.isfinite(null).sum(axis=0)
        p[:] = np.where(valid > 0, (b + 1) / (valid + 1), np.nan)
    return low, high, p


def _percentiles(means: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """The (tail, 1 - tail) quantiles of each column over its valid (non-NaN) resamples."""
    low, high = np.full(means.shape[1], np.nan), np.full(means.shape[1], np.nan)
    finite = np.isfinite(means)
    full = finite.all(axis=0)
    if full.any():
        low[full], high[full] = np.quantile(means[:, full], [tail, 1.0 - tail], axis=0)
    for c in np.flatnonzero(~full & finite.any(axis=0)):   # rare: a column with very few queries
        low[c], high[c] = np.quantile(means[finite[:, c], c], [tail, 1.0 - tail])
    return low, high


def bootstrap_test(D: np.ndarray, mask: np.ndarray, n_resamples: int = 10_000,
                   seed: int = 0) -> np.ndarray:
    """Two-sided paired bootstrap test (shift method) for every column of D.

    Resample the queries' differences with replacement; under H0 the resampled mean minus the
    observed mean estimates the null distribution. b counts |mean* - mean| >= |mean|;
    p = (b + 1) / (n_valid + 1), n_valid = the resamples that drew any of the column's queries
    (all n_resamples unless it has very few). Every column is tested on the same resamples of the rows.
    """
    D = np.asarray(D, dtype=float)
    empty = np.zeros((D.shape[0], 0))
    return bootstrap_ci_and_test(empty, empty.astype(bool), D, mask, n_resamples, seed)[2]


def bootstrap_ci(V: np.ndarray, mask: np.ndarray, n_resamples: int = 10_000, seed: int = 0,
                 level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of the mean of each column of V (over its mask).

    Every column shares one seeded draw of resamples of the rows (see `bootstrap_ci_and_test`)."""
    low, high, _ = bootstrap_ci_and_test(V, mask, None, None, n_resamples, seed, level)
    return low, high


def correct(pvalues, method: str = "none", alpha: float = 0.05) -> np.ndarray:
    """Adjusted p-values over one family, via statsmodels' multipletests.

    method: 'none', 'bonferroni', 'holm' or 'bh' (Benjamini-Hochberg). NaN p-values (a test that
    could not be computed) are left out of the family and stay NaN.
    """
    if method not in CORRECTIONS:
        raise OptionError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    p = np.asarray(pvalues, dtype=float)
    out = p.copy()
    finite = np.isfinite(p)
    if CORRECTIONS[method] is not None and finite.any():
        from statsmodels.stats.multitest import multipletests   # on first use: see _sp
        out[finite] = multipletests(p[finite], alpha=alpha, method=CORRECTIONS[method])[1]
    return out
