"""The Agreement page's qrels caches are keyed on the qrels sets (dashboard/cache/results.py qrels_stamp), not on the
store's data version: a run loaded by another process leaves agreement cached, and the cached numbers stay those that
core computes from the store's qrels (the plain, version-keyed path)."""
from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import core.agreement.qrels as agreement_module
from core.store.store import Store
from dashboard.cache.results import qrels_stamp
from tests.apptest_kit import APP, TIMEOUT, assert_clean, open_page
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")


def test_the_stamp_names_each_set_by_id_and_counts(tmp_path):
    with sample_store(tmp_path) as store:
        sets = store.qrels_sets(SAMPLE_COLLECTION)
        ids = tuple(int(q) for q in sets["qrels_id"])
        want = tuple((int(q), int(n), int(t)) for q, n, t in zip(sets["qrels_id"], sets["n_judgments"],
                                                                  sets["n_topics"]))
    assert qrels_stamp(sets, ids) == want and qrels_stamp(sets, ids[::-1]) == want[::-1]


def test_a_new_run_leaves_agreement_cached_and_right(tmp_path, monkeypatch):
    sample_store(tmp_path).close()
    path = tmp_path / "sample.duckdb"
    monkeypatch.setenv("RANKBOARD_STORE", str(path))
    st.cache_data.clear()
    calls = []
    real = agreement_module.agreement
    monkeypatch.setattr(agreement_module, "agreement", lambda *a, **k: calls.append(1) or real(*a, **k))

    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "agreement", collection=SAMPLE_COLLECTION)
    assert_clean(at)
    first = [m.value for m in at.metric]
    assert len(calls) == 1

    store = Store.open(str(path), load_sample=False)       # another process's load: a new data version
    try:
        before = store.data_version()
        run = (tmp_path / "new.run")
        run.write_text("303 Q0 FBIS3-10082 1 2.5 new\n")
        store.add_run(SAMPLE_COLLECTION, str(run), name="new")
        assert store.data_version() > before
        sets = store.qrels_sets(SAMPLE_COLLECTION)
        a, b = (int(q) for q in sets["qrels_id"][:2])
        names = tuple(sets["assessor"][:2].astype(str))
        plain = real(store.qrels(a), store.qrels(b), rel_level=None, weights="linear", names=names)
    finally:
        store.close()

    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "agreement", collection=SAMPLE_COLLECTION)
    assert_clean(at)
    assert len(calls) == 1                                  # not computed again for the new run
    assert [m.value for m in at.metric] == first
    assert at.metric[0].value == f"{plain.cohen_kappa:.3f}"
