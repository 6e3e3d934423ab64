"""Per-query notes, persisted in the store so next week's meeting sees this week's remarks."""
from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.components.feedback import guard


def render_note(collection_id: int, qid: str, *, key: str) -> None:
    store = state.get_store()
    marker = f"{key}_for"
    if st.session_state.get(marker) != (collection_id, qid):   # a new topic: load its stored note
        st.session_state[key] = store.get_note(collection_id, qid)
        st.session_state[marker] = (collection_id, qid)

    def _save() -> None:
        with guard("save the note"), state.db_lock():
            store.set_note(collection_id, qid, st.session_state[key])
            st.session_state[f"{key}_saved"] = qid

    st.text_area("Note for this query", key=key, height=90,
                 placeholder="What did the meeting conclude about this topic?")
    st.button("Save note", key=f"{key}_save", on_click=_save, icon=":material/save:")
    if st.session_state.pop(f"{key}_saved", None) == qid:
        st.toast("Note saved", icon=":material/check:")
