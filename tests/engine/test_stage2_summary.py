"""core.engine.stage2.sorted_codes (the summary's grouping by run name) against its plain equivalent np.unique, and the
per-query table's text columns (`tiled`, `repeated`) against np.tile / np.repeat."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.finish import sorted_codes
from core.engine.stage2 import repeated, tiled


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
