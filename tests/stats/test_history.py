"""core.stats.history against its oracles: scipy's t interval, ttest_rel and wilcoxon on the topics both versions
have, statsmodels' multipletests over the steps shown, and a plain sign-flip count for the randomisation test."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from core.errors import EvalError
from core.stats.history import DOWN, UP, history, moved_topics

RNG = np.random.default_rng(7)
TOPICS = [str(301 + i) for i in range(30)]


def _table() -> tuple[pd.DataFrame, dict]:
    """System A: v1, v2 (+0.2 on every topic: significant), v3 (noise), v4 missing five topics; system B: two
    versions, equal."""
    base = RNG.uniform(0.1, 0.6, len(TOPICS))
    runs = {"a1": base, "a2": base + 0.2 + RNG.normal(0, 0.02, len(TOPICS)),
            "a3": base + 0.2 + RNG.normal(0, 0.05, len(TOPICS)), "a4": base + RNG.normal(0, 0.05, len(TOPICS)),
            "b1": base, "b2": base.copy()}
    rows = [(run, q, "AP", float(v)) for run, vals in runs.items() for q, v in zip(TOPICS, vals)
            if not (run == "a4" and q in TOPICS[:5])]
    rows += [(run, q, "P@10", 0.5) for run in runs for q in TOPICS]
    lines = {"A": [("v1", "a1"), ("v2", "a2"), ("v10", "a3"), ("v11", "a4")], "B": [("1.0", "b1"), ("1.1", "b2")]}
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]), lines


def _values(per_query, run):
    r = per_query[(per_query["run"] == run) & (per_query["measure"] == "AP")]
    return pd.Series(r["value"].to_numpy(), index=r["qid"].to_numpy())


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
@pytest.mark.parametrize("correction,method", [("none", None), ("holm", "holm"), ("bh", "fdr_bh"),
                                               ("bonferroni", "bonferroni")])
def test_steps_equal_scipy_and_statsmodels(test, correction, method):
    per_query, lines = _table()
    h = history(per_query, lines, "AP", test=test, correction=correction, alpha=0.05)
    assert [(s.system, s.before, s.after) for s in h.steps] == [("A", "a1", "a2"), ("A", "a2", "a3"),
                                                                   ("A", "a3", "a4"), ("B", "b1", "b2")]
    want = []
    for s in h.steps:
        a, b = _values(per_query, s.before), _values(per_query, s.after)
        common = a.index.intersection(b.index)
        x, y = b[common].to_numpy(), a[common].to_numpy()
        assert s.n_topics == len(common) and s.delta == pytest.approx(np.mean(x - y), abs=1e-12)
        if np.all(x == y):
            want.append(1.0 if test == "wilcoxon" else float("nan"))
        else:
            want.append(stats.ttest_rel(x, y).pvalue if test == "t" else stats.wilcoxon(x - y).pvalue)
    got = [np.nan if s.p_value is None else s.p_value for s in h.steps]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    finite = np.isfinite(want)
    adjusted = np.array(want, dtype=float)
    if method:
        adjusted[finite] = multipletests(np.array(want)[finite], alpha=0.05, method=method)[1]
    np.testing.assert_allclose([np.nan if s.p_corrected is None else s.p_corrected for s in h.steps], adjusted,
                               rtol=0, atol=1e-12)
    assert [s.significant for s in h.steps] == [bool(p < 0.05) for p in np.nan_to_num(adjusted, nan=1.0)]
    assert h.steps[0].mark == UP and h.steps[0].n_topics == 30 and h.steps[2].n_topics == 25


def test_the_band_is_scipy_t_interval():
    per_query, lines = _table()
    h = history(per_query, lines, "AP")
    for v in h.versions:
        x = _values(per_query, v.run).to_numpy()
        low, high = stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
        assert v.n_topics == len(x) and v.mean == pytest.approx(np.mean(x), abs=1e-12)
        assert (v.ci_low, v.ci_high) == pytest.approx((low, high), abs=1e-12)
    assert [v.version for v in h.versions] == ["v1", "v2", "v10", "v11", "1.0", "1.1"]


def test_a_version_whose_topics_all_score_the_same_has_a_band_of_no_width():
    per_query, lines = _table()          # P@10 is 0.5 on every topic of every run
    with np.errstate(all="raise"):
        h = history(per_query, lines, "P@10")
    assert all((v.mean, v.ci_low, v.ci_high) == (0.5, 0.5, 0.5) for v in h.versions)
    assert h.to_dataframe()[["ci_low", "ci_high"]].notna().all().all()


def test_randomization_is_a_seeded_sign_flip_count():
    per_query, lines = _table()
    h = history(per_query, {"A": lines["A"][:2]}, "AP", test="randomization", n_resamples=2000, seed=3)
    d = (_values(per_query, "a2") - _values(per_query, "a1")).to_numpy()
    signs = np.random.default_rng(3).integers(0, 2, size=(2000, len(d))).astype(float) * 2 - 1
    b = int((np.abs(signs @ d) >= abs(d.sum()) - 1e-10 * np.abs(d).sum()).sum())
    assert h.steps[0].p_value == (b + 1) / 2001
    assert h == history(per_query, {"A": lines["A"][:2]}, "AP", test="randomization", n_resamples=2000, seed=3)


def test_a_worse_step_is_marked_down_and_with_correction_recorrects():
    per_query, lines = _table()
    down = {"A": [("v2", "a2"), ("v1", "a1")]}
    h = history(per_query, down, "AP")
    assert h.steps[0].mark == DOWN and h.steps[0].delta < 0
    none = history(per_query, lines, "AP", correction="none")
    assert none.with_correction("holm") == history(per_query, lines, "AP", correction="holm")


def test_frame_csv_and_moved_topics():
    per_query, lines = _table()
    h = history(per_query, lines, "AP", correction="holm")
    df = h.to_dataframe()
    assert list(df["run"]) == ["a1", "a2", "a3", "a4", "b1", "b2"]
    assert df["mark"].iloc[0] == "" and pd.isna(df["delta"].iloc[0]) and df["mark"].iloc[1] == UP
    assert df["p_corrected"].iloc[1] == h.steps[0].p_corrected
    assert h.to_csv().splitlines()[0] == ("system,version,run,measure,n_topics,mean,ci_low,ci_high,delta,n_common,"
                                          "p_value,p_corrected,mark")
    moved = moved_topics(per_query, "a3", "a4", "AP")
    assert len(moved) == 25 and list(moved.columns) == ["qid", "before", "after", "delta"]
    assert (np.diff(np.abs(moved["delta"].to_numpy())) <= 0).all()
    q = moved["qid"].iloc[0]
    assert moved["delta"].iloc[0] == pytest.approx(_values(per_query, "a4")[q] - _values(per_query, "a3")[q])
    assert "Holm correction over the 4 steps shown" in h.legend()
    assert "no correction over the 4 steps" in h.with_correction("none").legend()


def test_one_version_has_no_step_and_bad_choices_are_refused():
    per_query, _ = _table()
    h = history(per_query, {"A": [("v1", "a1")]}, "AP")
    assert h.steps == () and len(h.versions) == 1 and h.to_dataframe()["mark"].tolist() == [""]
    with pytest.raises(EvalError) as err:
        history(per_query, {"A": [("v1", "a1")]}, "AP", test="tukey")
    assert str(err.value) == "Unknown test 'tukey' for the steps between versions; choose one of t, wilcoxon, randomization."
    with pytest.raises(EvalError) as err:
        history(per_query, {"A": [("v1", "a1")]}, "AP", alpha=1.5)
    assert str(err.value) == "alpha must be between 0 and 1 (e.g. 0.05), not 1.5."
