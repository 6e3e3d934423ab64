"""AppTest of the many-runs views: the Measures page documents the statistics, and the
Leaderboard shows rank intervals, letters, the runs x runs heatmap and the risk views."""
from __future__ import annotations

import pytest

from tests.apptest_kit import assert_clean, frame, open_page
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.xdist_group("apptest")   # one worker: the pages share Streamlit's caches


def test_measures_page_documents_risk_and_rank_statistics(app):
    at = open_page(app, "measures")
    assert_clean(at)
    names = list(frame(at, "ms_stats_table")["Statistic"])
    assert {"TRisk", "URisk", "GeoRisk", "Tukey HSD (two-way)", "Rank interval", "Compact letters"} <= set(names)
    at.text_input(key="ms_filter").input("risk").run()
    assert set(frame(at, "ms_stats_table")["Statistic"]) == {"URisk", "TRisk", "GeoRisk"}
    assert any(r"(1+\alpha)\,\delta_t" in str(e.value) for e in at.latex)          # URisk's formula


def has(at, key: str) -> bool:
    from tests.apptest_kit import keyed
    try:
        return keyed(at, key) is not None
    except AssertionError:
        return False


def open_tab(at, label: str):
    """Click a Leaderboard tab: only the open tab's content runs (st.tabs(on_change="rerun"))."""
    at.session_state["lb_tab"] = label
    return at.run()


def test_leaderboard_ranks_letters_heatmap_and_risk(app):
    from tests.apptest_kit import keyed, texts
    at = open_page(app, "leaderboard", baseline="humR03dc", test="tukey")
    assert_clean(at)
    table = frame(at, "lb_table")
    assert list(table.columns)[:2] == ["Rank (95% CI)", "Group"]
    assert table["Rank (95% CI)"].str.fullmatch(r"\d+ \(\d+–\d+\)").all()
    assert table["Group"].str.fullmatch(r"[a-z]+").all()
    assert table["Rank (95% CI)"].iloc[0].startswith("1 (")         # sorted by the ranked measure
    assert "Runs sharing a letter are not significantly different" in texts(at)
    assert "Tukey" in texts(at) and "HSD" in texts(at)           # the legend names the test (markdown-escaped)
    assert not has(at, "lb_pairs") and not has(at, "lb_risk_table")   # closed tabs do not run
    open_tab(at, "Every pair")
    assert_clean(at)
    assert keyed(at, "lb_pairs") is not None                         # the runs x runs heatmap
    assert not has(at, "lb_ci_chart")                                # nor does the closed chart tab's bootstrap
    open_tab(at, "Risk")
    risk = frame(at, "lb_risk_table")
    assert set(risk["baseline"]) == {"humR03dc"} and "humR03dc" not in set(risk["run"])
    assert {"urisk", "trisk", "georisk"} <= set(risk.columns)
    assert keyed(at, "lb_trisk") is not None                         # the TRisk contributions chart


def test_leaderboard_more_baselines(app):
    at = open_page(app, "leaderboard", baseline="humR03dc")
    at.multiselect(key="lb_more_baselines").set_value(["pircRBa1"]).run()
    assert_clean(at)
    open_tab(at, "Deltas, wins/ties/losses, p-values")
    details = frame(at, "lb_details")
    assert set(details["baseline"]) == {"humR03dc", "pircRBa1"}
    assert len(details) == 2 * 4 * 5                                 # 2 baselines x 4 other runs x 5 measures
    open_tab(at, "Risk")
    risk = frame(at, "lb_risk_table")
    assert set(risk["baseline"]) == {"humR03dc", "pircRBa1"}


def test_leaderboard_chart_intervals_are_the_details_intervals(app):
    """The table's comparison draws no bootstrap CI; the chart bootstraps its one measure and the details tab
    every measure (dashboard.cache.results.intervals / compared_many): the chart's error bars are the details' CIs."""
    import json
    at = open_page(app, "leaderboard", baseline="humR03dc", measure="nDCG@10")
    assert_clean(at)
    bar = json.loads(keyed_chart(at).proto.spec)["data"][0]
    means = dict(zip(bar["x"], bar["y"]))
    cis = {run: (lo, hi) for run, (lo, hi, _n) in zip(bar["x"], bar["customdata"])}
    assert len(cis) == 5 and all(lo < means[r] < hi for r, (lo, hi) in cis.items())
    open_tab(at, "Deltas, wins/ties/losses, p-values")
    details = frame(at, "lb_details").query("measure == 'nDCG@10'")
    assert len(details) == 4 and details[["ci_low", "ci_high"]].notna().all().all()
    for row in details.itertuples():
        assert cis[row.run] == pytest.approx((row.ci_low, row.ci_high), abs=1e-12), row.run
        assert means[row.run] == pytest.approx(row.mean, abs=1e-12)


def keyed_chart(at):
    from tests.apptest_kit import keyed
    return keyed(at, "lb_ci_chart")


