"""The store's catalogue as the pages see it: collections, runs and qrels sets, cached per store data
version (so a run loaded from the command line or a pipeline shows on the next interaction); and
`require_runs`, the guard a page starts with.
"""
from __future__ import annotations

import streamlit as st

from dashboard.session import state
from dashboard.components.feedback import empty_state
from dashboard.cache.store import data_version, get_store, store_path


@st.cache_data(show_spinner=False, max_entries=8)
def _collections(path: str, version: int):
    return get_store().collections()


@st.cache_data(show_spinner=False, max_entries=64)
def _runs(path: str, cid: int, version: int):
    return get_store().runs(cid)


@st.cache_data(show_spinner=False, max_entries=64)
def _qrels_sets(path: str, cid: int, version: int):
    return get_store().qrels_sets(cid)


@st.cache_data(show_spinner=False, max_entries=64)
def _diversity_sets(path: str, cid: int, version: int):
    from core.store.diversity import diversity_sets
    return diversity_sets(get_store(), cid)


def collections():
    """All collections (DataFrame with collection_id, name, n_runs, ...), cached per data version."""
    return _collections(str(store_path()), data_version())


def samples() -> set[str]:
    """The bundled sample collections' names: the sidebar opens on a user's own collection before them."""
    from core.store.store import sample_names
    return sample_names()


def runs(cid: int):
    """The collection's runs (core's Store.runs), cached per data version."""
    return _runs(str(store_path()), int(cid), data_version())


def qrels_sets(cid: int):
    """The collection's qrels sets (core's Store.qrels_sets), cached per data version."""
    return _qrels_sets(str(store_path()), int(cid), data_version())


def diversity_sets(cid: int):
    """The collection's subtopic (diversity) qrels sets (core.service.diversity), cached per data version."""
    return _diversity_sets(str(store_path()), int(cid), data_version())


def changed() -> None:
    """Drop the cached catalogue (a write changes the data version anyway; this frees the old entries)."""
    for fn in (_collections, _runs, _qrels_sets, _diversity_sets):
        fn.clear()


def require_runs(*, key: str, minimum: int = 1, need_qrels: bool = True) -> tuple[dict, dict]:
    """(collection, {run name: run id}) or an empty state + st.stop() when there is nothing to show."""
    coll = state.collection()
    if coll is None:
        empty_state("There is no collection yet. Create one and upload runs and qrels.", key=key)
        st.stop()
    runs_df = runs(coll["id"])
    if need_qrels and qrels_sets(coll["id"]).empty:
        empty_state(f"Collection '{coll['name']}' has no qrels yet. Upload a qrels file first, then runs.",
                    key=key, upload_hint="qrels")
        st.stop()
    if len(runs_df) < minimum:
        what = "a run" if minimum == 1 else f"at least {minimum} runs"
        empty_state(f"Collection '{coll['name']}' has {len(runs_df)} run(s); this page needs {what}.",
                    key=key, upload_hint="runs")
        st.stop()
    return coll, dict(zip(runs_df["name"].astype(str), runs_df["run_id"].astype(int)))
