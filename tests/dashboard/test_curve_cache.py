"""The Curves page's caches are kept per run (dashboard/cache/curves.py run_stamps), not per data version: a run loaded
by another process leaves the other runs' curves cached, and the cached curves stay those that core computes from
the store for the same runs (the plain, version-keyed path), through a load, a rename and a new selection."""
from __future__ import annotations

import pandas as pd
import pytest
import streamlit as st

import core.service.curves as curves_module
from core.analysis.curves import roc_auc
from dashboard.cache import curves as cached_curves
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store


def _plain(store, cid, ids):
    """core's curves of `ids`, computed afresh: what a version-keyed cache would hold."""
    pr = curves_module.pr_curve_stored(store, cid, list(ids), average=True, per_topic=True)
    roc = curves_module.roc_curve_stored(store, cid, list(ids), average=True, per_topic=False)
    return pr, roc, roc_auc(roc)


def _cached(store, cid, ids):
    runs, sets = store.runs(cid), store.qrels_sets(cid)
    pr = cached_curves.pr_curves(store, str(store.path), cid, tuple(ids), runs=runs, sets=sets)
    roc, auc = cached_curves.roc_curves(store, str(store.path), cid, tuple(ids), runs=runs, sets=sets)
    return pr, roc, auc


def _same(got, want):
    for g, w in zip(got, want):
        g = g.sort_values(list(g.columns[:2]), kind="stable").reset_index(drop=True)
        w = w.sort_values(list(w.columns[:2]), kind="stable").reset_index(drop=True)
        pd.testing.assert_frame_equal(g, w, check_dtype=False)


@pytest.fixture
def counted(monkeypatch):
    """The run ids each core computation was asked for."""
    calls = {"pr": [], "roc": []}
    pr, roc = curves_module.pr_curve_stored, curves_module.roc_curve_stored
    monkeypatch.setattr(curves_module, "pr_curve_stored",
                        lambda s, c, ids, **k: calls["pr"].append(list(ids)) or pr(s, c, ids, **k))
    monkeypatch.setattr(curves_module, "roc_curve_stored",
                        lambda s, c, ids, *a, **k: calls["roc"].append(list(ids)) or roc(s, c, ids, *a, **k))
    return calls


def test_a_new_run_computes_only_itself_and_the_curves_stay_core_s(tmp_path, monkeypatch, counted):
    st.cache_resource.clear()
    store = sample_store(tmp_path)
    monkeypatch.setenv("RANKBOARD_STORE", str(store.path))
    try:
        cid = int(store.collections().set_index("name").at[SAMPLE_COLLECTION, "collection_id"])
        ids = [int(r) for r in store.runs(cid)["run_id"]]
        _same(_cached(store, cid, ids[:3]), _plain(store, cid, ids[:3]))
        assert counted["pr"][-1] == ids[:3] and counted["roc"][-1] == ids[:3]

        _same(_cached(store, cid, ids[1:]), _plain(store, cid, ids[1:]))     # a wider selection: only the new runs
        assert counted["pr"][-2] == ids[3:] and counted["roc"][-2] == ids[3:]

        before = store.data_version()
        run = tmp_path / "new.run"
        run.write_text("303 Q0 FBIS3-10082 1 2.5 new\n303 Q0 FBIS3-10169 2 2.0 new\n")
        new_id = int(store.add_run(SAMPLE_COLLECTION, str(run), name="new").id)
        assert store.data_version() > before
        n = len(counted["pr"])
        _same(_cached(store, cid, ids), _plain(store, cid, ids))              # the load computes nothing here
        assert len(counted["pr"]) == n + 1 and len(counted["roc"]) == n + 1   # (+1: _plain's own call)
        _same(_cached(store, cid, ids + [new_id]), _plain(store, cid, ids + [new_id]))
        assert counted["pr"][-2] == [new_id] and counted["roc"][-2] == [new_id]

        store.rename_run(ids[0], "renamed")                                   # the curves carry the new name
        got = _cached(store, cid, ids)
        _same(got, _plain(store, cid, ids))
        assert "renamed" in set(got[0]["run"]) and counted["pr"][-2] == [ids[0]]
    finally:
        store.close()
        st.cache_resource.clear()


def test_a_run_without_interpolated_precision_leaves_the_others_drawn(tmp_path, monkeypatch):
    """A run of imported scores only has no PR rows: computed alone it must not fail the view (the plain path, the
    whole selection at once, draws the other runs); a view of it alone gets core's own error."""
    from core.errors import OptionError
    st.cache_resource.clear()
    store = sample_store(tmp_path)
    monkeypatch.setenv("RANKBOARD_STORE", str(store.path))
    try:
        cid = int(store.collections().set_index("name").at[SAMPLE_COLLECTION, "collection_id"])
        ids = [int(r) for r in store.runs(cid)["run_id"]][:3]
        _cached(store, cid, ids)
        store.add_scores(SAMPLE_COLLECTION, b"run,qid,measure,value\nscored,303,judge,0.5\n", filename="s.csv")
        new = int(store.runs(cid).set_index("name").at["scored", "run_id"])
        got = _cached(store, cid, ids + [new])
        _same(got, _plain(store, cid, ids + [new]))
        assert "scored" not in set(got[0]["run"])
        with pytest.raises(OptionError, match="no IPrec@r"):
            _cached(store, cid, [new])
    finally:
        store.close()
        st.cache_resource.clear()


def test_a_run_renamed_after_the_catalogue_was_read_is_not_kept_under_its_old_name(tmp_path, monkeypatch):
    """The catalogue can be a data version behind: a run renamed meanwhile is drawn under the store's name for that
    view, and its curves are not kept under the stale stamp (renamed back later, the run is drawn again)."""
    st.cache_resource.clear()
    store = sample_store(tmp_path)
    monkeypatch.setenv("RANKBOARD_STORE", str(store.path))
    try:
        cid = int(store.collections().set_index("name").at[SAMPLE_COLLECTION, "collection_id"])
        before, sets = store.runs(cid), store.qrels_sets(cid)
        ids = tuple(int(r) for r in before["run_id"])[:3]
        name = str(before.set_index("run_id").at[ids[0], "name"])
        store.rename_run(ids[0], "elsewhere")
        stale = cached_curves.pr_curves(store, str(store.path), cid, ids, runs=before, sets=sets)
        assert "elsewhere" in set(stale["run"]) and name not in set(stale["run"])
        store.rename_run(ids[0], name)
        again = _cached(store, cid, ids)
        _same(again, _plain(store, cid, ids))
        assert name in set(again[0]["run"]) and name in set(again[1]["run"]) and name in set(again[2]["run"])
    finally:
        store.close()
        st.cache_resource.clear()
