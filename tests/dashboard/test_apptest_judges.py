"""AppTest: the Judges page on the bundled samples (robust03-sample: NIST + simulated-B; dl23-llmjudge: NIST
and six LLM judges), its widgets, and its empty state."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, open_page, texts, url
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)
from tests.fixtures_store import sample_store

pytestmark = pytest.mark.xdist_group("apptest")

LLM_JUDGES = ["willia-umbrela1", "h2oloo-fewself", "Olz-gpt4o", "RMITIR-GPT4o", "TREMA-4prompts", "TREMA-nuggets"]


def test_judges_page_on_the_first_sample(app):
    at = open_page(app, "judges")
    assert_clean(at)
    assert at.title[0].value == "Judges"
    assert at.selectbox(key="jd_reference").value == "NIST"
    table = frame(at, "jd_table")
    assert list(table["Judge"]) == ["simulated-B"]
    assert -1 <= table["κ"].iloc[0] <= 1 and -1 <= table["Kendall τ"].iloc[0] <= 1


def test_judges_page_on_the_llm_sample(app):
    at = open_page(app, "judges", collection="dl23-llmjudge")
    assert_clean(at)
    table = frame(at, "jd_table")
    assert list(table["Judge"]) == LLM_JUDGES
    assert table.set_index("Judge").loc["TREMA-nuggets", "κ"] < table.set_index("Judge").loc["willia-umbrela1", "κ"]
    assert len(at.get("plotly_chart")) == 2                      # heatmap and scatter
    bounds = frame(at, "jd_bounds")
    assert len(bounds) == 6 and "Filled by willia-umbrela1" in bounds.columns
    topics = frame(at, "jd_topics")
    assert len(topics) == 25 and list(topics["κ"]) == sorted(topics["κ"])   # most disagreement first

    at.selectbox(key="jd_reference").set_value("willia-umbrela1").run()
    assert_clean(at)
    assert url(at, "reference") == ["willia-umbrela1"]
    assert "NIST" in list(frame(at, "jd_table")["Judge"])
    at.selectbox(key="jd_measure").set_value("P@10").run()
    at.selectbox(key="jd_level").set_value("2").run()
    assert_clean(at)
    assert url(at, "measure") == ["P@10"] and url(at, "jd_level") == ["2"] and "grade ≥ 2" in texts(at)
    at.selectbox(key="jd_topic_judge").set_value("TREMA-nuggets").run()
    assert_clean(at)
    assert len(frame(at, "jd_topics")) == 25


def test_judges_page_empty_state_offers_the_sample(tmp_path, monkeypatch):
    store = sample_store(tmp_path)
    try:
        store.create_collection("one-judge")
        store.add_qrels("one-judge", b"1 0 d1 1\n1 0 d2 0\n", filename="nist.txt")
    finally:
        store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "judges", collection="one-judge")
    assert_clean(at)
    assert "needs two or more qrels sets" in texts(at)
    assert at.button(key="jd_open_sample")
    at.button(key="jd_open_sample").click().run()
    assert_clean(at)
    assert at.selectbox(key="sidebar_collection").value == "dl23-llmjudge"
    assert len(frame(at, "jd_table")) == 6


def test_leaderboard_shows_bounds_as_an_option(app):
    at = open_page(app, "leaderboard", measures=["P@10", "AP"])
    assert_clean(at)
    assert at.toggle(key="lb_bounds").value is False
    at.toggle(key="lb_bounds").set_value(True).run()
    assert_clean(at)
    bounds = frame(at, "lb_bounds_view")
    assert len(bounds) == 5 and {"P@10", "Unjudged relevant", "Filled by simulated-B", "Could swap with"} <= set(bounds)
    assert (bounds["Unjudged relevant"] >= bounds["P@10"]).all()      # P@k: counting holes relevant never lowers it
    at.selectbox(key="lb_bounds_view_measure").set_value("AP").run()
    assert_clean(at)
    assert "AP" in frame(at, "lb_bounds_view").columns
