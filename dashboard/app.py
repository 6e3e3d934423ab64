"""Rankboard dashboard entry point: page config, the shared collection picker, then routing.

Start it with `python -m dashboard` (or `make dashboard`, or `streamlit run dashboard/app.py` from any folder):
the settings in dashboard/.streamlit/config.toml apply either way.
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
from dashboard.session import access, serverlog, state  # noqa: E402
from dashboard.session.hugepages import without_hugepage_advice  # noqa: E402
from dashboard.components.sidebar import render_sidebar  # noqa: E402
from dashboard.components.theme import apply_theme  # noqa: E402

without_hugepage_advice()
serverlog.configure()
apply_theme()
try:
    access.gate()       # the session's role; a login form (and a stop) where team mode needs one
    access.guard_store_writes()
    navigation = st.navigation(pages.all_pages())
    state.set_collection(render_sidebar(catalogue.collections(), key="sidebar", select=state.select_one,
                                       samples=catalogue.samples()))
    store_resource.new_data_notice()
    access.render_status(key="access")
    navigation.run()
except StoreError as err:  # damaged, busy or read-only store, full disk: plain words here, details in the log
    store_resource.LOG.error("store problem: %s", err)
    st.error(store_resource.public_message(err), icon=":material/error:")
except Exception:  # noqa: BLE001 - a visitor never sees a traceback, a path or a version; the log has them
    store_resource.LOG.exception("unexpected error on a page")
    st.error(serverlog.PUBLIC_ERROR, icon=":material/error:")
