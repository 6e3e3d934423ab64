"""core.stats.paired: the resampling tests against exact enumeration, and the edge cases."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.stats import paired as stats
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


# --- the vectorised bootstrap (one seeded draw of the rows shared by every column, whatever its mask)


def _masked_columns(seed: int = 11):
    """12 columns over 41 queries: groups of columns sharing a mask, one lone mask, one empty,
    one with a single query (many resamples draw none of it)."""
    rng = np.random.default_rng(seed)
    X = rng.gamma(2.0, 0.2, (41, 12))
    mask = np.ones_like(X, dtype=bool)
    mask[::5, 3:6] = False     # columns 3-5 share a mask
    mask[:9, 7] = False        # column 7 alone
    mask[:, 9] = False         # column 9 has no query
    mask[20:, 10:] = False     # columns 10-11 share a mask with 20 queries
    mask[1:, 8] = False        # column 8 has one query
    return X, mask


def _naive_means(x: np.ndarray, keep: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """The textbook bootstrap with the same draws, written out: resample b draws every one of the
    len(x) rows counts[b, i] times; the column's statistic is the plain mean of the drawn rows it
    has (np.repeat, no matrix product), NaN when it has none of them."""
    counts = np.vstack(list(stats._count_blocks(len(x), n_resamples, seed))).astype(int)
    assert counts.shape == (n_resamples, len(x)) and (counts.sum(axis=1) == len(x)).all()
    drawn = [np.repeat(x[keep], c[keep]) for c in counts]
    return np.array([d.mean() if len(d) else np.nan for d in drawn])


@pytest.mark.parametrize("block_cells", [None, 41 * 7])  # one block; 7 resamples per block
def test_bootstrap_ci_equals_a_naive_per_column_bootstrap_with_the_same_draws(monkeypatch, block_cells):
    if block_cells:
        monkeypatch.setattr(stats, "_BLOCK_CELLS", block_cells)
    X, mask = _masked_columns()
    low, high = stats.bootstrap_ci(X, mask, n_resamples=500, seed=4)
    for c in range(X.shape[1]):
        if not mask[:, c].any():
            assert np.isnan(low[c]) and np.isnan(high[c])
            continue
        means = _naive_means(X[:, c], mask[:, c], 500, 4)
        assert np.isnan(means).any() == (c == 8)   # only the one-query column misses resamples
        ref_low, ref_high = np.quantile(means[~np.isnan(means)], [0.025, 0.975])
        assert abs(low[c] - ref_low) < 1e-12 and abs(high[c] - ref_high) < 1e-12, c


def test_a_full_column_gets_the_textbook_bootstrap_of_its_own_queries():
    """Columns with every query are resampled exactly as before masks were shared: counts from
    _count_blocks(n), mean = C @ x / n, whatever the other columns' masks are."""
    X, mask = _masked_columns(15)
    low, high = stats.bootstrap_ci(X, mask, n_resamples=400, seed=6)
    alone = stats.bootstrap_ci(X[:, :3], np.ones((41, 3), dtype=bool), n_resamples=400, seed=6)
    assert np.allclose(low[:3], alone[0], rtol=0, atol=1e-12) and np.allclose(high[:3], alone[1], rtol=0, atol=1e-12)
    means = stats._bootstrap_means(X[:, :1], 400, 6)[:, 0]
    assert np.allclose(means, _naive_means(X[:, 0], np.ones(41, dtype=bool), 400, 6), rtol=0, atol=1e-12)


def test_a_partial_column_agrees_with_the_bootstrap_of_its_own_queries():
    """Resampling the whole query set and averaging the drawn queries a column has estimates the
    same sampling distribution as resampling only its own queries: same centre, same width up to
    Monte Carlo and the small extra spread of a random number of drawn queries."""
    rng = np.random.default_rng(21)
    x = rng.gamma(2.0, 0.2, 400)
    keep = np.ones(400, dtype=bool)
    keep[::4] = False                      # the column lacks a quarter of the queries
    shared = stats.bootstrap_ci(x[:, None], keep[:, None], 8000, seed=1)
    own = stats.bootstrap_ci(x[keep][:, None], np.ones((keep.sum(), 1), dtype=bool), 8000, seed=1)
    width, own_width = shared[1][0] - shared[0][0], own[1][0] - own[0][0]
    assert shared[0][0] < x[keep].mean() < shared[1][0]
    assert abs(width / own_width - 1) < 0.08
    assert abs((shared[0][0] + shared[1][0]) / 2 - (own[0][0] + own[1][0]) / 2) < 0.1 * own_width


