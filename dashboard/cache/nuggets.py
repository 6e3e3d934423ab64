"""A collection's RAG nuggets as the Per-query page shows them (core's Store.nugget_topics and nugget_matrix),
cached per store data version, like dashboard/cache/catalogue.py."""
from __future__ import annotations

import streamlit as st

from dashboard.cache.store import data_version, get_store, store_path


@st.cache_data(show_spinner=False, max_entries=64)
def _topics(path: str, cid: int, version: int) -> list[str]:
    return get_store().nugget_topics(cid)


@st.cache_data(show_spinner=False, max_entries=64)
def _matrix(path: str, cid: int, qid: str, version: int):
    return get_store().nugget_matrix(cid, qid)


def topics(cid: int) -> list[str]:
    """The collection's topics that have nuggets ([] for a collection without nuggets)."""
    return _topics(str(store_path()), int(cid), data_version())


def matrix(cid: int, qid: str):
    """Topic `qid`'s nuggets by runs: nugget, text, importance, run_id, run, assignment."""
    return _matrix(str(store_path()), int(cid), str(qid), data_version())
