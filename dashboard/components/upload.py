"""Multi-file upload with a progress bar; each file's result is shown as core words it."""
from __future__ import annotations

import logging
from typing import Callable

import streamlit as st

from core.errors import RankboardError
from dashboard.components.feedback import UNEXPECTED, show_warnings
from dashboard.escape import md_escape, md_format

log = logging.getLogger("rankboard.dashboard")


def _load_all(files, load: Callable, *, noun: str) -> list[dict]:
    results = []
    bar = st.progress(0.0, text=md_format("Loading {} {}...", len(files), noun))
    for i, f in enumerate(files):
        bar.progress(i / len(files), text=md_format("Loading {} ({} of {})", f.name, i + 1, len(files)))
        try:
            report = load(f)
            results.append({"file": f.name, "ok": True, "report": report})
        except RankboardError as err:
            results.append({"file": f.name, "ok": False, "message": str(err)})
        except Exception as err:  # noqa: BLE001 - shown, logged, never a traceback
            log.exception("loading %s", f.name)
            results.append({"file": f.name, "ok": False,
                            "message": f"{UNEXPECTED}: {type(err).__name__}: {err}"})
    bar.progress(1.0, text=md_format("Finished {} {}", len(files), noun))
    return results


def render_results(results: list[dict], *, key: str) -> None:
    for r in results:
        if r["ok"]:
            rep = r["report"]
            what = f" as '{rep.name}'" if rep.name else ""
            st.success(md_escape(f"Loaded {r['file']}{what}: {rep.n_rows:,} lines."), icon=":material/check_circle:")
            show_warnings(rep.warnings, title=f"Warnings for {r['file']}")
        else:
            st.error(md_escape(f"{r['file']} was not loaded; nothing from it was stored."), icon=":material/error:")
            st.code(r["message"], language=None, wrap_lines=True)


def render_uploader(*, key: str, label: str, button: str, noun: str, load: Callable,
                    help: str | None = None, options: Callable[[], dict] | None = None,
                    on_loaded: Callable[[list], None] | None = None) -> None:
    """File uploader (any extension, several files) + load button. `options()` renders extra widgets
    and returns keyword arguments for `load(file, **kwargs)`, or None to keep the button off (e.g. until
    a destructive choice is confirmed)."""
    files = st.file_uploader(label, type=None, accept_multiple_files=True, key=f"{key}_files", help=help)
    kwargs = options() if options else {}       # None: the options need confirming first
    if st.button(button, key=f"{key}_load", type="primary", disabled=not files or kwargs is None):
        results = _load_all(files, lambda f: load(f, **kwargs), noun=noun)
        st.session_state[f"{key}_results"] = results
        if on_loaded:
            on_loaded([r["report"] for r in results if r["ok"]])
        st.rerun()  # so the sidebar counts and run lists show the new state
    render_results(st.session_state.get(f"{key}_results", []), key=key)
