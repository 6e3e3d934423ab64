"""Static CSS (no user text): tighter top spacing so a 1280x720 projector shows the content, not padding."""
from __future__ import annotations

import streamlit as st

CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding: 2.2rem 2.5rem 2rem 2.5rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2rem; padding-top: 0; padding-bottom: 0.4rem; }
[data-testid="stHeader"] { background: transparent; height: 2.2rem; min-height: 2.2rem; }
[data-testid="stSidebarHeader"] { height: 1rem; min-height: 1rem; padding-bottom: 0; }
[data-testid="stMetricValue"] { font-size: 1.9rem; }
</style>
"""


def apply_theme() -> None:
    st.html(CSS)
