"""core.stage2.sorted_codes (the summary's grouping by run name) against its plain equivalent np.unique."""
from __future__ import annotations

import numpy as np
import pytest

from core.stage2 import sorted_codes


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
