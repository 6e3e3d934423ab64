"""core/analysis/pareto.py against the definition, written as a loop over pairs: a run is on the front when no
other run is at least as good on both axes and strictly better on one."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import dominated, pareto


def brute_force(x, y, x_better, y_better) -> list[bool]:
    sx, sy = (1 if x_better == "lower" else -1), (1 if y_better == "lower" else -1)
    out = []
    for i in range(len(x)):
        beaten = False
        for j in range(len(x)):
            if j != i and sx * x[j] <= sx * x[i] and sy * y[j] <= sy * y[i] and (
                    sx * x[j] < sx * x[i] or sy * y[j] < sy * y[i]):
                beaten = True
        out.append(beaten)
    return out


values = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=0, max_size=25)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(["lower", "higher"]), st.sampled_from(["lower", "higher"]))
def test_dominated_agrees_with_the_definition(points, x_better, y_better):
    x, y = [p[0] for p in points], [p[1] for p in points]       # small integers: many ties and duplicates
    assert dominated(x, y, x_better=x_better, y_better=y_better).tolist() == brute_force(x, y, x_better, y_better)


def test_a_worked_example():
    # latency (lower better) against nDCG@10: a is fastest, d best; b is beaten by c (faster and better)
    got = pareto(["a", "b", "c", "d", "e"], [5, 40, 30, 80, 80], [0.30, 0.40, 0.45, 0.50, 0.42],
                 cost="latency_ms", measure="nDCG@10")
    assert got.front == ["a", "c", "d"]
    assert got.points["run"].tolist() == ["a", "c", "d", "b", "e"]
    assert got.missing == [] and got.unmeasured == []


def test_runs_without_a_value_are_listed_not_dropped():
    got = pareto(["a", "b", "c", "d"], [10, None, math.nan, 20], [0.2, 0.9, 0.5, None], cost="cost_usd",
                 measure="AP")
    assert got.front == ["a"] and got.missing == ["b", "c"] and got.unmeasured == ["d"]


def test_equal_points_are_both_on_the_front():
    got = pareto(["a", "b"], [10, 10], [0.5, 0.5], cost="latency_ms", measure="AP")
    assert got.front == ["a", "b"]


def test_higher_better_cost_orders_the_front_from_the_best_cost():
    got = pareto(["a", "b", "c"], [1, 2, 3], [0.3, 0.2, 0.1], cost="throughput", measure="AP",
                 cost_better="higher")
    assert got.front == ["c", "b", "a"]


def test_no_runs():
    got = pareto([], [], [], cost="latency_ms", measure="AP")
    assert got.front == [] and got.missing == [] and dominated(np.array([]), np.array([])).tolist() == []


def test_a_bad_direction_is_refused():
    with pytest.raises(ValueError, match="better must be 'lower' or 'higher', not 'less' / 'higher'"):
        dominated([1], [1], x_better="less")
