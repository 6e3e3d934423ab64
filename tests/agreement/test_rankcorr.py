"""Kendall's tau and tau_AP on hand-worked orderings, and against scipy / a direct transcription."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from core.errors import EvalError
from core.agreement.rankcorr import correlation_table, kendall_tau, tau_ap

TRUTH = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}          # A > B > C > D


@pytest.mark.parametrize("order,tau,ap", [
    # One adjacent swap among 4 systems: tau = (5 - 1) / 6 for all of them, but tau_AP
    # penalises a swap at the top more. tau_AP = 2/3 * sum_{i=2..4} C(i)/(i-1) - 1.
    ("ACBD", 2 / 3, 2 / 3 * (1 + 1 / 2 + 1) - 1),     # C(2)=1 (A), C(3)=1 of 2 (A, not C), C(4)=3 of 3
    ("BACD", 2 / 3, 2 / 3 * (0 + 1 + 1) - 1),         # B above A is wrong: C(2)=0 -> 1/3
    ("ABDC", 2 / 3, 2 / 3 * (1 + 1 + 2 / 3) - 1),     # C below D: C(4)=2 of 3 -> 7/9
    ("ABCD", 1.0, 1.0),
    ("DCBA", -1.0, -1.0),
])
def test_hand_worked_orderings(order, tau, ap):
    scores_b = {name: float(len(order) - i) for i, name in enumerate(order)}
    assert kendall_tau(TRUTH, scores_b) == pytest.approx(tau)
    assert tau_ap(TRUTH, scores_b) == pytest.approx(ap)


def test_tau_ap_is_asymmetric_and_top_weighted():
    b = {"A": 3.0, "B": 4.0, "C": 2.0, "D": 1.0}              # swap at the top
    c = {"A": 4.0, "B": 3.0, "C": 1.0, "D": 2.0}              # swap at the bottom
    assert tau_ap(TRUTH, b) < tau_ap(TRUTH, c)
    x = {"A": 4.0, "B": 2.0, "C": 3.0, "D": 1.0, "E": 0.0}
    y = {"A": 1.0, "B": 4.0, "C": 3.0, "D": 2.0, "E": 0.0}
    assert tau_ap(x, y) != pytest.approx(tau_ap(y, x))


def _tau_ap_loop(truth: dict, est: dict) -> float:
    """Direct transcription of Yilmaz et al. (2008), eq. 2, for tie-free inputs (test oracle)."""
    order = sorted(est, key=lambda s: -est[s])
    total = 0.0
    for i in range(1, len(order)):
        correct = sum(truth[order[j]] > truth[order[i]] for j in range(i))
        total += correct / i
    return 2.0 / (len(order) - 1) * total - 1.0


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(8))), st.permutations(list(range(8))))
def test_matches_scipy_and_the_paper_on_random_permutations(p, q):
    names = [f"s{i}" for i in range(8)]
    a = dict(zip(names, map(float, p)))
    b = dict(zip(names, map(float, q)))
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(p, q).statistic)
    assert tau_ap(a, b) == pytest.approx(_tau_ap_loop(a, b))
    assert -1.0 <= tau_ap(a, b) <= 1.0


def test_ties_and_alignment_by_system_name():
    a = {"x": 0.3, "y": 0.2, "z": 0.2, "w": 0.1}
    b = {"w": 0.1, "z": 0.25, "y": 0.2, "x": 0.3, "extra": 0.9}   # 'extra' is not in a: ignored
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau([0.3, 0.2, 0.2, 0.1], [0.3, 0.2, 0.25, 0.1]).statistic)
    # b lists x, z, y, w; y and z are tied in a, so each of them scores half a correct pair.
    assert tau_ap(a, b) == pytest.approx(2 / 3 * (1 + (1 + 0.5) / 2 + 3 / 3) - 1)
    with pytest.raises(EvalError):
        kendall_tau({"x": 1.0}, {"x": 2.0})


def test_correlation_table_covers_every_pair_of_sets():
    import pandas as pd
    scores = pd.DataFrame({"nist": [0.3, 0.2, 0.1], "b": [0.25, 0.3, 0.05], "c": [0.3, 0.2, 0.1]},
                          index=["r1", "r2", "r3"])
    table = correlation_table(scores)
    assert list(zip(table["a"], table["b"])) == [("nist", "b"), ("nist", "c"), ("b", "c")]
    assert table.loc[1, "kendall_tau"] == pytest.approx(1.0) and table.loc[1, "tau_ap"] == pytest.approx(1.0)
    assert table.loc[0, "kendall_tau"] == pytest.approx(1 / 3)
    assert np.isfinite(table["tau_ap_reversed"]).all()
