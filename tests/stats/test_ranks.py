"""Rank intervals against a naive bootstrap loop; compact letters against a brute-force check."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from core.stats import multisys
from core.stats import ranks
from core.stats import paired as stats


def _matrix(n=40, k=6, seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(rng.random(n)[:, None] + 0.03 * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, k)), 0, 1)


def _naive_intervals(X, B, seed):
    """One resample at a time: draw n topic indices, rank the runs' means (ties: best rank)."""
    rng = np.random.default_rng(seed)
    n, k = X.shape
    drawn = []
    for _ in range(B):
        idx = rng.integers(0, n, size=n)
        drawn.append(rankdata(-X[idx].mean(axis=0), method="min"))
    drawn = np.array(drawn)
    low = [np.quantile(drawn[:, j], 0.025, method="inverted_cdf") for j in range(k)]
    high = [np.quantile(drawn[:, j], 0.975, method="inverted_cdf") for j in range(k)]
    return rankdata(-X.mean(axis=0), method="min"), np.array(low), np.array(high)


@pytest.mark.parametrize("n,k,B,seed", [(40, 6, 400, 0), (15, 3, 250, 4), (60, 10, 300, 2)])
def test_rank_intervals_match_naive_bootstrap(n, k, B, seed):
    X = _matrix(n, k, seed)
    got = ranks.rank_intervals(X, B, seed)
    for g, e in zip(got, _naive_intervals(X, B, seed)):
        np.testing.assert_array_equal(g, e)


def test_rank_intervals_do_not_depend_on_blocks(monkeypatch):
    X = _matrix(30, 5, 1)
    first = ranks.rank_intervals(X, 300, 9)
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 100)
    for a, b in zip(first, ranks.rank_intervals(X, 300, 9)):
        np.testing.assert_array_equal(a, b)


def test_clearly_separated_runs_have_exact_ranks():
    X = np.tile(np.array([0.9, 0.5, 0.1]), (20, 1)) + np.random.default_rng(0).normal(0, 0.001, (20, 3))
    rank, low, high = ranks.rank_intervals(X, 200, 0)
    assert rank.tolist() == low.tolist() == high.tolist() == [1, 2, 3]
    assert ranks.format_rank(2, 1, 4) == "2 (1–4)"


def _brute_force(letters, p, alpha):
    k = len(letters)
    for i, j in itertools.combinations(range(k), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        different = p[i, j] < alpha
        assert not (share and different), f"runs {i} and {j} share a letter but p = {p[i, j]}"
        assert share or different, f"runs {i} and {j} are not different (p = {p[i, j]}) but share no letter"
    assert all(letters), "every run gets a letter"


@settings(max_examples=150, deadline=None)
@given(k=st.integers(1, 9), data=st.data())
def test_letters_on_any_significance_pattern(k, data):
    bits = data.draw(st.lists(st.booleans(), min_size=k * (k - 1) // 2, max_size=k * (k - 1) // 2))
    p = np.full((k, k), np.nan)
    for (i, j), sig in zip(itertools.combinations(range(k), 2), bits):
        p[i, j] = p[j, i] = 0.001 if sig else 0.5
    means = np.array(data.draw(st.lists(st.floats(0, 1), min_size=k, max_size=k)))
    _brute_force(ranks.compact_letters(means, p, 0.05), p, 0.05)


@pytest.mark.parametrize("test", ["tukey", "randomization-all", "t", "wilcoxon"])
def test_letters_on_real_tests(test):
    X = _matrix(50, 8, 3)
    p = multisys.all_pairs(X, test, correction="holm", n_resamples=500)
    letters = ranks.compact_letters(X.mean(axis=0), p, 0.05)
    _brute_force(letters, p, 0.05)
    assert "a" in letters[int(np.argmax(X.mean(axis=0)))]


def test_letters_of_a_textbook_pattern():
    """Means 1 > 2 > 3 > 4; only (1, 3), (1, 4) and (2, 4) differ: letters a, ab, bc, c."""
    p = np.full((4, 4), 0.5)
    for i, j in [(0, 2), (0, 3), (1, 3)]:
        p[i, j] = p[j, i] = 0.01
    assert ranks.compact_letters([0.4, 0.3, 0.2, 0.1], p, 0.05) == ["a", "ab", "bc", "c"]
    assert ranks.compact_letters([0.4, 0.3, 0.2, 0.1], np.full((4, 4), 0.5), 0.05) == ["a"] * 4
