"""Multi-file upload with a progress bar; each file's result is shown as core words it.

Each file's outcome is kept (in session state and in the upload journal, dashboard/session/uploads.py, which the
page passes in as `journal`) the
moment its load returns, before anything else is drawn: leaving the page stops this script at its
next Streamlit call, and a restarted server forgets the session, but neither loses the word on what
was stored. A new batch replaces the previous batch's messages at once, so an old "Loaded ..."
never stands for a new file.
"""
from __future__ import annotations

import logging
from typing import Callable

import streamlit as st

from core.errors import RankboardError, StoreError
from dashboard.components.feedback import UNEXPECTED, show_warnings
from dashboard.components.escape import md_escape, md_format

log = logging.getLogger("rankboard.dashboard")


def _outcome(f, load: Callable) -> tuple[dict, object | None]:
    try:
        rep = load(f)
        return {"file": f.name, "ok": True, "name": rep.name, "n_rows": int(rep.n_rows),
                "warnings": [str(w) for w in rep.warnings]}, rep
    except StoreError as err:      # the store or the server's disk: plain words here, the details in the log
        log.error("loading %s: %s", f.name, err)
        return {"file": f.name, "ok": False, "message": err.public}, None
    except RankboardError as err:
        return {"file": f.name, "ok": False, "message": str(err)}, None
    except Exception:  # noqa: BLE001 - logged with its traceback; the visitor sees no server detail
        log.exception("loading %s", f.name)
        return {"file": f.name, "ok": False, "message": f"{UNEXPECTED}: the details are in the server's log. "
                                                        "Nothing from this file was stored."}, None


def unfinished(batch: dict) -> list[str]:
    """File names of the batch that have no outcome (files are loaded, and recorded, in order)."""
    return batch["files"][len(batch["outcomes"]):]


def _load_all(files, load: Callable, *, noun: str, key: str, journal) -> list:
    names = [f.name for f in files]
    token = journal.start(uploader=key, files=names) if journal else None
    batch = {"files": names, "ids": [f.file_id for f in files], "outcomes": [], "token": token}
    st.session_state[f"{key}_batch"] = batch
    if token:
        st.query_params[journal.param] = token     # the browser keeps it across a server restart
    reports = []
    bar = st.progress(0.0, text=md_format("Loading {} {}...", len(files), noun))
    try:
        for i, f in enumerate(files):
            bar.progress(i / len(files), text=md_format("Loading {} ({} of {})", f.name, i + 1, len(files)))
            with st.spinner(md_format("Reading and storing {}...", f.name), show_time=True):   # moves while it works
                outcome, rep = _outcome(f, load)
                batch["outcomes"].append(outcome)       # kept before the next Streamlit call can stop us
                if token:
                    journal.record(token, outcome)
            if rep is not None:
                reports.append(rep)
    finally:   # the page was left or reloaded mid-batch: Streamlit stops us with an exception
        if token and len(batch["outcomes"]) < len(files):
            journal.record(token, stopped=True)
    bar.progress(1.0, text=md_format("Finished {} {}", len(files), noun))
    return reports


def render_results(batch: dict, *, key: str, note: str | None = None) -> None:
    """The batch's outcomes; files without one were never stored, and `note` says why they stopped."""
    for r in batch["outcomes"]:
        if r["ok"]:
            what = f" as '{r['name']}'" if r.get("name") else ""
            st.success(md_format("Loaded {}{}: {} lines.", r["file"], what, f"{r['n_rows']:,}"),
                       icon=":material/check_circle:")
            show_warnings(r.get("warnings"), title=f"Warnings for {r['file']}")
        else:
            st.error(md_format("{} was not loaded; nothing from it was stored.", r["file"]), icon=":material/error:")
            st.code(r["message"], language=None, wrap_lines=True)
    missing = unfinished(batch)
    if missing:
        st.warning(md_format("Not loaded: {}. ", ", ".join(missing)) + md_escape(
            note or "The upload stopped before these files were read (the page was left or reloaded). "
                    "Nothing from them was stored: upload them again."), icon=":material/warning:")


def _recover(key: str, journal) -> None:
    """A batch named in the URL that this session does not know (the server restarted, or the
    connection was lost and this is a new session): take its outcomes from the journal."""
    token = st.query_params.get(journal.param) if journal else None
    if not token or (st.session_state.get(f"{key}_batch") or {}).get("token") == token:
        return
    entry = journal.read(token)
    if entry is None or entry.get("uploader") != key:
        return
    if not journal.over(entry):
        st.info(md_format("Still loading {} ({} of {} done) in the session that started it. Check again in a "
                          "moment.", ", ".join(entry["files"]), len(entry["outcomes"]), len(entry["files"])),
                icon=":material/hourglass_top:")
        st.button("Check again", key=f"{key}_check_again")
        return
    entry["token"], entry["ids"] = token, []
    restarted = journal.server_restarted(entry) and not entry["finished"]
    entry["note"] = ("The server stopped while these files were loading. Nothing from them was stored "
                     "(a load is all or nothing): upload them again.") if restarted else None
    st.session_state[f"{key}_batch"] = entry
    del st.query_params[journal.param]


def render_uploader(*, key: str, label: str, button: str, noun: str, load: Callable,
                    help: str | None = None, options: Callable[[], dict | None] | None = None,
                    on_loaded: Callable[[list], None] | None = None, journal=None) -> None:
    """File uploader (any extension, several files) + load button; after a load that stored a file, the uploader is
    empty (a new widget in the `<key>_files` container), so those files cannot be loaded twice. `options()` renders extra widgets
    and returns keyword arguments for `load(file, **kwargs)`, or None to keep the button off (e.g. until
    a destructive choice is confirmed). `journal`: the store's upload journal (a
    dashboard.session.uploads.Journal: start, record, read, over, server_restarted, param), or None."""
    _recover(key, journal)
    with st.container(key=f"{key}_files"):      # the uploader's own key changes after each load that stored a file
        files = st.file_uploader(label, type=None, accept_multiple_files=True,
                                 key=f"{key}_files_{st.session_state.get(f'{key}_round', 0)}", help=help)
    batch = st.session_state.get(f"{key}_batch")
    if batch and files and batch.get("ids") and [f.file_id for f in files] != batch["ids"]:
        st.session_state.pop(f"{key}_batch")        # other files chosen: the old messages are not about them
        batch = None
    kwargs = options() if options else {}       # None: the options need confirming first
    if st.button(button, key=f"{key}_load", type="primary", disabled=not files or kwargs is None):
        reports = _load_all(files, lambda f: load(f, **kwargs), noun=noun, key=key, journal=journal)
        if reports:     # something was stored: a fresh, empty uploader, so a second click cannot load it again
            st.session_state[f"{key}_round"] = st.session_state.get(f"{key}_round", 0) + 1
        if on_loaded:
            on_loaded(reports)
        if journal and journal.param in st.query_params:
            del st.query_params[journal.param]
        st.rerun()  # so the sidebar counts and run lists show the new state
    if batch:
        render_results(batch, key=key, note=batch.get("note"))
