"""st.cache_data wrapper around core.judges_stored (keys as in dashboard/cached.py: store path, collection,
qrels set ids, run ids, measure and options, plus the collection's `version` digest)."""
from __future__ import annotations

import streamlit as st

from dashboard import state

SAMPLE = "dl23-llmjudge"      # the bundled collection that shows the Judges page at its best


@st.cache_data(show_spinner=False, max_entries=32)
def report(_store, store_key: str, cid: int, reference: int, judges: tuple, run_ids: tuple, measure: str,
           rel_level: int, correction: str, alpha: float, version: str):
    from core.judges_store import judges_stored
    with state.db_lock():   # reads only, but the store's one connection is shared by every session
        return judges_stored(_store, cid, reference, list(judges), list(run_ids), measure=measure,
                             rel_level=rel_level, correction=correction, alpha=alpha)


def assessor_names(sets) -> dict[str, int]:
    """Display name -> qrels_id, as core.judges_store names the sets in its report."""
    from core.judges_store import labels_of
    return {name: qid for qid, name in labels_of(sets).items()}
