"""AppTest: the Fusion page on the sample store: the fused run beside its parts against the best part, the
per-topic chart, the URL, tuning, the save (an editor's only) and what it leaves on the Data page and the
Leaderboard, and the empty state."""
from __future__ import annotations

import json

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from core.service import fuse_stored, fusion_report
from core.store.store import Store
from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, open_page, texts, url
from tests.apptest_kit import app, private_app, store_path  # noqa: F401  (pytest fixtures)
from tests.fixtures_store import SAMPLE_COLLECTION as C, sample_store

pytestmark = pytest.mark.xdist_group("apptest")
VIEW = dict(collection=C, parts=["aplrob03a", "UIUC03Rd1"], measures=["AP", "nDCG@10"], test="t",
            correction="holm")


def test_the_fused_run_stands_beside_its_parts(app, store_path):
    at = open_page(app, "fusion", **VIEW)
    assert_clean(at)
    assert at.title[0].value == "Fusion"
    assert at.selectbox(key="fu_method").value == "rrf" and at.selectbox(key="fu_norm").value == "min-max"
    table = frame(at, "fu_table")
    with Store.open(store_path, load_sample=False) as s:
        expected = fusion_report(s, C, fuse_stored(s, C, ["aplrob03a", "UIUC03Rd1"], "rrf"), ["AP", "nDCG@10"],
                                 name="fused", correction="holm")
    means = expected.summary.pivot_table(index="run", columns="measure", values="value")
    best = expected.best
    assert set(table.index) == {"fused", f"{best} (baseline)", *({"aplrob03a", "UIUC03Rd1"} - {best})}
    assert table.loc["fused", "AP"] == pytest.approx(means.loc["fused", "AP"], abs=1e-12)
    row = next(r for r in expected.comparison.rows if r.run == "fused" and r.measure == "AP")
    assert table.loc["fused", "W/T/L AP"] == f"{row.wins}/{row.ties}/{row.losses}"
    assert f"Baseline: {best}, the best part on AP." in texts(at).replace("\\", "")
    assert len(at.get("plotly_chart")) == 1
    assert "fusion helps on" in texts(at) and len(at.get("download_button")) == 2
    assert at.button(key="fu_save_button") is not None


def test_the_choices_go_to_the_url_and_a_weighted_method_takes_weights(app):
    at = open_page(app, "fusion", **VIEW)
    at.selectbox(key="fu_method").set_value("wsum").run()
    at.text_input(key="fu_weights").input("0.2, 0.8").run()
    assert_clean(at)
    assert url(at, "method") == ["wsum"] and url(at, "weights") == ["0.2, 0.8"]
    assert "fused" in frame(at, "fu_table").index
    at.text_input(key="fu_weights").input("0.2").run()
    assert "1 weights for 2 runs: give one weight per run, in the order of the runs, or leave the field blank for " \
           "equal weights." in [c.value for c in at.code]


@pytest.mark.parametrize("k", ["inf", "-inf", "nan", "x", "1e999"])
def test_a_parameter_in_the_url_that_is_no_number_in_range_starts_at_its_default(app, k):
    at = open_page(app, "fusion", **VIEW, method="rrf", p_k=k)
    assert_clean(at)
    assert at.number_input(key="fu_param_k").value == 60


def test_a_parameter_without_default_is_asked_for_and_tune_reports_its_folds(app):
    at = open_page(app, "fusion", **VIEW, method="rbc")
    assert "rbc needs phi (ranx has no default): give it above, or choose Tune." in texts(at).replace("\\", "")
    at.number_input(key="fu_param_phi").set_value(0.8).run()
    assert_clean(at)
    assert url(at, "p_phi") == ["0.8"] and "fused" in frame(at, "fu_table").index
    at.selectbox(key="fu_mode").set_value("tune").run()
    at.selectbox(key="fu_folds").set_value(2).run()
    assert_clean(at)
    assert url(at, "mode") == ["tune"] and url(at, "folds") == ["2"]
    report = [c.value for c in at.code if c.value.startswith("rbc: 100 configurations, 2-fold")]
    assert len(report) == 1


def test_a_learning_method_learns_from_the_collections_qrels(app):
    at = open_page(app, "fusion", **VIEW, method="mapfuse")
    assert_clean(at)
    assert at.selectbox(key="fu_mode").options == ["Learn from the judged topics", "Tune (cross-validation)"]
    assert at.selectbox(key="fu_mode").value == "train"
    assert "fused" in frame(at, "fu_table").index
    assert any(c.value.startswith("fused learned from the judged topics it is scored on here, so its scores and its "
                                  "tests against the parts are optimistic.") for c in at.code)


def test_saving_adds_a_run_everywhere_with_its_provenance(private_app):
    at = open_page(private_app, "fusion", **VIEW)
    at.text_input(key="fu_save_name").input("rrf-two")
    at.button(key="fu_save_button").click().run()
    assert_clean(at)
    assert "Saved run rrf-two to the collection" in texts(at).replace("\\", "")
    at.button(key="fu_save_button").click().run()        # the same name again: refused, in words
    assert ("Collection 'robust03-sample' already has a run named 'rrf-two'. Choose another name, or delete that run first."
            in [c.value for c in at.code])
    at.switch_page("app_pages/data.py")
    at.run()
    runs = frame(at, "data_runs_table").set_index("name")
    assert runs.loc["rrf-two", "fused"] == "rrf (min-max, k=60) of aplrob03a, UIUC03Rd1"
    assert runs["fused"].fillna("").tolist().count("") == 5
    at.switch_page("app_pages/leaderboard.py")
    at.run()
    assert "rrf-two" in at.multiselect(key="lb_runs").value
    assert "rrf-two" in frame(at, "lb_table").index


def test_a_viewer_sees_why_nothing_can_be_saved(store_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_STORE", store_path)
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "fusion", **VIEW)
        assert_clean(at)
        assert [b for b in at.button if "save" in b.label.lower()] == []
        assert "Read-only" in texts(at)
    finally:
        config.set_option("server.address", before)


def test_a_collection_of_one_run_says_what_to_upload(tmp_path, monkeypatch):
    store = sample_store(tmp_path)
    try:
        store.add_qrels("one", b"1 0 d1 1\n", filename="q.txt")
        store.add_run("one", b"1 Q0 d1 1 1.0 a\n", filename="a.run")
    finally:
        store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "fusion", collection="one")
    assert_clean(at)
    assert "Collection 'one' has 1 run(s); this page needs at least 2 runs." in texts(at).replace("\\", "")
    assert at.get("page_link")[0].proto.label == "Go to Data to upload runs"
    assert len(at.dataframe) == 0 and len(at.get("plotly_chart")) == 0
