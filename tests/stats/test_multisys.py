"""All-pairs tests (core.stats.multisys) against independent implementations: a statsmodels OLS fit of
the two-way ANOVA for Tukey's HSD, a naive loop for the max-statistic randomisation test, and
core.stats.paired' single-pair tests for the all-pairs versions of the paired tests."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sp
from scipy.stats import studentized_range
from statsmodels.stats.multitest import multipletests

from core.stats import multisys
from core.stats import permute
from core.stats import paired as stats
from tests.oracle_stats import naive_max_statistic, naive_permutations, tukey_oracle


def _matrix(n=30, k=5, seed=0, spread=0.05):
    rng = np.random.default_rng(seed)
    topic = rng.random(n)[:, None]
    return np.clip(topic + spread * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, k)), 0, 1)


@pytest.mark.parametrize("n,k,seed", [(30, 5, 0), (12, 3, 1), (50, 8, 2)])
def test_tukey_matches_statsmodels_two_way_anova(n, k, seed):
    X = _matrix(n, k, seed)
    expected, fit = tukey_oracle(X)
    means, mse, df = multisys.two_way_anova(X)
    assert df == fit.df_resid == (k - 1) * (n - 1)
    assert mse == pytest.approx(fit.mse_resid, rel=1e-10)
    np.testing.assert_allclose(multisys.tukey_hsd(X), expected, rtol=1e-8, atol=1e-12)


def test_tukey_two_way_differs_from_one_way_when_topics_vary():
    """The topic effect is removed from the error term: statsmodels' one-way pairwise_tukeyhsd
    leaves it in and so finds fewer differences on IR-like data (topics dominate the variance)."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd
    X = _matrix(40, 4, 3, spread=0.03)
    one_way = pairwise_tukeyhsd(X.T.ravel(), np.repeat(np.arange(4), 40)).pvalues
    two_way = multisys.tukey_hsd(X)[np.triu_indices(4, 1)]
    assert (two_way <= one_way + 1e-9).all() and (two_way < one_way).any()


def test_studentized_range_grid_matches_scipy():
    """The interpolated tail (many pairs, small df) against scipy's value for every q."""
    q = np.linspace(0.0, 9.0, 200)
    direct = studentized_range.sf(q, 13, 108)
    fast = multisys.studentized_range_sf(q, 13, 108)
    np.testing.assert_allclose(fast, direct, rtol=2e-3, atol=1e-6)
    few = multisys.studentized_range_sf(q[:10], 13, 108)           # few values: scipy directly
    np.testing.assert_allclose(few, direct[:10], rtol=1e-12)


@pytest.mark.parametrize("n,k,B,seed", [(15, 4, 300, 0), (8, 6, 200, 5), (7, 5, 150, 3)])
def test_randomization_all_matches_naive_loop(n, k, B, seed):
    X = _matrix(n, k, seed)
    np.testing.assert_allclose(multisys.randomization_all(X, B, seed), naive_max_statistic(X, B, seed))


def test_permuted_column_sums_match_the_naive_draws():
    """The sums themselves (not only the p-values), on an odd n x k and several blocks."""
    X = _matrix(9, 7, 2)
    B = 3 * permute.block_rows(9, 7) + 5
    naive = np.array([[sum(X[t][p[t]][j] for t in range(9)) for j in range(7)] for p in naive_permutations(9, 7, B, 4)])
    np.testing.assert_allclose(permute.column_sums(X, B, 4), naive, rtol=1e-12)


def test_randomization_all_is_seeded_and_threads_do_not_matter(monkeypatch):
    X = _matrix(40, 5, 4)
    first = multisys.randomization_all(X, 500, 7)
    np.testing.assert_array_equal(first, multisys.randomization_all(X, 500, 7))
    assert not np.array_equal(first, multisys.randomization_all(X, 500, 8))
    for threads in (1, 2, 3):
        monkeypatch.setattr(permute, "THREADS", threads)
        np.testing.assert_array_equal(first, multisys.randomization_all(X, 500, 7))
    Y = _matrix(3000, 50, 1)                                   # big enough for many blocks of one resample
    np.testing.assert_array_equal(permute.column_sums(Y, 9, 3, threads=1), permute.column_sums(Y, 9, 3, threads=2))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_permutations_are_uniform_even_when_keys_tie(monkeypatch, k):
    """Keys cut to 2 random bits tie in most rows; rejecting those rows keeps every permutation
    equally likely (ordering tied keys by run index would favour the identity). Chi-square test."""
    real = permute._raw_keys
    _, ib = permute.layout(k)

    def coarse(gen, rows, cells, dtype):              # only the top 2 bits random
        return real(gen, rows, cells, dtype) & dtype(0xC0000000)
    monkeypatch.setattr(permute, "_raw_keys", coarse)
    P = permute.permutations(np.random.SeedSequence(11), 40, 500, k).reshape(-1, k)
    assert (np.sort(P, axis=1) == np.arange(k)).all()
    _, counts = np.unique(P, axis=0, return_counts=True)
    assert len(counts) == math.factorial(k)
    assert sp.chisquare(counts).pvalue > 1e-4


