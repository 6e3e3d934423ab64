"""st.cache_data wrapper for the History page (the runs' lineage is dashboard/cache/catalogue.py's). Keys as in
dashboard/cache/results.py: the store path, the collection, the systems, the measure, the test and the store's data
version. The steps' p-values are cached uncorrected; the page applies the correction and alpha with
History.with_correction, so changing only those is instant."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import store as store_resource


@st.cache_data(show_spinner=False, max_entries=32)
def history(_store, store_key: str, cid: int, systems: tuple, measure: str, test: str, version: str):
    """(core.stats.history.History without a correction, the per-query table it was computed from)."""
    from core.service.history import history_stored
    with store_resource.db_lock():   # evaluate_stored writes its results cache: one writer at a time
        return history_stored(_store, cid, list(systems), measure, test=test)