def test_bootstrap_test_equals_a_naive_per_column_bootstrap_with_the_same_draws():
    X, mask = _masked_columns(12)
    D = X - 0.4
    p = stats.bootstrap_test(D, mask, n_resamples=700, seed=9)
    for c in range(D.shape[1]):
        d = D[mask[:, c], c]
        if len(d) == 0:
            assert np.isnan(p[c])
            continue
        means = _naive_means(D[:, c], mask[:, c], 700, 9)
        valid = means[~np.isnan(means)]
        b = np.sum(np.abs(valid - d.mean()) >= abs(d.mean()) - 1e-10 * np.abs(d).mean())
        assert p[c] == pytest.approx((b + 1) / (len(valid) + 1), abs=1e-12), c
        assert (len(valid) < 700) == (c == 8)


def test_ci_and_test_from_one_draw_equal_the_separate_calls():
    X, mask = _masked_columns(13)
    D, dmask = X[:, :8] - X[:, [0]], mask[:, :8] & mask[:, [0]]
    low, high, p = stats.bootstrap_ci_and_test(X, mask, D, dmask, n_resamples=600, seed=2)
    sep_low, sep_high = stats.bootstrap_ci(X, mask, 600, 2)
    nan_eq = dict(atol=1e-12, rtol=0, equal_nan=True)
    assert np.allclose(low, sep_low, **nan_eq) and np.allclose(high, sep_high, **nan_eq)
    assert np.allclose(p, stats.bootstrap_test(D, dmask, 600, 2), **nan_eq)


def test_bootstrap_ci_is_seeded_contains_the_mean_and_shrinks_with_more_queries():
    rng = np.random.default_rng(0)
    V = rng.random((400, 3))
    mask = np.ones_like(V, dtype=bool)
    a = stats.bootstrap_ci(V, mask, 2000, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, stats.bootstrap_ci(V, mask, 2000, seed=3)))
    assert not np.array_equal(a[0], stats.bootstrap_ci(V, mask, 2000, seed=4)[0])
    assert ((a[0] < V.mean(axis=0)) & (V.mean(axis=0) < a[1])).all()
    V4 = np.tile(V, (4, 1))  # the same spread, four times the queries: half the width
    b = stats.bootstrap_ci(V4, np.ones_like(V4, dtype=bool), 2000, seed=3)
    ratio = (b[1] - b[0]) / (a[1] - a[0])
    assert ((0.4 < ratio) & (ratio < 0.6)).all()


def test_count_blocks_do_not_depend_on_the_block_size(monkeypatch):
    whole = np.vstack(list(stats._count_blocks(30, 100, seed=1)))
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 30 * 7)
    blocks = list(stats._count_blocks(30, 100, seed=1))
    assert len(blocks) == 15 and np.array_equal(np.vstack(blocks), whole)


@pytest.mark.parametrize("n, count_cells", [(30, 30 * 7), (30, 31), (30, 1), (5000, 1 << 18), (7, 1 << 18)])
def test_counting_in_pieces_equals_one_bincount_per_block(monkeypatch, n, count_cells):
    """_count_blocks counts each block's draws _COUNT_CELLS at a time; the plain way counts a block at once."""
    monkeypatch.setattr(stats, "_COUNT_CELLS", 1 << 40)
    whole = list(stats._count_blocks(n, 450, seed=3))
    monkeypatch.setattr(stats, "_COUNT_CELLS", count_cells)
    pieces = list(stats._count_blocks(n, 450, seed=3))
    assert len(pieces) == len(whole) and all(np.array_equal(a, b) for a, b in zip(pieces, whole))
    assert all(np.all(b.sum(axis=1) == n) for b in pieces)


def test_mask_groups_cover_every_column_once_in_first_seen_order():
    _, mask = _masked_columns()
    groups = [(rows.tolist(), cols.tolist()) for rows, cols in stats._mask_groups(mask)]
    assert [cols for _, cols in groups] == [[0, 1, 2, 6], [3, 4, 5], [7], [8], [9], [10, 11]]
    for rows, cols in groups:
        assert all(np.flatnonzero(mask[:, c]).tolist() == rows for c in cols)


def test_paired_t_columns_equal_one_scipy_call_per_column():
    X, mask = _masked_columns(14)
    Y = np.random.default_rng(1).gamma(2.0, 0.2, X.shape)
    mask[1:, 8] = False  # one query: no t-test
    p = stats.paired_t_columns(X, Y, mask)
    for c in range(X.shape[1]):
        one = stats.paired_t(X[mask[:, c], c], Y[mask[:, c], c])
        assert (np.isnan(one) and np.isnan(p[c])) or p[c] == pytest.approx(one, rel=1e-12, abs=1e-15), c