def test_permutations_beyond_256_runs_use_64_bit_keys():
    P = permute.permutations(np.random.SeedSequence(0), 2, 3, 300).reshape(-1, 300)
    assert permute.layout(300)[0] is np.uint64
    assert (np.sort(P, axis=1) == np.arange(300)).all() and len({tuple(r) for r in P}) == 6


def test_max_statistic_is_never_below_the_single_pair_test():
    X = _matrix(30, 6, 8)
    single = multisys.pairwise(X, "randomization", n_resamples=2000, seed=1)
    maxstat = multisys.randomization_all(X, 2000, 1)
    off = ~np.eye(6, dtype=bool)
    assert (maxstat[off] >= single[off] - 0.02).all()


def _pairs_oracle(X, fn):
    k = X.shape[1]
    a, b = np.triu_indices(k, 1)
    D = X[:, a] - X[:, b]
    return fn(D, np.ones_like(D, dtype=bool))


@pytest.mark.parametrize("test,oracle", [
    ("randomization", lambda D, m: stats.randomization_test(D, m, 700, 3)),
    ("bootstrap", lambda D, m: stats.bootstrap_test(D, m, 700, 3)),
])
def test_resampling_pairs_equal_core_stats_on_the_differences(test, oracle):
    X = _matrix(25, 5, 6)
    got = multisys.pairwise(X, test, n_resamples=700, seed=3)
    np.testing.assert_allclose(got[np.triu_indices(5, 1)], _pairs_oracle(X, oracle), rtol=1e-12)


@pytest.mark.parametrize("correction", ["none", "holm", "bh", "bonferroni"])
def test_t_pairs_with_correction_over_all_pairs(correction):
    X = _matrix(20, 4, 9)
    a, b = np.triu_indices(4, 1)
    raw = np.array([sp.ttest_rel(X[:, i], X[:, j]).pvalue for i, j in zip(a, b)])
    method = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}.get(correction)
    expected = raw if method is None else multipletests(raw, method=method)[1]
    got = multisys.pairwise(X, "t", correction)
    np.testing.assert_allclose(got[a, b], expected, rtol=1e-10)
    np.testing.assert_allclose(got[b, a], expected, rtol=1e-10)
    assert np.isnan(np.diag(got)).all()


def test_wilcoxon_pairs_equal_scipy():
    X = _matrix(20, 3, 10)
    got = multisys.pairwise(X, "wilcoxon")
    for i, j in itertools.combinations(range(3), 2):
        assert got[i, j] == pytest.approx(sp.wilcoxon(X[:, i] - X[:, j]).pvalue)


def test_identical_runs_are_never_different():
    X = _matrix(20, 3, 11)
    X = np.hstack([X, X[:, [0]]])
    for test in ("tukey", "randomization-all", "randomization", "bootstrap", "wilcoxon"):
        p = multisys.all_pairs(X, test, n_resamples=300)
        assert p[0, 3] == pytest.approx(1.0), test
    assert np.isnan(multisys.all_pairs(X, "t")[0, 3])       # scipy's ttest_rel: 0 / 0 (letters read NaN as 'not different')


def test_incomplete_matrix_is_refused():
    X = _matrix(5, 3)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="complete topics x runs matrix"):
        multisys.tukey_hsd(X)


def test_t_pairs_from_the_covariance_equal_scipy_also_for_near_identical_runs():
    """The covariance shortcut against scipy's ttest_rel on every pair, with an identical run, a run
    that differs by 1e-9 on every topic and one that differs on a single topic."""
    X = _matrix(40, 4, 12)
    near = X[:, [0]] + 1e-9 * np.random.default_rng(1).standard_normal((40, 1))
    one = X[:, [1]].copy()
    one[7] += 0.25
    X = np.hstack([X, X[:, [0]], near, one])
    got = multisys.pairwise(X, "t")
    for i, j in itertools.combinations(range(X.shape[1]), 2):
        expected = sp.ttest_rel(X[:, i], X[:, j]).pvalue
        if np.isnan(expected):
            assert np.isnan(got[i, j]), (i, j)
        else:
            assert got[i, j] == pytest.approx(expected, rel=1e-6, abs=1e-300), (i, j)
