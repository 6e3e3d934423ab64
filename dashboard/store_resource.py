"""The one Store this Streamlit process shares between browser sessions, and the lock around it.

Every page and cached call gets the store from `get_store()` and takes a fresh cursor per call
(a DuckDB connection is not thread-safe); writes, and reads that write a cache, hold `db_lock()`.
This is the one place the dashboard opens the store.
"""
from __future__ import annotations

import os
import threading

import streamlit as st

from core.errors import RankboardError
from core.store import Store


@st.cache_resource(show_spinner="Opening the Rankboard store...")
def _open_store(path: str | None) -> Store:
    return Store.open(path)


@st.cache_resource
def _db_lock(path: str | None) -> threading.RLock:
    return threading.RLock()


def store_path() -> str | None:
    return os.environ.get("RANKBOARD_STORE") or None


def get_store() -> Store:
    """The process-wide Store (one DuckDB connection); core calls take a fresh cursor each.
    If the store cannot be opened (locked by another process, newer schema), say so and stop."""
    try:
        return _open_store(store_path())
    except RankboardError as err:
        st.error("Rankboard cannot open its store", icon=":material/error:")
        st.code(str(err), language=None, wrap_lines=True)
        st.stop()


def db_lock() -> threading.RLock:
    """Serialises store access across browser sessions (a DuckDB connection is not thread-safe)."""
    return _db_lock(store_path())
