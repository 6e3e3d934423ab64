"""The Nuggets view of the Per-query page: one topic's nuggets (vital first) by the runs, each cell the run's
assignment in words; a collection without nuggets shows no such view; viewers see it too."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.components.escape import md_escape
from tests.apptest_kit import APP, TIMEOUT, assert_clean, keyed, open_page, url
from tests.cases import nuggets as case
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")   # shares Streamlit's caches with the other AppTest modules


@pytest.fixture
def rag_app(tmp_path, monkeypatch):
    store = sample_store(tmp_path)
    store.add_nuggets("rag", *case.write(tmp_path, skip=(("rag-hybrid", "t3"),)))
    store.close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def matrix(at):
    return keyed(at, "pq_nuggets").table[0].value


def test_the_matrix_shows_a_topics_nuggets_vital_first_by_run(rag_app):
    at = open_page(rag_app, "perquery", collection="rag", nugget_topic="t1")
    assert_clean(at)
    shown = matrix(at)
    assert list(shown.columns) == ["Nugget", "Importance", *map(md_escape, case.RUNS)]   # st.table reads markdown
    assert shown["Nugget"].tolist() == [md_escape(t) for t, _ in case.NUGGETS["t1"]]    # vital ones come first
    assert shown["Importance"].tolist() == ["vital", "vital", "okay", "okay"]
    words = {"support": "✓ support", "partial_support": "◐ partial", "not_support": "✗ not supported"}
    for record in case.assignments():
        if record["qid"] == "t1":
            given = {md_escape(n["text"]): words[n["assignment"]] for n in record["nuggets"]}
            assert shown[md_escape(record["run_id"])].tolist() == [given[t] for t in shown["Nugget"]]
    caption = " ".join(c.value for c in at.caption)
    assert "Topic t1: 4 nuggets (2 vital), by 3 runs." in caption


def test_another_topic_is_picked_and_kept_in_the_url(rag_app):
    at = open_page(rag_app, "perquery", collection="rag")
    assert at.selectbox(key="pq_nugget_topic").options == ["t1", "t2", "t3", "t4"]
    at.selectbox(key="pq_nugget_topic").set_value("t3").run()
    assert_clean(at)
    shown = matrix(at)
    assert url(at, "nugget_topic") == ["t3"]
    assert shown["Importance"].tolist() == ["vital", "vital", "okay", "okay", "okay"]
    assert shown[md_escape("rag-hybrid")].tolist() == ["— no answer"] * 5         # no assignments for t3
    assert shown[md_escape("rag-bm25")].str.len().min() > 0


def test_a_long_nugget_is_shown_whole(rag_app):
    at = open_page(rag_app, "perquery", collection="rag", nugget_topic="t4")
    assert_clean(at)
    assert matrix(at)["Nugget"].tolist()[0] == md_escape(case.LONG)


def test_a_collection_without_nuggets_has_no_nuggets_view(rag_app):
    at = open_page(rag_app, "perquery", collection=SAMPLE_COLLECTION)
    assert_clean(at)
    assert not [e for e in at.expander if "Nuggets" in e.label]
    assert not [s for s in at.selectbox if s.key == "pq_nugget_topic"]
