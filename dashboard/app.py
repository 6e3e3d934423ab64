"""Rankboard dashboard entry point: page config, the shared collection picker, then routing.

Start it with `streamlit run dashboard/app.py` (add `--server.headless true` in scripts).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from core.errors import StoreError  # noqa: E402

st.set_page_config(layout="wide", page_title="Rankboard", page_icon="📊")

from dashboard import pages  # noqa: E402
from dashboard.cache import catalogue, store as store_resource  # noqa: E402
from dashboard.session import access, state  # noqa: E402
from dashboard.session.hugepages import without_hugepage_advice  # noqa: E402
from dashboard.components.sidebar import render_sidebar  # noqa: E402
from dashboard.components.theme import apply_theme  # noqa: E402

without_hugepage_advice()
apply_theme()
try:
    access.gate()       # the session's role; a login form (and a stop) where team mode needs one
    navigation = st.navigation(pages.all_pages())
    state.set_collection(render_sidebar(catalogue.collections(), key="sidebar", select=state.select_one,
                                       samples=catalogue.samples()))
    store_resource.new_data_notice()
    access.render_status(key="access")
    navigation.run()
except StoreError as err:  # damaged or busy store: plain words for the visitor, details in the server's log
    store_resource.LOG.error("store problem: %s", err)
    st.error(store_resource.public_message(err), icon=":material/error:")
