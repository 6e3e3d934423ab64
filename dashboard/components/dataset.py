"""A dataset of ir_datasets loaded by its id: the id field, whether to load its documents (and at most how many), the
load button with a progress bar, and what was stored. The load itself is the page's callback, so a session that may
not write is never given this control."""
from __future__ import annotations

import logging
from typing import Callable

import streamlit as st

from core.errors import RankboardError
from dashboard.components.escape import md_format
from dashboard.components.feedback import UNEXPECTED, show_error, show_warnings, words

log = logging.getLogger("rankboard.dashboard")
EXAMPLE = "msmarco-passage/trec-dl-2019/judged"


def _progress(bar, did: str) -> Callable[[str, int, int | None], None]:
    """The load's progress callback: which part is read, and how many documents so far."""
    def tell(part: str, done: int, total: int | None) -> None:
        if part != "documents":
            bar.progress(0.0, text=md_format("Reading the {} of {}...", part, did))
            return
        of = f" of {total:,}" if total else ""
        bar.progress(min(done / total, 1.0) if total else 0.0,
                     text=md_format("Reading the documents of {}: {}{}", did, f"{done:,}", of))
    return tell


def _outcome(load: Callable, did: str, docs: bool, limit: int | None, bar) -> dict:
    try:
        reports = load(did, docs=docs, docs_limit=limit, progress=_progress(bar, did))
        return {"ok": True, "id": did, "parts": [(part, int(rep.n_rows)) for part, rep in reports],
                "warnings": [str(w) for _, rep in reports for w in rep.warnings]}
    except RankboardError as err:
        return {"ok": False, "id": did, "message": words(err)}
    except Exception:  # noqa: BLE001 - logged with its traceback; the visitor sees no server detail
        log.exception("loading the dataset %s", did)
        return {"ok": False, "id": did, "message": f"{UNEXPECTED}: the details are in the server's log. Nothing "
                                                   "from this dataset was stored."}


def render_outcome(outcome: dict) -> None:
    if outcome["ok"]:
        stored = ", ".join(f"{n:,} {part}" for part, n in outcome["parts"])
        st.success(md_format("Loaded irds:{}: {}.", outcome["id"], stored), icon=":material/check_circle:")
        show_warnings(outcome["warnings"], title=f"Warnings for irds:{outcome['id']}")
    else:
        show_error(outcome["message"], title=f"irds:{outcome['id']} was not loaded; nothing from it was stored.")


def render_dataset_loader(*, key: str, load: Callable) -> None:
    """The id field, the documents options and the load button. `load(did, docs=, docs_limit=, progress=)` stores
    the dataset and returns [(part, IngestReport)] (core.store.Store.add_dataset)."""
    did = st.text_input("ir_datasets id", key=f"{key}_id", placeholder=f"e.g. {EXAMPLE}",
                        help="A dataset id of ir_datasets (https://ir-datasets.com): its qrels become a qrels set "
                             "named after the id, its queries the collection's topics. Its files must be on the "
                             "server (ir_datasets' folder, IR_DATASETS_HOME) or downloadable from it.").strip()
    left, right = st.columns([1, 1], vertical_alignment="bottom")
    docs = left.checkbox("Also load its documents", key=f"{key}_docs")
    limit = right.number_input("At most this many documents (0: all)", min_value=0, value=0, step=1000,
                               key=f"{key}_docs_limit", disabled=not docs)
    if st.button("Load dataset", key=f"{key}_load", type="primary", disabled=not did):
        bar = st.progress(0.0, text=md_format("Loading {}...", did))
        with st.spinner(md_format("Reading and storing irds:{}...", did), show_time=True):
            st.session_state[f"{key}_outcome"] = _outcome(load, did, docs, (int(limit) or None) if docs else None,
                                                                 bar)
        st.rerun()           # so the sidebar counts and the tables show what was stored
    if st.session_state.get(f"{key}_outcome"):
        render_outcome(st.session_state[f"{key}_outcome"])
