"""st.cache_data wrapper around core.service.reproduce_stored (keys as in dashboard/cache/results.py: the store path,
the collection, the run ids by role, the measures, RBO's p and the store's data version)."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import store as store_resource


@st.cache_data(show_spinner=False, max_entries=32)
def reproduction(_store, store_key: str, cid: int, runs: tuple, measures: tuple, rbo_p: float, version: str):
    """`runs`: (role, run id) pairs; the Reproduction of core.repro."""
    from core.service.repro import reproduce_stored
    with store_resource.db_lock():   # evaluate_stored writes its results cache: one writer at a time
        return reproduce_stored(_store, cid, dict(runs), list(measures), rbo_p=rbo_p)
