"""st.dataframe inside a keyed container: read-only tables get no element id of their own, so the
container carries the key (`.st-key-<key>` in the page) for browser tests and AppTest lookups."""
from __future__ import annotations

import streamlit as st


def table(data, *, key: str, **kwargs):
    with st.container(key=key):
        return st.dataframe(data, **kwargs)
