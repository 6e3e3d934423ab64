"""A collection's runs with their lineage and cost (system, version, timestamp, cost keys, free keys), and the
editor of one run's metadata (drawn only for a session that may edit: the page passes `save=None` otherwise)."""
from __future__ import annotations

from typing import Callable

import pandas as pd
import streamlit as st

from core.errors import RankboardError
from core.formats.lineage import LINEAGE_KEYS, META_KEYS, parse_pair
from dashboard.components.feedback import show_error, words
from dashboard.components.table import table as show_table


def render_lineage_table(lineage: pd.DataFrame, *, key: str) -> None:
    """One row per run, in version order (Store.lineage); a number column per numeric cost key."""
    config = {"run": st.column_config.TextColumn("Run", pinned=True), "system": "System", "version": "Version",
              "timestamp": st.column_config.DatetimeColumn("Timestamp", format="YYYY-MM-DD HH:mm",
                                                           help="The run's own, else when it was loaded (UTC)")}
    for name, spec in META_KEYS.items():
        if name in lineage.columns and name not in config:
            config[name] = (st.column_config.NumberColumn(name, help=spec.meaning) if spec.kind == "number"
                            else st.column_config.TextColumn(name, help=spec.meaning))
    show_table(lineage.drop(columns=["run_id"]), key=key, hide_index=True, width="stretch", column_config=config)


def _free_text(meta: dict[str, str]) -> str:
    return "\n".join(f"{k}={v}" for k, v in meta.items() if k not in META_KEYS)


def _gather(key: str) -> dict[str, str]:
    """The editor's values: the reserved keys' fields, then the free keys' lines (a malformed line raises)."""
    values = {name: st.session_state.get(f"{key}_meta_{name}", "").strip() for name in META_KEYS}
    lines = st.session_state.get(f"{key}_meta_free", "").splitlines()
    for i, line in enumerate(lines, 1):
        if line.strip():
            name, value = parse_pair(line.strip(), option=f"Other keys, line {i}:", example="stemmer=porter")
            if name in META_KEYS:
                raise RankboardError(f"Other keys, line {i}: {name} has its own field above. Move its value there.")
            values[name] = value
    return values


def render_meta_editor(runs: pd.DataFrame, *, meta_of: Callable[[int], dict], save: Callable[[int, dict], None],
                       key: str) -> None:
    """Pick a run, edit its reserved keys (one field each) and its free keys (`key=value` lines), save the whole
    set at once; `save` checks the values (an error is shown and nothing is saved)."""
    ids = dict(zip(runs["name"].astype(str), runs["run_id"].astype(int)))
    chosen = st.selectbox("Run", list(ids), key=f"{key}_meta_run")
    run_id = ids[chosen]
    if st.session_state.get(f"{key}_meta_loaded") != run_id:      # a new run: fill the fields with its values
        meta = meta_of(run_id)
        for name in META_KEYS:
            st.session_state[f"{key}_meta_{name}"] = meta.get(name, "")
        st.session_state[f"{key}_meta_free"] = _free_text(meta)
        st.session_state[f"{key}_meta_loaded"] = run_id
        st.session_state.pop(f"{key}_meta_error", None)
    cols = st.columns(len(LINEAGE_KEYS))
    for col, name in zip(cols, LINEAGE_KEYS):
        col.text_input(name, key=f"{key}_meta_{name}", help=META_KEYS[name].meaning,
                       placeholder="the upload time" if name == "timestamp" else f"e.g. {META_KEYS[name].example}")
    costs = [n for n in META_KEYS if n not in LINEAGE_KEYS]
    for col, name in zip(st.columns(len(costs)), costs):
        col.text_input(name, key=f"{key}_meta_{name}", help=META_KEYS[name].meaning,
                       placeholder=f"e.g. {META_KEYS[name].example}")
    st.text_area("Other keys (key=value, one a line)", key=f"{key}_meta_free", placeholder="e.g. stemmer=porter")

    def _save() -> None:
        try:
            save(run_id, _gather(key))
            st.session_state.pop(f"{key}_meta_error", None)
            st.session_state.pop(f"{key}_meta_loaded", None)          # read back what was stored
        except RankboardError as err:
            st.session_state[f"{key}_meta_error"] = words(err)

    st.button("Save metadata", key=f"{key}_meta_save", on_click=_save, icon=":material/save:")
    if st.session_state.get(f"{key}_meta_error"):
        show_error(st.session_state[f"{key}_meta_error"], title="Could not save the metadata")
