"""The store's catalogue as the pages see it: collections, runs and qrels sets, cached per store data
version (so a run loaded from the command line or a pipeline shows on the next interaction). The guard a page
starts with (an empty state when there is nothing to show) is dashboard/session/gates.py.
"""
from __future__ import annotations

import streamlit as st

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


@st.cache_data(show_spinner=False, max_entries=64)
def _imported(path: str, cid: int, version: int) -> dict:
    found = get_store().imported_measures(cid)
    return dict(zip(found["measure"].astype(str), found["source"].astype(str)))


def imported(cid: int) -> dict[str, str]:
    """The collection's imported measures -> their source (core's Store.imported_measures), cached per data version."""
    return _imported(str(store_path()), int(cid), data_version())


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
    for fn in (_collections, _runs, _qrels_sets, _diversity_sets, _imported):
        fn.clear()
