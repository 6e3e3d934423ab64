"""The one Store this Streamlit process shares between browser sessions, and the lock around it.

Every page and cached call gets the store from `get_store()` and takes a fresh cursor per call
(a DuckDB connection is not thread-safe); reads that write a cache hold `db_lock()`, which is also a
store session. This is the one place the dashboard opens the store.

The dashboard does not own the store file: it holds it only while it works (and for LINGER seconds after,
while no other process wants it), so the command line and pipelines load runs while it serves
(core/store/access.py). `data_version()` is the store's write counter; the catalogue and cached results are
keyed on it, and `new_data_notice()` tells an open page when another process has written.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager

import streamlit as st

from core.store import access as store_access
from core.errors import RankboardError, StoreBusyError, StoreError, StoreReadOnlyError
from core.store.store import Store

LOG = logging.getLogger("rankboard.dashboard")
# Seconds the dashboard keeps the store file after its last query while no other process waits for it:
# page views in a row reuse the open file (and DuckDB's cache) instead of opening it for every query.
LINGER = float(os.environ.get("RANKBOARD_LINGER", "2"))
_SEEN = "_rankboard_data_version"


@st.cache_resource(show_spinner="Opening the Rankboard store...")
def _open_store(path: str | None) -> Store:
    return Store.open(path, load_sample=True, linger=LINGER)


@st.cache_resource
def _db_lock(path: str | None) -> threading.RLock:
    return threading.RLock()


def store_path() -> str | None:
    return os.environ.get("RANKBOARD_STORE") or None


def public_message(err: Exception) -> str:
    """What a visitor may see about a store problem: no path, interpreter or process id (those go to the log)."""
    return err.public if isinstance(err, StoreError) else StoreError.public


def read_only_notice() -> str:
    """What every visitor is told about a store that can only be read (no path: that is in the server's log)."""
    return StoreReadOnlyError.public


def get_store() -> Store:
    """The process-wide Store; core calls take a fresh cursor each. If the store cannot be opened (damaged,
    busy for too long, newer schema), say so in plain words, log the details, and stop."""
    try:
        store = _open_store(store_path())
    except RankboardError as err:
        LOG.error("cannot open the store: %s", err)
        st.error(public_message(err), icon=":material/error:")
        st.stop()
    if store.read_only and not getattr(store, "_logged_read_only", False):
        store._logged_read_only = True
        LOG.warning("the store is read-only; the dashboard only reads it: %s", store.read_only_error())
    return store


@contextmanager
def db_lock():
    """Serialises cache-writing reads across browser sessions, inside one store session."""
    with _db_lock(store_path()), get_store().session():
        yield


# Seconds a page waits for the store's data version while another process holds the store (a load) before it
# draws with the version it read last: its views are cached under that version, so it draws at once, and the
# new-data notice appears when the load commits. Plain equivalent: wait for the store as every other read does.
BUSY_WAIT = 0.25
# Seconds the data version read last is taken as current without asking the store, while the version hint
# (<store>.version, rewritten after every commit that bumps the version) has not changed since that read: a script
# run then reads one small file instead of taking a store session and querying meta, which under a team's load was
# a fifth of the page's time. A commit whose hint could not be written is seen within this many seconds. Plain
# equivalent: HINT_TRUST = 0, the store asked on every run (tests/dashboard/test_busy_store.py compares the two).
HINT_TRUST = 5.0
# store path -> (the data version read last, the version hint read just before it, when it was read: monotonic s)
_LAST: dict[str, tuple[int, str, float]] = {}


def data_version() -> int:
    """The store's data version (every committed write increases it); part of every cache key. While the version
    hint is unchanged since the last read (for up to HINT_TRUST seconds), that read's version; while another
    process holds the store for more than BUSY_WAIT seconds, the version read last (see `last_seen_hint`)."""
    store = get_store()
    key = str(store.path)
    hint = store_access.read_version_hint(store.path)
    last = _LAST.get(key)
    if last is not None and hint == last[1] and time.monotonic() - last[2] < HINT_TRUST:
        return last[0]
    try:
        version = store.data_version(timeout=BUSY_WAIT if last is not None else None)
    except StoreBusyError:
        LOG.info("the store is busy; drawing with data version %s", last[0])
        return last[0]
    _LAST[key] = (version, hint, time.monotonic())
    return version


def last_seen_hint(path) -> str:
    """The version hint that stood before the data version read last: a page drawn with that version compares the
    hint to it, so a write that commits during (or just before) a busy wait is announced, never missed."""
    last = _LAST.get(str(path))
    return last[1] if last is not None else store_access.read_version_hint(path)


def new_data_notice(*, every: float = 3.0) -> None:
    """A small fragment that looks at the store's version hint every few seconds (a file read, not a query)
    and, when another process has written since this page was drawn, offers to show the new data."""
    path = get_store().path
    st.session_state[_SEEN] = last_seen_hint(path)

    @st.fragment(run_every=every)
    def _watch():
        if store_access.read_version_hint(path) != st.session_state.get(_SEEN):
            st.info("New data in the store (loaded from another session, the command line or a pipeline).",
                    icon=":material/sync:")
            if st.button("Show the new data", key="rankboard_new_data_refresh", icon=":material/refresh:"):
                st.rerun(scope="app")

    with st.sidebar:
        _watch()
