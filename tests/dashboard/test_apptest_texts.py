"""AppTest: the words the pages print about the data. The unjudged share (1 - Judged@10, not the judged share),
topics without text (the topic id and a hint to load topics, never "None" or "nan"), why a judge's filled scores
equal the plain ones (it labels no hole), the default measures at the runs' depth, and the exports in the table's
rank order."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, keyed, open_page, texts
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)
from tests.fixtures_store import sample_store

pytestmark = pytest.mark.xdist_group("apptest")

ROOT = Path(__file__).resolve().parents[2]
LLM = "dl23-llmjudge"


def test_the_unjudged_warning_gives_each_runs_unjudged_share(app):
    at = open_page(app, "leaderboard", collection=LLM)
    assert_clean(at)
    judged = frame(at, "lb_table")["Judged@10"]
    low = judged[judged < 0.9]
    assert len(low) and len(low) < len(judged)           # simulated-holes (and the like) only
    warning = next(w.value for w in at.warning if "unjudged" in w.value)
    plain = warning.replace("\\", "")
    for run, share in low.items():
        assert f"{run} ({1 - share:.0%} unjudged)" in plain, plain
        assert f"{run} ({share:.0%}" not in plain          # never the judged share
    for run in judged[judged >= 0.9].index:
        assert f"{run} (" not in plain
    assert "1 − Judged@10" in plain


def test_no_warning_when_every_run_is_judged_enough():
    from dashboard.components.leaderboard import unjudged_warning
    assert unjudged_warning(pd.Series({"a": 0.95, "b": 1.0})) is None
    assert "a (22% unjudged)" in unjudged_warning(pd.Series({"a": 0.78, "b": 1.0})).replace("\\", "")


@pytest.fixture
def no_topics(tmp_path, monkeypatch):
    """The sample store plus a collection of two runs and qrels, without topics."""
    store = sample_store(tmp_path)
    try:
        store.create_collection("no-topics")
        store.add_qrels("no-topics", (ROOT / "data" / "qrels.robust03.txt.gz").read_bytes(), filename="qrels.gz")
        for run in ("pircRBa1", "humR03dc"):
            store.add_run("no-topics", (ROOT / "data" / "runs" / f"input.{run}.gz").read_bytes(),
                          filename=f"input.{run}.gz")
    finally:
        store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def _no_none(at) -> None:
    shown = texts(at) + "\n" + "\n".join(str(o) for box in at.selectbox for o in box.options)
    assert not re.search(r"\b(None|nan)\b", shown), shown


def test_topics_without_text_show_their_id_and_a_hint(no_topics):
    at = open_page(no_topics, "perquery", collection="no-topics")
    assert_clean(at)
    options = at.selectbox(key="pq_query").options
    assert len(options) > 50 and all(re.fullmatch(r"\d+", o) for o in options[1:]), options[:5]
    hint = keyed(at, "pq_topics_hint")
    assert "no topic texts" in hint.caption[0].value and "Topics tab" in hint.caption[0].value
    assert "text" not in keyed(at, "pq_table").value.columns                  # no empty Query column
    _no_none(at)
    qid = options[1]
    at.selectbox(key="pq_query").set_value(qid).run()
    assert_clean(at)
    assert f"Topic {qid}" in texts(at)
    _no_none(at)

    at.switch_page("app_pages/curves.py").run()
    assert_clean(at)
    assert all(re.fullmatch(r"\d+", o) for o in at.selectbox(key="cv_query").options[1:])
    assert "no topic texts" in keyed(at, "cv_topics_hint").caption[0].value
    _no_none(at)


def test_topics_with_text_show_it_and_no_hint(app):
    at = open_page(app, "perquery")
    assert_clean(at)
    assert all(": " in o for o in at.selectbox(key="pq_query").options[1:])
    assert "no topic texts" not in texts(at)
    assert "text" in keyed(at, "pq_table").value.columns


def test_a_judge_that_labels_no_hole_says_why_its_filled_scores_equal_the_plain_ones(app):
    """Both samples' judges label exactly the reference's pairs: no hole is filled (not a join that drops them)."""
    at = open_page(app, "judges", collection=LLM, measure="nDCG@10")
    assert_clean(at)
    bounds = frame(at, "jd_bounds")
    judge = at.selectbox(key="jd_filled_by").value
    assert (bounds[f"Holes {judge} labels"] == 0).all()
    measure = at.selectbox(key="jd_measure").value
    assert (bounds[f"Filled by {judge}"] - bounds[measure]).abs().max() < 1e-12
    info = " ".join(i.value for i in at.info).replace("\\", "")
    assert f"No unjudged document in these runs' top 10 is judged by {judge}" in info, (measure, info)


def test_the_leaderboards_bounds_say_it_too(app):
    at = open_page(app, "leaderboard", measures=["AP"])
    at.toggle(key="lb_bounds").set_value(True).run()
    assert_clean(at)
    info = " ".join(i.value for i in at.info).replace("\\", "")
    assert "No unjudged document in these runs' rankings is judged by simulated-B" in info, info


def test_a_judge_that_fills_holes_gets_no_such_note():
    from core.judges.report import judges_frames
    from dashboard.components.judges import bounds_frame, filled_note
    ref = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, 0]})
    judge = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "c"], "rel": [1, 1]})          # c: a hole of the run
    run = pd.DataFrame({"qid": ["1"] * 3, "docno": ["c", "a", "b"], "score": [3.0, 2.0, 1.0]})
    rep = judges_frames(ref, {"j": judge, "copy": ref}, {"r": run}, measure="P@5", n_resamples=50)
    assert filled_note(rep, "j") is None and bounds_frame(rep, "j")["Holes j labels"].tolist() == [1]
    assert rep.filled.loc["r", "j"] > rep.reference_scores["r"]
    assert "is judged by copy" in filled_note(rep, "copy") and "top 5" in filled_note(rep, "copy")


def test_default_measures_take_recall_at_the_runs_depth(app):
    at = open_page(app, "leaderboard", collection="robust03-sample")     # runs cut at 100
    assert_clean(at)
    assert at.multiselect(key="lb_measures").value == ["AP", "nDCG@10", "P@10", "R@100", "RR"]
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "leaderboard", collection=LLM)   # depth 50
    assert at.multiselect(key="lb_measures").value == ["AP", "nDCG@10", "P@10", "R@50", "RR"]
    from dashboard.components.constants import DEFAULT_MEASURES, default_measures
    assert default_measures(1000) == default_measures(None) == default_measures(float("nan")) == DEFAULT_MEASURES
    assert default_measures(2500) == DEFAULT_MEASURES and "R@1000" in DEFAULT_MEASURES


def test_the_exports_list_the_runs_in_the_tables_rank_order():
    """ranked is the table's order (best first on the first measure, a run without a value last); the exports
    of a view with a baseline follow it (the download itself is clicked in tests/e2e/test_e2e_texts.py)."""
    import numpy as np
    from core.stats.baselines import report
    from core.stats.resolution import resolve
    from dashboard.cache import results
    from dashboard.components import leaderboard as lb
    rng = np.random.default_rng(3)
    runs, strength = ["a", "b", "c", "d"], {"a": 0.2, "b": 0.6, "c": 0.4, "d": 0.8}
    pq = pd.DataFrame([(r, f"q{t}", m, float(np.clip(strength[r] + 0.1 * rng.standard_normal(), 0, 1)))
                       for r in runs for t in range(20) for m in ("P@10", "AP")], columns=["run", "qid", "measure", "value"])
    summary = pq.groupby(["run", "measure"], as_index=False)["value"].mean()
    order = [str(r) for r in lb.ranked(summary, runs=runs, measures=["P@10", "AP"]).index]
    p10 = summary[summary["measure"] == "P@10"].set_index("run")["value"]
    assert order == list(p10.sort_values(ascending=False).index) and order != runs
    rep = report(pq, baselines=["a"], measures=["P@10", "AP"])
    out = results.report_of(rep.comparisons, resolve(pq, measures=["P@10"], runs=runs)["P@10"], order=order)
    assert list(dict.fromkeys(out.to_dataframe()["run"])) == order
    assert sorted(order, key=lambda r: out.to_latex().index("\n" + r)) == order
    gap = summary[~((summary["run"] == "d") & (summary["measure"] == "P@10"))]
    assert lb.ranked(gap, runs=runs, measures=["P@10", "AP"]).index[-1] == "d"


def test_the_table_is_in_rank_order_with_a_baseline(app):
    at = open_page(app, "leaderboard", baseline="humR03dc", measures=["P@10", "AP"])
    assert_clean(at)
    means = frame(at, "lb_table")["P@10"]
    assert list(means) == sorted(means, reverse=True)
