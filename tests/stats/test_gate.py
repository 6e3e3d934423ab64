"""core.stats.gate on small per-query tables built here: the verdict rules, the delta's intervals, and the Gate's
formats (escaping in Markdown and JUnit)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.errors import EvalError
from core.stats.gate import gate


def _table(values: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """{run: {measure: per-topic values}} -> the long per-query table, topics t0, t1, ..."""
    rows = [(run, f"t{i}", m, v) for run, by in values.items() for m, vs in by.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


RNG = np.random.default_rng(7)
BASE = RNG.uniform(0.2, 0.8, 40)
TABLE = _table({"base": {"AP": BASE, "P@10": BASE},
                "new": {"AP": BASE - 0.05 + RNG.normal(0, 0.02, 40), "P@10": BASE + RNG.normal(0, 0.02, 40)}})


def test_a_significant_drop_fails_and_an_insignificant_one_passes():
    g = gate(TABLE, new="new", baseline="base", correction="holm")
    ap, p10 = g.rows
    assert ap.verdict == "FAIL" and ap.delta < 0 and ap.p_corrected < 0.05 and g.failed == ["AP"]
    assert p10.verdict == "OK" and p10.p_corrected >= 0.05
    x, y = TABLE.query("run == 'new' and measure == 'AP'")["value"], TABLE.query("run == 'base' and measure == 'AP'")["value"]
    ci = stats.ttest_rel(x.to_numpy(), y.to_numpy()).confidence_interval(0.95)
    assert (ap.ci_low, ap.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert ap.baseline_mean == pytest.approx(BASE.mean()) and ap.new_mean == pytest.approx(x.mean())


def test_a_max_drop_and_a_significant_gain_are_not_failures():
    drop = -gate(TABLE, new="new", baseline="base").rows[0].delta
    assert gate(TABLE, new="new", baseline="base", max_drop={"map": drop + 1e-6}).passed
    assert gate(TABLE, new="base", baseline="new").passed        # the other way round it is a gain


def test_expected_means_use_the_tolerance():
    mean = TABLE.query("run == 'new' and measure == 'P@10'")["value"].mean()
    ok = gate(TABLE, new="new", baseline="base", measures=["P@10"], expected={"P_10": mean + 0.009}, tolerance=0.01)
    assert ok.passed and ok.rows[0].expected == pytest.approx(mean + 0.009)
    bad = gate(TABLE, new="new", baseline="base", measures=["P@10"], expected={"P@10": mean - 0.011}, tolerance=0.01)
    assert bad.failed == ["P@10"] and "outside the expected" in bad.rows[0].reasons[0]


def test_the_bootstrap_interval_is_seeded_and_holds_the_delta():
    a = gate(TABLE, new="new", baseline="base", test="randomization", n_resamples=2000, seed=3)
    b = gate(TABLE, new="new", baseline="base", test="randomization", n_resamples=2000, seed=3)
    assert a == b and all(r.ci_low < r.delta < r.ci_high for r in a.rows)


def test_topics_missing_from_the_new_run_are_not_paired():
    table = TABLE[~((TABLE["run"] == "new") & TABLE["qid"].isin(["t0", "t1"]))]
    row = gate(table, new="new", baseline="base", all_qids=sorted(TABLE["qid"].unique())).rows[0]
    assert row.n_queries == 38


@pytest.mark.parametrize("kwargs, words", [
    (dict(test="tukey"), "Unknown test 'tukey'"),
    (dict(new="base"), "both 'base'"),
    (dict(new="nope"), "The new run 'nope' has no per-query values"),
    (dict(max_drop={"P@10": -1}), "A --max-drop must be a number of 0 or more"),
    (dict(measures=["AP"], max_drop={"P@10": 0.1}), "--max-drop names P@10, which is not checked"),
    (dict(measures=["XYZ"]), "measure 'XYZ': Unknown measure"),
])
def test_bad_requests_are_eval_errors(kwargs, words):
    with pytest.raises(EvalError) as err:
        gate(TABLE, **{"new": "new", "baseline": "base", **kwargs})
    assert words in str(err.value)


def test_names_are_escaped_in_markdown_and_junit():
    table = TABLE.assign(run=TABLE["run"].map({"new": "new|<b>\x1b", "base": "base"}),
                         measure=TABLE["measure"].map({"AP": "AP", "P@10": "P@10"}))
    g = gate(table, new="new|<b>\x1b", baseline="base")
    md = g.to_markdown()
    assert "new\\|\\<b\\>" in md and "| AP |" in md
    root = ET.fromstring(g.to_junit().split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite.get("name") == "rankboard check new|<b>\\x1b" and suite.get("failures") == "1"
