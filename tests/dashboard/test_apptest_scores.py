"""AppTest: imported per-query scores on the Leaderboard (means, the "imported (source)" mark, the tests against a
baseline), on the Per-query page, and the Data page's Scores tab (editors only)."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, open_page, texts
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")


@pytest.fixture
def scores_app(tmp_path, monkeypatch):
    """The sample store plus a `judge` measure for two of its runs and for `rag`, a run with scores only."""
    with sample_store(tmp_path) as store:
        qids = sorted(store.qrels(int(store.qrels_sets(SAMPLE_COLLECTION)["qrels_id"].iat[0]))["qid"].unique())
        rng = np.random.default_rng(3)
        values = {run: rng.uniform(0, 1, len(qids)).round(3) for run in ("MU03rob01", "pircRBa1", "rag")}
        lines = "run,qid,measure,value\n" + "".join(f"{run},{q},judge,{v}\n" for run, vals in values.items()
                                                    for q, v in zip(qids, vals))
        store.add_scores(SAMPLE_COLLECTION, lines.encode(), filename="judge.csv", label="gpt judge")
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT), values


def test_leaderboard_shows_the_imported_measure_with_its_source(scores_app):
    app, values = scores_app
    at = open_page(app, "leaderboard", measures=["AP", "judge"], baseline="MU03rob01", test="t")
    assert_clean(at)
    table = frame(at, "lb_table")
    assert "judge" in table.columns and "AP" in table.columns
    for run, vals in values.items():
        shown = next(v for r, v in table["judge"].items() if str(r).startswith(run))
        assert float(str(shown).split()[0]) == pytest.approx(vals.mean(), abs=5e-5)
    assert r"judge: imported \(gpt judge\)" in texts(at)        # markdown-escaped


def test_per_query_page_offers_the_imported_measure(scores_app):
    app, _ = scores_app
    at = open_page(app, "perquery", baseline="MU03rob01", run="pircRBa1", measure="judge")
    assert_clean(at)
    assert at.selectbox(key="pq_measure").value == "judge"


def test_data_page_has_a_scores_tab_for_editors(scores_app):
    app, _ = scores_app
    at = open_page(app, "data")
    assert_clean(at)
    assert "data_scores_load" in {b.key for b in at.button}
    assert {"data_scores_name", "data_scores_source"} <= {t.key for t in at.text_input}
    runs = frame(at, "data_runs_table")
    assert "rag" in set(runs.iloc[:, 0].astype(str)) | set(runs.get("name", []))


def test_per_query_page_with_a_run_of_scores_only(scores_app):
    app, values = scores_app
    at = open_page(app, "perquery", baseline="MU03rob01", run="rag", measure="judge")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]


def test_a_collection_of_scores_only_needs_no_qrels(tmp_path, monkeypatch):
    from core.store.store import Store
    with Store.open(tmp_path / "rag.duckdb", load_sample=False) as store:
        store.add_scores("rag", b"run,qid,measure,value\na,1,vital,0.5\na,2,vital,1\nb,1,vital,0.25\nb,2,vital,0.5\n",
                         filename="nuggets.csv", label="nuggetizer")
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "rag.duckdb"))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "leaderboard")
    assert_clean(at)
    table = frame(at, "lb_table")
    assert table["vital"].to_dict() == {"a": 0.75, "b": 0.375}
    assert r"vital: imported \(nuggetizer\)" in texts(at)
    shown = texts(at) + "".join(str(w.value) for w in at.warning) + "".join(str(e.value) for e in at.expander)
    assert "cannot be computed" not in shown          # nothing computed is asked for (no Judged@10 without qrels)
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "perquery", baseline="a", run="b")
    assert_clean(at)
    assert at.selectbox(key="pq_measure").value == "vital"


@pytest.mark.parametrize("page", ["leaderboard", "perquery", "curves", "agreement", "judges", "data", "measures"])
def test_every_page_with_a_run_of_scores_only_in_the_collection(scores_app, page):
    app, _ = scores_app
    at = open_page(app, page)
    assert_clean(at)
    if page == "leaderboard":        # rag has no AP: ranked without it, the others on their 100 topics
        assert "of the 100 topics the runs are compared on" in texts(at)


def test_every_leaderboard_tab_on_the_imported_measure(scores_app):
    from scipy import stats
    app, values = scores_app
    runs = ["MU03rob01", "pircRBa1", "rag"]
    at = open_page(app, "leaderboard", runs=runs, measures=["judge"], baseline="MU03rob01", test="t")
    for tab in ("Deltas, wins/ties/losses, p-values", "Every pair", "Risk", "Confidence intervals"):
        at.session_state["lb_tab"] = tab
        at.run()
        assert_clean(at)
        assert not at.error, [e.value for e in at.error]
        if tab.startswith("Deltas"):
            details = frame(at, "lb_details").set_index("run")
            for run in ("pircRBa1", "rag"):
                want = stats.ttest_rel(values[run], values["MU03rob01"]).pvalue
                assert details.loc[run, "p_value"] == pytest.approx(want, abs=1e-9)


def test_without_a_baseline_the_note_says_imported_means_are_over_different_topics(tmp_path, monkeypatch):
    with sample_store(tmp_path) as store:
        lines = "run,qid,measure,value\n" + "".join(f"{r},{q},judge,0.5\n" for r, qs in
                                                    (("MU03rob01", ("303", "307")), ("pircRBa1", ("303",))) for q in qs)
        store.add_scores(SAMPLE_COLLECTION, lines.encode(), filename="judge.csv")
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "leaderboard", measures=["AP", "judge"],
                   runs=["MU03rob01", "pircRBa1"])
    assert_clean(at)
    assert "Imported judge is averaged over each run's own topics, which differ: pircRBa1 lacks 1 (307)." in \
        texts(at).replace("\\", "").replace(":gray[]", "")


def test_the_source_in_an_imported_columns_tooltip_is_shown_literally(tmp_path, monkeypatch):
    import json
    from dashboard.components.escape import md_escape
    from tests.apptest_kit import keyed
    with sample_store(tmp_path) as store:
        store.add_scores(SAMPLE_COLLECTION, b"run,qid,measure,value\nMU03rob01,303,judge,0.5\n", filename="j.csv",
                         label="**bold** [link](https://example.org)")
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "leaderboard", measures=["AP", "judge"],
                   runs=["MU03rob01", "pircRBa1"])
    assert_clean(at)
    columns = json.loads(keyed(at, "lb_table").dataframe[0].proto.columns)
    assert columns["judge"]["help"] == md_escape("imported (**bold** [link](https://example.org))")