def test_the_shared_evaluation_is_never_changed_by_a_page(app, monkeypatch):
    """dashboard.cache.results.evaluate hands every caller and session one EvalResult (st.cache_resource, not a pickled
    copy per call as st.cache_data would): no view may change it. Each result is snapshotted when computed and,
    after the Leaderboard's tabs and the Per-query page have used it, still equals its snapshot."""
    import copy
    import pandas as pd
    from core.service import evaluate as results
    from dashboard.cache import results as cached
    made = []
    real = results.evaluate_stored

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        made.append((out, copy.deepcopy(out)))
        return out
    monkeypatch.setattr(results, "evaluate_stored", recording)
    cached.evaluate.clear()
    at = open_page(app, "leaderboard", baseline="humR03dc", test="randomization")
    for tab in ("Deltas, wins/ties/losses, p-values", "Every pair", "Risk", "Confidence intervals"):
        open_tab(at, tab)
        assert_clean(at)
    board = len(made)
    open_page(at, "perquery", baseline="humR03dc", run="pircRBa1")
    assert_clean(at)
    assert board >= 1 and len(made) > board                          # the Per-query page evaluated its two runs
    from core.stats.resolution import _SHARED
    for live, snap in made:
        assert id(live.per_query) in _SHARED      # declared unchanging (core.stats.resolution.share): this test is why
        pd.testing.assert_frame_equal(live.per_query, snap.per_query, check_exact=True)
        pd.testing.assert_frame_equal(live.summary, snap.summary, check_exact=True)
        assert live.missing_topics == snap.missing_topics and live.num_q == snap.num_q


def _three_topic_collection(tmp_path) -> str:
    """A store whose collection 'three-topics' holds 3 runs that order the same 3 topics' documents better and better
    (AP 0.5, 0.83, 1 on every topic), so the runs differ as much as 3 topics allow."""
    from tests.fixtures_store import sample_store
    store = sample_store(tmp_path)
    try:
        store.create_collection("three-topics")
        store.add_qrels("three-topics", "".join(f"{q} 0 d{i} {int(i < 2)}\n" for q in (1, 2, 3) for i in range(4))
                        .encode(), filename="qrels.txt")
        for name, order in (("worst", "3201"), ("middle", "0231"), ("best", "0123")):
            rows = "".join(f"{q} Q0 d{d} {r + 1} {10 - r} {name}\n" for q in (1, 2, 3) for r, d in enumerate(order))
            store.add_run("three-topics", rows.encode(), filename=f"{name}.txt")
    finally:
        store.close()
    return str(tmp_path / "sample.duckdb")


def test_leaderboard_says_when_no_pair_can_be_significant(tmp_path, monkeypatch):
    """3 topics: no sign-flip p-value falls below 2 / 2^3 = 0.25, so every run shares one letter whatever the data.
    The page says so in words, above the table's letters and in the Every pair tab; with Holm the randomisation
    runs the max-statistic test, which can separate them (its p-values go down to 1 / 3!^2); against a baseline the
    sign flips, with Holm over the 2 tests on top, cannot mark any cell, and the page says that too."""
    from streamlit.testing.v1 import AppTest
    from dashboard.components.escape import md_escape
    from tests.apptest_kit import APP, TIMEOUT, texts
    monkeypatch.setenv("RANKBOARD_STORE", _three_topic_collection(tmp_path))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "leaderboard", collection="three-topics",
                   test="randomization", correction="none", measures=["AP"])
    assert_clean(at)
    assert set(frame(at, "lb_table")["Group"]) == {"a"}
    said = ("No pair of runs can be significantly different at α = 0.05 with this test: the smallest p-value the "
            "Fisher randomisation test can give over 3 topics and 1,000 resamples is 0.25. The runs share one letter "
            "for that reason, not because they perform alike.")
    assert [w.value for w in at.warning if "No pair of runs" in w.value] == [
        md_escape(said + " Compare the runs on more topics, or choose Tukey HSD or the t-test.")]
    open_tab(at, "Every pair")
    assert_clean(at)
    assert sum("No pair of runs" in w.value for w in at.warning) == 2
    at.selectbox(key="lb_correction").set_value("holm").run()
    assert_clean(at)
    assert not any("No pair of runs" in w.value for w in at.warning)
    assert len(set(frame(at, "lb_table")["Group"])) > 1
    assert md_escape("pairs by itself, so no Holm correction is applied") in texts(at)
    at.selectbox(key="lb_baseline").set_value("worst").run()          # against a baseline: sign flips, Holm on top
    assert_clean(at)
    warned = [w.value for w in at.warning if "significantly different at" in w.value]
    assert warned == [md_escape(
        "No run can be significantly different at α = 0.05 with this test: the smallest p-value the Fisher "
        "randomisation test can give over 3 topics and 10,000 resamples is 0.25, and Holm over the 2 tests raises it "
        "to 0.5. No cell is marked significant for that reason, not because the runs perform alike. Compare the runs "
        "on more topics, or choose the t-test.")]
