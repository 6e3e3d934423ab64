"""What a page needs before it can draw: `require_runs`, the guard a page starts with (an empty state that says
what to upload, then st.stop(), when the collection has nothing to show)."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import catalogue
from dashboard.components.feedback import empty_state
from dashboard.session import state


def require_runs(*, key: str, minimum: int = 1, need_qrels: bool = True) -> tuple[dict, dict]:
    """(collection, {run name: run id}) or an empty state + st.stop() when there is nothing to show. A collection
    with imported measures needs no qrels: its runs can be compared on those."""
    coll = state.collection()
    if coll is None:
        empty_state("There is no collection yet. Create one and upload runs and qrels.", key=key)
        st.stop()
    runs_df = catalogue.runs(coll["id"])
    if need_qrels and catalogue.qrels_sets(coll["id"]).empty and not catalogue.imported(coll["id"]):
        empty_state(f"Collection '{coll['name']}' has no qrels yet. Upload a qrels file first, then runs.",
                    key=key, upload_hint="qrels")
        st.stop()
    if len(runs_df) < minimum:
        what = "a run" if minimum == 1 else f"at least {minimum} runs"
        empty_state(f"Collection '{coll['name']}' has {len(runs_df)} run(s); this page needs {what}.",
                    key=key, upload_hint="runs")
        st.stop()
    return coll, dict(zip(runs_df["name"].astype(str), runs_df["run_id"].astype(int)))
