"""AppTest of cost beside effectiveness: the Leaderboard's cost columns (off by default, bound to the URL) and its
Cost tab (the Pareto front listed, the runs without cost data listed), and the Data page's editor of a run's
lineage and cost (editors only; a bad value is refused and nothing changes)."""
from __future__ import annotations

import pytest

from core.analysis import pareto
from core.store import Store
from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, keyed, open_page, texts, url
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.xdist_group("apptest")   # one worker: the pages share Streamlit's caches

COSTS = {"pircRBa1": {"latency_ms": "40", "gpu": "T4"}, "aplrob03a": {"latency_ms": "12"},
         "UIUC03Rd1": {"latency_ms": "90"}, "MU03rob01": {"latency_ms": "25"}}     # humR03dc: none


@pytest.fixture
def cost_app(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest
    from tests.fixtures_store import sample_store
    with sample_store(tmp_path) as store:
        ids = dict(zip(store.runs("robust03-sample")["name"], store.runs("robust03-sample")["run_id"]))
        for run, values in COSTS.items():
            store.set_run_meta(int(ids[run]), values)
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def test_cost_columns_are_off_by_default_and_follow_the_url(cost_app):
    at = open_page(cost_app, "leaderboard")
    assert_clean(at)
    assert "latency_ms" not in frame(at, "lb_table").columns
    assert at.multiselect(key="lb_cost_columns").options == ["latency_ms", "gpu"]
    at.multiselect(key="lb_cost_columns").set_value(["latency_ms", "gpu"]).run()
    table = frame(at, "lb_table")
    assert table.loc["aplrob03a", "latency_ms"] == "12" and table.loc["pircRBa1", "gpu"] == "T4"
    assert table.loc["humR03dc", "latency_ms"] == "–" and table.loc["aplrob03a", "gpu"] == "–"
    assert url(at, "cost") == ["latency_ms", "gpu"]


def test_the_cost_tab_draws_the_front_and_lists_runs_without_cost(cost_app):
    at = open_page(cost_app, "leaderboard", cost_measure="AP")
    at.session_state["lb_tab"] = "Cost"
    at.run()
    assert_clean(at)
    assert at.selectbox(key="lb_cost_key").value == "latency_ms"
    shown = frame(at, "lb_cost_lists")
    means = frame(at, "lb_table")["AP"]
    runs = list(COSTS)
    want = pareto(runs, [float(COSTS[r]["latency_ms"]) for r in runs], [means[r] for r in runs],
                  cost="latency_ms", measure="AP")
    assert shown["Run"].tolist() == want.front and want.front
    assert keyed(at, "lb_cost_chart") is not None or at.get("plotly_chart")
    words = texts(at)
    assert "On the Pareto front" in words
    assert "no cost data" in words and "humR03dc" in words


def test_a_collection_without_cost_says_so(app):
    at = open_page(app, "leaderboard")
    at.session_state["lb_tab"] = "Cost"
    at.run()
    assert_clean(at)
    assert "None of these runs has cost data" in texts(at)
    assert "no cost data: " in texts(at)
    with pytest.raises(Exception):
        at.multiselect(key="lb_cost_columns")                   # nothing to offer


def test_the_data_page_edits_a_runs_lineage_and_cost(cost_app, tmp_path):
    at = open_page(cost_app, "data")
    assert_clean(at)
    at.selectbox(key="data_meta_run").set_value("humR03dc").run()
    at.text_input(key="data_meta_system").input("hum").run()
    at.text_input(key="data_meta_version").input("2").run()
    at.text_input(key="data_meta_latency_ms").input("fast").run()
    at.button(key="data_meta_save").click().run()
    assert [e.value for e in at.error] == ["Could not save the metadata"]
    assert [c.value for c in at.code] == ["latency_ms must be a number (mean latency per query, in milliseconds), "
                                          "not 'fast'. Write it as a plain number, e.g. latency_ms=12.5."]
    with Store.open(tmp_path / "sample.duckdb", load_sample=False) as store:
        rid = int(store.runs("robust03-sample").set_index("name").loc["humR03dc", "run_id"])
        assert store.run_meta(rid) == {}                                    # nothing saved
    at.text_input(key="data_meta_latency_ms").input("7.5").run()
    at.text_area(key="data_meta_free").input("k1=0.9\noops").run()
    at.button(key="data_meta_save").click().run()
    assert [c.value for c in at.code] == ["Other keys, line 2: 'oops' is not key=value. Write it as KEY=VALUE, e.g. "
                                          "stemmer=porter (an empty value, latency_ms=, removes the key)."]
    at.text_area(key="data_meta_free").input("k1=0.9\nstemmer=porter").run()
    at.button(key="data_meta_save").click().run()
    assert_clean(at)
    with Store.open(tmp_path / "sample.duckdb", load_sample=False) as store:
        assert store.run_meta(rid) == {"system": "hum", "version": "2", "latency_ms": "7.5", "k1": "0.9",
                                       "stemmer": "porter"}
    lineage = frame(at, "data_lineage_table")
    assert lineage.set_index("run").loc["humR03dc", "latency_ms"] == 7.5
