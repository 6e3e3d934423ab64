"""The sidebar shared by all pages: which collection is being looked at."""
from __future__ import annotations

from typing import Callable

import streamlit as st


def opening_collection(collections, samples=()) -> str | None:
    """The collection a session opens on without a choice in its URL: the user's most recently changed
    collection (`changed_at`), else the first one (the first bundled sample) when only `samples` are there."""
    if collections.empty:
        return None
    own = collections[~collections["name"].isin(list(samples))]
    if "changed_at" in own.columns and own["changed_at"].notna().any():
        return str(own.loc[own["changed_at"].idxmax(), "name"])
    return str(collections["name"].iloc[0])


def render_sidebar(collections, *, key: str, select: Callable, samples=()) -> dict | None:
    """The collection picker over `collections` (collection_id, name, n_runs, ...), drawn by `select` (the
    session's URL-bound selectbox, dashboard.session.state.select_one, which keeps the choice in the URL
    parameter `collection`); returns the chosen {'id': int, 'name': str}, or None when there is none.
    Without a choice in the URL or this session it opens on the user's most recently changed collection,
    and on the first collection when there are only the bundled `samples`."""
    with st.sidebar:
        if collections.empty:
            st.caption("No collection yet: create one on the Data page.")
            return None
        names = list(collections["name"])
        latest = opening_collection(collections, samples)
        name = select("Collection", names, key=f"{key}_collection", param="collection", default=latest,
                                help="Every page shows this collection's runs and qrels.")
        row = collections[collections["name"] == name].iloc[0]
        parts = []
        for col, label in (("n_runs", "runs"), ("n_topics", "topics"), ("n_qrels_sets", "qrels sets")):
            if col in collections.columns:
                parts.append(f"{int(row[col])} {label}")
        if parts:
            st.caption(" · ".join(parts))
        return {"id": int(row["collection_id"]), "name": str(name)}
