"""core.stats: the resampling tests against exact enumeration, and the edge cases."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from core import stats
from core.errors import EvalError


def _exact_randomization_p(d: np.ndarray) -> float:
    """Every one of the 2^n sign flips, enumerated (the exact permutation distribution)."""
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    sums = signs @ d
    return float(np.mean(np.abs(sums) >= abs(d.sum()) - 1e-12))


def test_randomization_matches_exact_enumeration_for_several_columns_at_once():
    rng = np.random.default_rng(3)
    D = np.column_stack([rng.normal(0.05 * k, 0.2, 12) for k in range(6)])
    mask = np.ones_like(D, dtype=bool)
    mask[:3, 2] = False  # column 2 pairs only 9 queries
    p = stats.randomization_test(D, mask, n_resamples=40_000, seed=1)
    for c in range(D.shape[1]):
        exact = _exact_randomization_p(D[mask[:, c], c])
        assert p[c] == pytest.approx(exact, abs=0.01), c  # Monte Carlo error at 40k: sd <= 0.0025


def test_randomization_p_is_b_plus_one_over_n_plus_one_and_never_zero():
    D = np.full((30, 1), 0.5)  # every sign pattern but the observed one (and its mirror) is smaller
    p = stats.randomization_test(D, np.ones_like(D, dtype=bool), n_resamples=999, seed=0)
    assert p[0] == pytest.approx(1 / 1000)  # b = 0 unless a draw hits all + or all - (2 / 2^30)
    zeros = np.zeros((10, 1))
    assert stats.randomization_test(zeros, np.ones_like(zeros, dtype=bool), 500, 0)[0] == 1.0
    empty = stats.randomization_test(zeros, np.zeros_like(zeros, dtype=bool), 500, 0)
    assert np.isnan(empty[0])


def test_randomization_blocks_cover_every_resample(monkeypatch):
    D = np.random.default_rng(0).normal(0.02, 0.1, (50, 3))
    mask = np.ones_like(D, dtype=bool)
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 50 * 7)  # 7 resamples per block, 1000 = 142 blocks + 6
    p = stats.randomization_test(D, mask, n_resamples=1000, seed=2)
    b = np.round(p * 1001 - 1)
    assert np.allclose(p, (b + 1) / 1001) and (b <= 1000).all() and (b >= 0).all()


def test_bootstrap_means_are_means_of_resamples_and_seeded():
    X = np.arange(20, dtype=float).reshape(10, 2)
    a = stats._bootstrap_means(X, 300, seed=5)
    assert a.shape == (300, 2) and np.array_equal(a, stats._bootstrap_means(X, 300, seed=5))
    assert a.min() >= 0 and a.max() <= 19
    assert abs(a[:, 0].mean() - X[:, 0].mean()) < 0.5  # resample means centre on the mean
    low, high = stats.bootstrap_ci(X, np.ones_like(X, dtype=bool), 2000, 0)
    assert (low < X.mean(axis=0)).all() and (X.mean(axis=0) < high).all()


def test_cohens_d_wilcoxon_and_correction_edge_cases():
    d = np.array([0.1, 0.3, 0.2, 0.4])
    assert stats.cohens_d(d) == pytest.approx(0.25 / np.sqrt(((d - 0.25) ** 2).sum() / 3))
    assert np.isnan(stats.cohens_d(np.array([0.2, 0.2])))
    assert stats.wilcoxon(np.zeros(5)) == 1.0
    out = stats.correct([0.01, np.nan, 0.04], "bonferroni")
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.08)
    with pytest.raises(ValueError, match="unknown correction") as info:
        stats.correct([0.1], "sidak")
    assert isinstance(info.value, EvalError)  # pages catch RankboardError only
