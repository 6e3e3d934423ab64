"""Topic texts where a page names a query: the text when the collection has one, else the topic id alone, and a
hint to load topics when the collection has none (never "None" or "nan")."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.pages import page_file

NO_TEXTS = ("This collection has no topic texts, so queries show by their ids. Load a topic file on the Data page "
            "(the Topics tab) to see each query's text.")


def text_of(value) -> str:
    """A topic's text, or "" when it has none (None, NaN, a blank string)."""
    return value.strip() if isinstance(value, str) else ""


def clean(texts: pd.Series) -> pd.Series:
    """`text_of` over a column: "" for a topic without text."""
    return texts.astype(object).where(texts.notna(), "").astype(str).str.strip()


def label(qid, text, width: int | None = None) -> str:
    """"<qid>: <text>" (shortened to `width` characters), or the topic id alone when it has no text."""
    shown = f"{qid}: {text_of(text)}" if text_of(text) else str(qid)
    return shown if width is None else shown[:width]


def render_hint(*, key: str) -> None:
    """The hint to load topics, with a link to the Data page (for a collection without topic texts)."""
    with st.container(key=key):
        st.caption(NO_TEXTS)
        st.page_link(page_file("Data"), label="Go to Data to load topics", icon=":material/upload:")
