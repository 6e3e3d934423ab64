"""AppTest: the History page. Without a run that names a system it says how to give runs one; with four versions of
one system it draws them in version order with the significant step marked, lists the step's topics, and a topic
picked opens Per-query on that pair; the choices are in the URL."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_kit import APP, TIMEOUT, assert_clean, frame, open_page, texts, url
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)
from tests.cases.versions import SYSTEM, add_versions
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")


@pytest.fixture(scope="module")
def versions_store(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("history")
    with sample_store(tmp) as store:
        add_versions(store, SAMPLE_COLLECTION, tmp)
    return str(tmp / "sample.duckdb")


@pytest.fixture
def history_app(versions_store, monkeypatch):
    monkeypatch.setenv("RANKBOARD_STORE", versions_store)
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def test_no_system_yet_says_how_to_give_one(app):
    at = open_page(app, "history")
    assert_clean(at)
    assert at.title[0].value == "History"
    assert ("No run of collection 'robust03-sample' has a system yet. Give runs a system and a version when loading "
            "them") in texts(at).replace("\\", "")


def test_versions_in_order_and_the_marked_step(history_app):
    at = open_page(history_app, "history", collection=SAMPLE_COLLECTION)
    assert_clean(at)
    assert at.multiselect(key="hi_systems").value == [SYSTEM]
    table = frame(at, "hi_table")
    assert list(table["version"]) == ["v1", "v2", "v9", "v10"]
    assert list(table["mark"]) == ["", "", "▲", ""]
    assert table["mean"].iloc[2] > table["mean"].iloc[1]
    step = at.selectbox(key="hi_step")
    assert step.value == f"{SYSTEM}-v9" and url(at, "step") == [f"{SYSTEM}-v9"]
    assert step.options[1].startswith(f"{SYSTEM}: v2 → v9 ▲ (Δ +")
    moved = next(d.value for d in at.dataframe if "qid" in d.value.columns)
    assert len(moved) == 20 and list(moved.columns) == ["qid", "text", "before", "after", "delta"]
    assert moved["delta"].abs().is_monotonic_decreasing and (moved["delta"] >= 0).all()
    assert at.selectbox(key="hi_topic").options[1].startswith(f"{moved['qid'].iloc[0]} (Δ +")
    plain = texts(at).replace("\\", "")
    assert "significantly better / worse than the version before (paired t-test" in plain


def test_the_correction_and_test_are_in_the_url(history_app):
    at = open_page(history_app, "history", collection=SAMPLE_COLLECTION, correction="bonferroni", test="wilcoxon")
    assert_clean(at)
    assert at.selectbox(key="hi_test").value == "wilcoxon"
    plain = texts(at).replace("\\", "")
    assert "Wilcoxon signed-rank test" in plain and "Bonferroni correction over the 3 steps" in plain
    at.selectbox(key="hi_correction").set_value("none").run()
    assert_clean(at)
    assert url(at, "correction") == ["none"]
    at.selectbox(key="hi_step").set_value(f"{SYSTEM}-v2").run()
    assert url(at, "step") == [f"{SYSTEM}-v2"]


def test_a_topic_of_the_step_opens_per_query(history_app):
    at = open_page(history_app, "history", collection=SAMPLE_COLLECTION, measure="AP")
    assert_clean(at)
    topic = at.selectbox(key="hi_topic")
    qid = topic.options[1].split(" ")[0]
    topic.set_value(qid).run()
    assert_clean(at)
    assert at.title[0].value == "Per-query comparison"
    assert at.selectbox(key="pq_baseline").value == f"{SYSTEM}-v2"
    assert at.selectbox(key="pq_run").value == f"{SYSTEM}-v9"
    assert at.selectbox(key="pq_measure").value == "AP"
    assert at.selectbox(key="pq_query").value == qid
    assert url(at, "query") == [qid] and url(at, "run") == [f"{SYSTEM}-v9"]


def test_an_imported_measure_is_offered_and_followed(versions_store, tmp_path, monkeypatch):
    """A judge's per-query scores loaded for the four versions are offered as 'judge · imported (LLM judge)' and
    followed over the versions like a computed measure."""
    import shutil
    path = tmp_path / "imported.duckdb"
    shutil.copy(versions_store, path)
    from core.store.store import Store
    store = Store.open(str(path), load_sample=False)
    try:
        runs = store.runs(SAMPLE_COLLECTION)
        names = [n for n in runs["name"] if str(n).startswith(f"{SYSTEM}-")]
        qids = ["301", "302", "303", "304"]
        csv = "run,qid,measure,value\n" + "".join(f"{n},{q},judge,{0.1 * i + 0.01 * j:.2f}\n"
                                                  for i, n in enumerate(names) for j, q in enumerate(qids))
        store.add_scores(SAMPLE_COLLECTION, csv.encode(), filename="judge.csv", label="LLM judge")
    finally:
        store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(path))
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "history", collection=SAMPLE_COLLECTION,
                   measure="judge")
    assert_clean(at)
    box = at.selectbox(key="hi_measure")
    assert box.value == "judge" and "judge · imported (LLM judge)" in box.options
    table = frame(at, "hi_table")
    assert list(table["version"]) == ["v1", "v2", "v9", "v10"]
    assert table["mean"].tolist() == pytest.approx([0.015, 0.115, 0.215, 0.315], abs=1e-9)
