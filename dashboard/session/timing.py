"""The server's own time per script run, for operators and for benchmarks/loadproto.py: when $RANKBOARD_TIMING_LOG
names a file, every script run of every session appends one JSON line to it,

    {"at": 1795862400.123, "session": "3f2c...", "page": "per-query", "seconds": 0.412, "end": "done"}

with `end` one of "done" (the page was drawn), "rerun" (Streamlit stopped the run for a newer one: a click
during the run, or st.rerun), "stop" (st.stop: the page stopped at a gate, such as the login form or a page that needs
two runs) or "error" (an exception reached
app.py). The line is written with one O_APPEND write, so lines of concurrent sessions never interleave.
Unset (the default), nothing is measured or written. A file that cannot be written is reported once in the
server's log, and the page goes on.
"""
from __future__ import annotations

import json
import logging
import os
import time
import uuid
from contextlib import contextmanager

LOG = logging.getLogger("rankboard.timing")
_FAILED: list = []


def log_path() -> str | None:
    """$RANKBOARD_TIMING_LOG, or None when it is unset or empty."""
    return os.environ.get("RANKBOARD_TIMING_LOG") or None


def _end(exc: BaseException | None) -> str:
    if exc is None:
        return "done"
    name = type(exc).__name__
    if name == "RerunException":
        return "rerun"
    if name == "StopException":
        return "stop"
    return "error"


def write_line(path: str, record: dict) -> None:
    """Append one JSON line in a single write; an OSError is logged once per process, never raised."""
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as err:
        if not _FAILED:
            _FAILED.append(True)
            LOG.error("cannot write the timing log %s: %s", path, err)


def session_tag() -> str:
    """A short random id for this browser session, kept in its session state (the same across its script runs)."""
    import streamlit as st
    return st.session_state.setdefault("rankboard_timing_session", uuid.uuid4().hex[:12])


@contextmanager
def timed(page, session=session_tag):
    """Time the body (one script run). `page` is called at the end for the page's name, so the name can come from
    st.navigation inside the body; it may fail, and then the line says "?"."""
    path = log_path()
    if path is None:
        yield
        return
    session = session()
    at, start, exc = time.time(), time.perf_counter(), None
    try:
        yield
    except BaseException as err:  # Streamlit's rerun and stop are BaseExceptions; all are re-raised
        exc = err
        raise
    finally:
        seconds = time.perf_counter() - start
        try:
            name = page()
        except Exception:  # noqa: BLE001 - the name is a label, never a reason to lose the line
            name = "?"
        write_line(path, {"at": round(at, 3), "session": session, "page": name, "seconds": round(seconds, 4),
                          "end": _end(exc)})
