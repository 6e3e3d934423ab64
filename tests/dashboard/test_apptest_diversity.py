"""AppTest: diversity qrels on the Data page and the Leaderboard (a store with a subtopic qrels set)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.service.diversity import evaluate_stored_diversity
from core.store.diversity import add_diversity_qrels
from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, open_page, texts
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")


@pytest.fixture
def div_app(tmp_path, monkeypatch):
    """The sample store plus a subtopic qrels set built from its NIST qrels (two subtopics per topic)."""
    with sample_store(tmp_path) as store:
        nist = store.qrels(int(store.qrels_sets(SAMPLE_COLLECTION)["qrels_id"].iat[0]))
        lines = "".join(f"{q} {i % 2} {d} {r}\n" for i, (q, d, r) in enumerate(nist.itertuples(index=False)))
        qid = add_diversity_qrels(store, SAMPLE_COLLECTION, lines.encode(), filename="sample.div.qrels").id
        runs = store.runs(SAMPLE_COLLECTION)
        expect = evaluate_stored_diversity(store, SAMPLE_COLLECTION, list(runs["run_id"]), qid, ["alpha_nDCG@20"])
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT), expect


def test_data_page_lists_diversity_sets(div_app):
    app, _ = div_app
    at = open_page(app, "data")
    assert_clean(at)
    assert "Diversity qrels sets" in texts(at)
    table = frame(at, "data_div_table")
    assert list(table["filename"]) == ["sample.div.qrels"] and int(table["n_subtopics"].iat[0]) > 0


def test_leaderboard_shows_diversity_measures(div_app):
    app, expect = div_app
    at = open_page(app, "leaderboard")
    assert_clean(at)
    at.multiselect(key="lb_div_measures").set_value(["alpha_nDCG@20"]).run()
    assert_clean(at)
    shown = frame(at, "lb_div_table")
    want = expect.summary.set_index("run")["value"]
    for run, value in shown["alpha_nDCG@20"].items():
        assert value == pytest.approx(want[run], abs=1e-9)


def test_typed_diversity_measure_is_routed_not_failed(div_app):
    app, _ = div_app
    at = open_page(app, "leaderboard", measures=["AP", "ERR_IA@10"])
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert "ERR_IA@10" in list(frame(at, "lb_div_table").columns)
    main = list(frame(at, "lb_table").columns)
    assert "AP" in main and "ERR_IA@10" not in main              # the relevance leaderboard keeps AP only


def test_measures_page_lists_the_family_with_its_source(div_app):
    app, _ = div_app
    at = open_page(app, "measures")
    at.text_input(key="ms_filter").input("ndeval").run()
    assert_clean(at)
    table = frame(at, "ms_table").set_index("Measure")
    ndeval = table.index[table["Source"] == "ir_measures (ndeval)"]
    assert set(ndeval) == {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
    assert table.loc["alpha_DCG_raw", "Source"] == "textbook"
