"""URisk, TRisk and GeoRisk: a worked example computed by hand, and GeoRisk against a plain loop
over the definitions of Dinçer, Macdonald & Ounis (SIGIR 2016)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.stats import risk
from core.stats import docs as statdocs
from core.errors import OptionError

# Worked example, alpha = 1. run - baseline over 4 topics:
#   delta = [+0.2, -0.1, +0.3, -0.2]
#   f     = [+0.2, -0.2, +0.3, -0.4]              (losses doubled)
#   URisk = (0.2 - 0.2 + 0.3 - 0.4) / 4 = -0.025
#   sd(f, ddof=1): deviations 0.225, -0.175, 0.325, -0.375; squares 0.050625, 0.030625, 0.105625,
#   0.140625; sum 0.3275; / 3 = 0.1091666...; sd = 0.330403...
#   SE = sd / 2 = 0.1652019...;  TRisk = -0.025 / 0.1652019 = -0.151330...
RUN = np.array([0.5, 0.3, 0.6, 0.1])
BASE = np.array([0.3, 0.4, 0.3, 0.3])


def test_urisk_trisk_worked_example():
    u, t = risk.urisk_trisk((RUN - BASE)[:, None], np.ones((4, 1), bool), alpha=1)
    assert u[0] == pytest.approx(-0.025)
    se = math.sqrt(0.3275 / 3) / 2
    assert t[0] == pytest.approx(-0.025 / se) and t[0] == pytest.approx(-0.151330, abs=1e-6)


def test_alpha_zero_is_the_mean_difference_and_its_t_statistic():
    from scipy.stats import ttest_rel
    u, t = risk.urisk_trisk((RUN - BASE)[:, None], np.ones((4, 1), bool), alpha=0)
    assert u[0] == pytest.approx((RUN - BASE).mean())
    assert t[0] == pytest.approx(ttest_rel(RUN, BASE).statistic)


def test_mask_leaves_topics_out():
    D = np.array([[0.2, 0.2], [-0.1, -0.1], [0.3, 0.3], [-0.2, 5.0]])
    mask = np.array([[1, 1], [1, 1], [1, 1], [1, 0]], bool)
    u, t = risk.urisk_trisk(D, mask, alpha=2)
    assert u[0] == pytest.approx((0.2 - 0.3 + 0.3 - 0.6) / 4)
    assert u[1] == pytest.approx((0.2 - 0.3 + 0.3) / 3)


def test_contributions_sum_to_trisk():
    c = risk.trisk_contributions(RUN - BASE, alpha=1)
    _, t = risk.urisk_trisk((RUN - BASE)[:, None], np.ones((4, 1), bool), alpha=1)
    assert c.sum() == pytest.approx(t[0])
    assert (np.sign(c) == np.sign(RUN - BASE)).all()


def _georisk_loop(X, alpha):
    c, k = X.shape
    N = sum(X[t, i] for t in range(c) for i in range(k))
    out = []
    for i in range(k):
        S = sum(X[t, i] for t in range(c))
        z_risk = 0.0
        for t in range(c):
            T = sum(X[t, j] for j in range(k))
            e = S * T / N
            z = (X[t, i] - e) / math.sqrt(e) if e > 0 else 0.0
            z_risk += z if z >= 0 else (1 + alpha) * z
        phi = 0.5 * (1 + math.erf(z_risk / c / math.sqrt(2)))
        out.append(math.sqrt(S / c * phi))
    return np.array(out)


@pytest.mark.parametrize("alpha", [0, 1, 5])
def test_georisk_matches_the_definition(alpha):
    X = np.random.default_rng(alpha).random((12, 4))
    X[3] = 0.0                                   # a topic no run scores on: e = 0, z = 0
    np.testing.assert_allclose(risk.georisk(X, alpha), _georisk_loop(X, alpha), rtol=1e-12)


def test_georisk_hand_example():
    # two runs, two topics: X = [[1, 0], [1, 1]]; N = 3, S = (2, 1), T = (1, 2)
    # run 0: e = (2/3, 4/3); z = (1/3)/sqrt(2/3), (-1/3)/sqrt(4/3) -> ZRisk(alpha=1) = 0.408248 - 0.577350
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    z0 = (1 / 3) / math.sqrt(2 / 3) + 2 * (-1 / 3) / math.sqrt(4 / 3)
    expected0 = math.sqrt(2 / 2 * 0.5 * (1 + math.erf(z0 / 2 / math.sqrt(2))))
    assert risk.georisk(X, 1)[0] == pytest.approx(expected0)


def test_bad_alpha_and_negative_values_are_refused():
    with pytest.raises(OptionError, match="alpha must be a number of 0 or more"):
        risk.weighted([0.1], -1)
    with pytest.raises(OptionError, match="0 or more"):
        risk.georisk(np.array([[-0.1, 0.2]]), 1)


@pytest.mark.parametrize("entry", statdocs.STATISTICS, ids=[s.name for s in statdocs.STATISTICS])
def test_every_statistic_is_documented_and_exists(entry):
    import importlib
    module, function = entry.function.split(":")
    assert callable(getattr(importlib.import_module(module), function))
    assert entry.formula.strip() and entry.reference.strip() and "\n" not in entry.description
    assert entry.kind in ("rank resolution", "all-pairs test", "risk")


def _pq():
    import pandas as pd
    rows = []
    for t, (r, b, o) in enumerate(zip(RUN, BASE, [0.2, 0.2, 0.2, 0.2])):
        rows += [("run", f"q{t}", "AP", r), ("base", f"q{t}", "AP", b), ("other", f"q{t}", "AP", o)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def test_risk_table_uses_the_worked_example_and_every_baseline():
    from core.stats.riskeval import risk_table
    table = risk_table(_pq(), baselines=["base", "other"], measures=["AP"], alpha=1)
    row = table[(table["baseline"] == "base") & (table["run"] == "run")].iloc[0]
    assert row["urisk"] == pytest.approx(-0.025) and row["trisk"] == pytest.approx(-0.151330, abs=1e-6)
    assert len(table) == 4 and set(table["baseline"]) == {"base", "other"}     # 2 runs against each of 2
    X = np.column_stack([RUN, BASE, np.full(4, 0.2)])
    assert row["georisk"] == pytest.approx(risk.georisk(X, 1)[0])


def test_contributions_frame_sums_to_trisk_and_skips_unpaired_topics():
    from core.stats.riskeval import contributions
    pq = _pq()
    pq = pq[~((pq["run"] == "run") & (pq["qid"] == "q0"))]
    c = contributions(pq, run="run", baseline="base", measure="AP", alpha=1)
    assert list(c["qid"]) == ["q3", "q1", "q2"]
    _, t = risk.urisk_trisk((RUN - BASE)[1:, None], np.ones((3, 1), bool), alpha=1)
    assert c["contribution"].sum() == pytest.approx(t[0])


def test_contributions_of_the_baseline_itself_and_of_an_unknown_measure_are_empty():
    from core.stats.riskeval import contributions
    assert contributions(_pq(), run="base", baseline="base", measure="AP").empty
    assert contributions(_pq(), run="run", baseline="base", measure="nDCG").empty
