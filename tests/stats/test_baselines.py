"""core.stats.baselines.report: several baselines corrected together, ranks and risk in the records."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from core.stats.baselines import report
from core.stats.compare import compare
from core.stats.riskeval import risk_table


def _per_query(n=25, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.clip(rng.random(n)[:, None] + 0.06 * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, k)), 0, 1)
    rows = [(f"r{j}", f"q{t:02d}", m, X[t, j] * w) for t in range(n) for j in range(k)
            for m, w in (("AP", 1.0), ("P@10", 0.7))]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def test_one_baseline_without_extras_is_the_comparison():
    pq = _per_query()
    rep = report(pq, baselines=["r0"], correction="holm")
    c = compare(pq, baseline="r0", correction="holm")
    assert rep.to_records() == c.to_records()
    assert rep.to_text() == c.to_text() and rep.to_csv() == c.to_csv() and rep.to_latex() == c.to_latex()


def test_several_baselines_are_corrected_over_every_test():
    pq = _per_query()
    rep = report(pq, baselines=["r0", "r1"], correction="holm")
    records = rep.to_records()
    assert {r["baseline"] for r in records} == {"r0", "r1"}
    tested = [r for r in records if r["run"] != r["baseline"]]
    assert len(tested) == 2 * 3 * 2                           # 2 baselines x 3 other runs x 2 measures
    raw = [compare(pq, baseline=b).row(r["run"], r["measure"]).p_value
           for b in ("r0", "r1") for r in tested if r["baseline"] == b]
    expected = multipletests(raw, method="holm")[1]
    assert [r["p_corrected"] for r in tested] == pytest.approx(list(expected))
    assert "each of 2 baselines" in rep.to_text() and "over all 12 tests" in rep.legend()


def test_ranks_and_risk_keys():
    pq = _per_query()
    rep = report(pq, baselines=["r0"], ranks=True, risk="trisk", alpha_risk=2, n_resamples=400)
    records = rep.to_records()
    base = [r for r in records if r["run"] == "r0"]
    others = [r for r in records if r["run"] != "r0"]
    assert all({"rank", "rank_low", "rank_high", "group"} <= set(r) for r in records)
    assert all({"urisk", "trisk", "georisk"} <= set(r) for r in others)
    assert not any("urisk" in r for r in base)
    expected = risk_table(pq, baselines=["r0"], measures=["AP", "P@10"], alpha=2)
    row = expected[(expected["run"] == "r2") & (expected["measure"] == "AP")].iloc[0]
    got = next(r for r in others if r["run"] == "r2" and r["measure"] == "AP")
    assert got["trisk"] == pytest.approx(row["trisk"]) and got["urisk"] == pytest.approx(row["urisk"])
    header = rep.to_text().splitlines()[0].split()
    assert header.index("trisk") < header.index("urisk")      # --risk trisk shows TRisk first


@pytest.mark.parametrize("test", ["tukey", "randomization-all"])
def test_multi_system_test_p_values_are_the_all_pairs_cells(test):
    from core.stats import multisys
    from tests.oracle_stats import tukey_oracle
    pq = _per_query(20, 4, 3)
    pq = pq[~((pq["run"] == "r2") & (pq["qid"] == "q05"))]              # r2 lacks a topic: 19 shared
    c = compare(pq, baseline="r1", test=test, measures=["AP"], n_resamples=500)
    wide = pq[pq["measure"] == "AP"].pivot(index="qid", columns="run", values="value").dropna()
    X = wide[["r0", "r1", "r2", "r3"]].to_numpy()                       # the runs in name order
    expected = tukey_oracle(X)[0] if test == "tukey" else multisys.randomization_all(X, 500, 0)
    assert [c.row(r, "AP").p_value for r in ("r0", "r2", "r3")] == pytest.approx(list(expected[1, [0, 2, 3]]),
                                                                               rel=1e-8)
    assert c.row("r0", "AP").p_corrected == c.row("r0", "AP").p_value      # no further correction by default
    rep = report(pq, baselines=["r1", "r3"], measures=["AP"], test=test, n_resamples=500)
    assert rep.comparisons[0].row("r2", "AP").p_value == pytest.approx(expected[1, 2], rel=1e-8)
    assert rep.comparisons[1].row("r0", "AP").p_value == pytest.approx(expected[3, 0], rel=1e-8)
    assert "over every pair" in c.legend()


def test_in_order_lists_the_runs_in_the_order_given_and_changes_no_number():
    pq = _per_query()
    rep = report(pq, baselines=["r0", "r2"], correction="holm", ranks=True)
    order = ["r3", "r2", "r1", "r0"]                          # e.g. a table's rank order
    moved = rep.in_order(order)
    for c in moved.comparisons:
        assert list(c.runs) == order
        assert [r.run for r in c.rows] == [run for run in order for _ in c.measures]
        assert [r.measure for r in c.rows[:2]] == list(c.measures)
    latex = moved.comparisons[0].to_latex()
    assert [latex.index(f"\n{r}") for r in order] == sorted(latex.index(f"\n{r}") for r in order)
    key = ["baseline", "run", "measure"]
    assert moved.to_dataframe().sort_values(key).reset_index(drop=True).equals(
        rep.to_dataframe().sort_values(key).reset_index(drop=True))
    assert list(dict.fromkeys(moved.to_dataframe()["run"])) == order
    assert [r.run for r in rep.comparisons[0].in_order(["r2"]).rows][::2] == ["r2", "r0", "r1", "r3"]
