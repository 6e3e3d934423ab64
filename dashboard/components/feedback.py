"""Errors, warnings and empty states, shown exactly as core words them (never a traceback). A problem of the store
or of the server's disk (core.errors.StoreError) is shown in its plain `public` words, without a path; anything
unexpected as one line, its details (type, message, traceback) in the server's log only."""
from __future__ import annotations

import contextlib
import logging

import streamlit as st

from core.errors import RankboardError, StoreError
from dashboard.components.escape import md_escape, md_format  # md_escape also re-exported for older imports
from dashboard.pages import page_file

log = logging.getLogger("rankboard.dashboard")
UNEXPECTED = "Unexpected error"
DETAILS_IN_LOG = "The details are in the server's log."


def words(err: BaseException | str) -> str:
    """What a visitor may read of an error: core's message, or a store problem's public words (then logged)."""
    if isinstance(err, StoreError):
        log.error("%s", err)
        return err.public
    return str(err)


def show_error(err: BaseException | str, *, title: str = "That did not work") -> None:
    """Core's message verbatim, in a code block so file quotes keep their spacing; the title is
    plain text (it may name a file or a run). A store problem (damaged, busy) is shown in plain words
    without paths or process ids; its full text goes to the server's log."""
    st.error(md_escape(title), icon=":material/error:")
    st.code(words(err), language=None, wrap_lines=True)


def show_warnings(warnings, *, title: str = "Warnings") -> None:
    warnings = [str(w) for w in (warnings or []) if str(w).strip()]
    if warnings:
        st.warning(md_escape(f"{title} ({len(warnings)})"), icon=":material/warning:")
        st.code("\n".join(warnings), language=None, wrap_lines=True)


@contextlib.contextmanager
def guard(what: str):
    """Show a RankboardError as core words it; anything else as one line plus a log entry."""
    try:
        yield
    except RankboardError as err:
        show_error(err, title=f"Could not {what}")
    except Exception:  # noqa: BLE001 - the page must never show a traceback, a path or a version
        log.exception("while trying to %s", what)
        show_error(DETAILS_IN_LOG, title=f"{UNEXPECTED} while trying to {what}")


def empty_state(message: str, *, key: str, upload_hint: str = "runs and qrels") -> None:
    """Say what to upload first (plain text: it may name a collection) and link to the Data page."""
    st.info(md_escape(message), icon=":material/info:")
    st.page_link(page_file("Data"), label=md_format("Go to Data to upload {}", upload_hint),
                 icon=":material/upload:")
