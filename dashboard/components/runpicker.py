"""The collection's runs as the pages need them, and the page-level empty state."""
from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.components.feedback import empty_state


def require_runs(*, key: str, minimum: int = 1, need_qrels: bool = True) -> tuple[dict, dict]:
    """(collection, {run name: run id}) or an empty state + st.stop() when there is nothing to show."""
    coll = state.collection()
    if coll is None:
        empty_state("There is no collection yet. Create one and upload runs and qrels.", key=key)
        st.stop()
    runs = state.runs(coll["id"])
    if need_qrels and state.qrels_sets(coll["id"]).empty:
        empty_state(f"Collection '{coll['name']}' has no qrels yet. Upload a qrels file first, then runs.",
                    key=key, upload_hint="qrels")
        st.stop()
    if len(runs) < minimum:
        what = "a run" if minimum == 1 else f"at least {minimum} runs"
        empty_state(f"Collection '{coll['name']}' has {len(runs)} run(s); this page needs {what}.",
                    key=key, upload_hint="runs")
        st.stop()
    return coll, dict(zip(runs["name"].astype(str), runs["run_id"].astype(int)))
