"""core.engine.stage2.sorted_codes (the summary's grouping by run name) against its plain equivalent np.unique, the
per-query table's text columns (`tiled`, `repeated`) against np.tile / np.repeat, and `by_ranking` against its
stable sort."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.finish import sorted_codes
from core.engine.stage2 import by_ranking, repeated, tiled


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sorted_codes_equal_np_unique(seed):
    rng = np.random.default_rng(seed)
    names = np.array(["run10", "run2", "Run_b", "ä-run", "", "run2 ", "z"], dtype=object)
    values = names[rng.integers(0, len(names), size=5000)]
    got_names, got_inverse = sorted_codes(values)
    names_np, inverse_np = np.unique(values, return_inverse=True)
    assert got_names.tolist() == names_np.tolist()
    np.testing.assert_array_equal(got_inverse, inverse_np)


def test_sorted_codes_of_one_value():
    names, inverse = sorted_codes(np.array(["a"], dtype=object))
    assert names.tolist() == ["a"] and inverse.tolist() == [0]


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(TEXT, st.none()), max_size=30), times=st.integers(0, 4))
def test_tiled_text_equals_np_tile(values, times):
    column = np.array(values, dtype=object)
    pd.testing.assert_frame_equal(pd.DataFrame({"c": tiled(column, times)}), pd.DataFrame({"c": np.tile(column, times)}))


@settings(max_examples=60, deadline=None)
@given(names=st.lists(TEXT, max_size=6), count=st.integers(0, 5))
def test_repeated_names_equal_np_repeat(names, count):
    plain = np.repeat(np.array(names, dtype=object), count)
    pd.testing.assert_frame_equal(pd.DataFrame({"m": repeated(names, count)}), pd.DataFrame({"m": plain}))


def test_tiled_keeps_values_that_are_not_text_as_numpy_would():
    column = np.array([1, 2, 3], dtype=object)
    pd.testing.assert_frame_equal(pd.DataFrame({"c": tiled(column, 2)}), pd.DataFrame({"c": np.tile(column, 2)}))
    mixed = np.array(["a", 1], dtype=object)
    pd.testing.assert_frame_equal(pd.DataFrame({"c": tiled(mixed, 2)}), pd.DataFrame({"c": np.tile(mixed, 2)}))


def _order(perm, n):
    return np.arange(n) if isinstance(perm, slice) else perm


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 8)), max_size=40))
def test_by_ranking_equals_the_stable_sort(rows):
    """Repeated (ranking, rank) pairs included: there the unstable sort must not reorder equal keys."""
    g = np.array([r[0] for r in rows], dtype=np.int64)
    rank = np.array([r[1] for r in rows], dtype=np.int64)
    np.testing.assert_array_equal(_order(by_ranking(g, rank), len(g)), _order(by_ranking(g, rank, stable=True), len(g)))


@pytest.mark.parametrize("repeats", [False, True])
def test_by_ranking_equals_the_stable_sort_on_large_shuffled_rankings(repeats):
    """200 rankings of up to 1,000 ranks, rows shuffled (numpy's SIMD sort only runs on long arrays); with
    `repeats`, some (ranking, rank) pairs twice."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 1000, size=200)
    g = np.repeat(np.arange(200), sizes)
    rank = np.concatenate([np.arange(1, k + 1) for k in sizes])
    if repeats:
        rank[rng.integers(0, len(rank), size=50)] = 1
    shuffle = rng.permutation(len(g))
    g, rank = g[shuffle], rank[shuffle]
    fast, plain = by_ranking(g, rank), by_ranking(g, rank, stable=True)
    np.testing.assert_array_equal(fast, plain)
    key = g[fast] * 1001 + rank[fast]
    assert np.all(key[1:] >= key[:-1])
