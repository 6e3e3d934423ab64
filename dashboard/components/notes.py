"""A per-query note: a text area and a Save button. The page reads the stored note and saves it
through `on_save`, so next week's meeting sees this week's remarks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable

import streamlit as st

from dashboard.components.feedback import guard


@dataclass(frozen=True)
class Note:
    subject: Hashable  # what the note is about, e.g. (collection id, qid); a new subject reloads the text
    text: str          # the note as stored


def render_note(note: Note, *, on_save: Callable[[str], None], key: str) -> None:
    """The text area starts from `note.text` whenever the subject changes and keeps the user's
    edits otherwise; Save calls `on_save(text)` and shows a toast once it has returned."""
    marker = f"{key}_for"
    if st.session_state.get(marker) != note.subject:
        st.session_state[key] = note.text
        st.session_state[marker] = note.subject

    def _save() -> None:
        with guard("save the note"):
            on_save(st.session_state[key])
            st.session_state[f"{key}_saved"] = note.subject

    st.text_area("Note for this query", key=key, height=90,
                 placeholder="What did the meeting conclude about this topic?")
    st.button("Save note", key=f"{key}_save", on_click=_save, icon=":material/save:")
    if st.session_state.pop(f"{key}_saved", None) == note.subject:
        st.toast("Note saved", icon=":material/check:")
