"""st.cache_data wrapper around core.judges_stored (keys as in dashboard/cache/results.py: store path, collection,
qrels set ids, run ids, measure and options, plus the collection's `version` digest)."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import store as store_resource

SAMPLE = "dl23-llmjudge"      # the bundled collection that shows the Judges page at its best


@st.cache_data(show_spinner=False, max_entries=32)
def report(_store, store_key: str, cid: int, reference: int, judges: tuple, run_ids: tuple, measure: str,
           rel_level: int, correction: str, alpha: float, version: str):
    from core.service.judges import judges_stored
    with store_resource.db_lock():   # reads only, but the store's one connection is shared by every session
        return judges_stored(_store, cid, reference, list(judges), list(run_ids), measure=measure,
                             rel_level=rel_level, correction=correction, alpha=alpha)


def assessor_names(sets) -> dict[str, int]:
    """Display name -> qrels_id, as core.service.judges names the sets in its report."""
    from core.service.judges import labels_of
    return {name: qid for qid, name in labels_of(sets).items()}


def default_and_names(sets) -> tuple[str | None, dict[str, int]]:
    """(the default qrels set's display name or None, display name -> qrels_id) of a collection's qrels sets."""
    names = assessor_names(sets)
    defaults = set(sets.loc[sets["is_default"], "qrels_id"]) if len(sets) else set()
    return next((n for n, q in names.items() if q in defaults), None), names
