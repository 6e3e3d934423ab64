"""The collection's runs and qrels sets, with rename and delete (asks first)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.table import table as show_table

from core.errors import RankboardError
from core.fusion.trec import described
from dashboard.components.feedback import show_error, words
from dashboard.components.escape import md_escape


def render_counts(row: pd.Series, *, qrels: pd.DataFrame, key: str) -> None:
    cols = st.columns(5)
    judgments = int(qrels["n_judgments"].sum()) if not qrels.empty else 0
    for col, (label, value) in zip(cols, (("Runs", row.get("n_runs", 0)), ("Topics", row.get("n_topics", 0)),
                                          ("Qrels sets", row.get("n_qrels_sets", 0)), ("Judgments", judgments),
                                          ("Documents", row.get("n_documents", 0)))):
        col.metric(label, f"{int(value):,}")


def render_collections(collections: pd.DataFrame, *, key: str) -> None:
    cols = [c for c in ("name", "n_runs", "n_topics", "n_qrels_sets", "n_documents", "created_at")
            if c in collections.columns]
    show_table(collections[cols], key=key, hide_index=True, width="stretch", column_config={
        "name": "Collection", "n_runs": "Runs", "n_topics": "Topics", "n_qrels_sets": "Qrels sets",
        "n_documents": "Documents", "created_at": st.column_config.DatetimeColumn("Created", format="YYYY-MM-DD")})


def render_run_table(runs: pd.DataFrame, *, key: str) -> None:
    """The runs; a fused run's provenance (method, normalisation, parameters, parts) in "Fused from"."""
    view = runs[["name", "tag", "filename", "n_topics", "depth", "n_rows", "uploaded_at"]]
    if "metadata" in runs.columns:
        fused = [described(m) for m in runs["metadata"]]
        if any(fused):
            view = view.assign(fused=fused)
    show_table(view, key=key, hide_index=True, width="stretch", column_config={
        "name": "Run", "tag": "Tag", "filename": "File", "fused": "Fused from",
        "n_topics": st.column_config.NumberColumn("Topics", format="%d"),
        "depth": st.column_config.NumberColumn("Depth", format="%d", help="Most documents retrieved for a topic"),
        "n_rows": st.column_config.NumberColumn("Lines", format="localized"),
        "uploaded_at": st.column_config.DatetimeColumn("Uploaded", format="YYYY-MM-DD HH:mm"),
    })


def render_qrels_table(qrels: pd.DataFrame, *, key: str) -> None:
    view = qrels[["assessor", "filename", "is_default", "n_judgments", "n_topics"]]
    show_table(view, key=key, hide_index=True, width="stretch", column_config={
        "assessor": "Assessor", "filename": "File",
        "is_default": st.column_config.CheckboxColumn("Default", help="Used by the Leaderboard and Per-query pages"),
        "n_judgments": st.column_config.NumberColumn("Judgments", format="localized"),
        "n_topics": st.column_config.NumberColumn("Topics", format="%d"),
    })


def render_diversity_table(sets: pd.DataFrame, *, key: str) -> None:
    """The collection's subtopic (diversity) qrels sets."""
    show_table(sets[["assessor", "filename", "n_judgments", "n_topics", "n_subtopics"]], key=key, hide_index=True,
               width="stretch", column_config={
                   "assessor": "Assessor", "filename": "File",
                   "n_judgments": st.column_config.NumberColumn("Judgments", format="localized"),
                   "n_topics": st.column_config.NumberColumn("Topics", format="%d"),
                   "n_subtopics": st.column_config.NumberColumn("Subtopics", format="%d",
                                                                help="(topic, subtopic) pairs")})


def _do(action, key: str) -> None:
    try:
        action()
        st.session_state.pop(f"{key}_error", None)
    except RankboardError as err:
        st.session_state[f"{key}_error"] = words(err)


def render_run_admin(runs: pd.DataFrame, *, rename, delete, key: str) -> None:
    """Pick a run, then rename it or delete it (delete asks for confirmation)."""
    ids = dict(zip(runs["name"].astype(str), runs["run_id"].astype(int)))
    names = {i: n for n, i in ids.items()}
    chosen = st.selectbox("Run", list(ids), key=f"{key}_manage_run")
    run_id = ids[chosen]
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.text_input("New name", key=f"{key}_rename_to", placeholder=chosen)

    def _rename() -> None:
        # the name as typed: a click on Rename straight after typing sends the text with the click (a button
        # disabled until the text is committed would take the first click only to commit it)
        new_name = st.session_state.get(f"{key}_rename_to", "").strip()
        if not new_name:
            st.session_state[f"{key}_error"] = "Type the run's new name first, then press Rename."
        else:
            _do(lambda: _renamed(new_name), key)

    def _renamed(new_name: str) -> None:
        rename(run_id, new_name)
        st.session_state[f"{key}_manage_run"] = new_name   # keep the renamed run selected
        st.session_state[f"{key}_rename_to"] = ""

    right.button("Rename", key=f"{key}_rename", on_click=_rename)
    confirm_key = f"{key}_confirm_delete"
    if st.session_state.get(confirm_key) != run_id:
        st.button("Delete run", key=f"{key}_delete", icon=":material/delete:",
                  on_click=lambda: st.session_state.__setitem__(confirm_key, run_id))
    else:
        st.warning(md_escape(f"Delete run '{names[run_id]}' and its cached results? This cannot be undone."))
        yes, no, _ = st.columns([1, 1, 3])
        yes.button("Yes, delete it", key=f"{key}_delete_confirm", type="primary",
                   on_click=_do, args=(lambda: (delete(run_id), st.session_state.pop(confirm_key, None)), key))
        no.button("Cancel", key=f"{key}_delete_cancel",
                  on_click=lambda: st.session_state.pop(confirm_key, None))
    if st.session_state.get(f"{key}_error"):
        show_error(st.session_state[f"{key}_error"], title="Could not change the run")
