"""The sidebar shared by all pages: which collection is being looked at."""
from __future__ import annotations

import streamlit as st

from dashboard import state


def render_sidebar(collections, *, key: str) -> dict | None:
    """The collection picker over `collections` (collection_id, name, n_runs, ...), bound to the URL
    parameter `collection`; returns the chosen {'id': int, 'name': str}, or None when there is none."""
    with st.sidebar:
        if collections.empty:
            st.caption("No collection yet: create one on the Data page.")
            return None
        names = list(collections["name"])
        latest = None       # without a choice in the URL or this session: the most recently changed collection
        if "changed_at" in collections.columns and collections["changed_at"].notna().any():
            latest = collections.loc[collections["changed_at"].idxmax(), "name"]
        name = state.select_one("Collection", names, key=f"{key}_collection", param="collection", default=latest,
                                help="Every page shows this collection's runs and qrels.")
        row = collections[collections["name"] == name].iloc[0]
        parts = []
        for col, label in (("n_runs", "runs"), ("n_topics", "topics"), ("n_qrels_sets", "qrels sets")):
            if col in collections.columns:
                parts.append(f"{int(row[col])} {label}")
        if parts:
            st.caption(" · ".join(parts))
        return {"id": int(row["collection_id"]), "name": str(name)}
