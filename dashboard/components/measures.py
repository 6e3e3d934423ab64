"""The measure reference, generated from core's registry (so it cannot drift from the code)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.escape import md_escape, md_format
from dashboard.components.table import WRAP_ROW_PX, fit_height, table as show_table

CUTOFF = {"none": "no", "optional": "optional", "required": "required"}
NAME_PX = 160           # the longest measure name (NumNonRelJudgedRet) whole
DESCRIPTION_PX = 500    # the rest of a 1280 px screen's table: descriptions wrap onto three lines
HEIGHT_PX = 38 + 5 * WRAP_ROW_PX


def _params(family) -> str:
    parts = [f"{p.name}={p.default!r}" for p in family.params]
    if family.rel_param:
        parts.append("rel=<level> (overrides -l)")
    return ", ".join(parts)


def _trec(family) -> str:
    names = ", ".join(family.trec) if family.trec else "—"
    if family.trec_defaults:
        names += f"  (cutoffs {', '.join(map(str, family.trec_defaults))})"
    return names


def _example(family) -> str:
    if family.cutoff == "required":
        return f"{family.name}@10"
    return family.name


def overview(families, source_of) -> pd.DataFrame:
    return pd.DataFrame([{"Measure": f.name, "Source": ", ".join(source_of(f)), "Description": f.description,
                          "trec_eval": _trec(f),
                          "Aliases": ", ".join(f.aliases), "Cutoff": CUTOFF.get(f.cutoff, f.cutoff),
                          "Parameters": _params(f)} for f in families])


def matches(family, text: str, source_of=lambda f: ()) -> bool:
    text = text.strip().lower()
    hay = " ".join([family.name, *family.aliases, *family.trec, family.description, *source_of(family)]).lower()
    return not text or text in hay


def render_differences(differences) -> None:
    with st.expander("Where Rankboard's number differs from a peer's, on purpose"):
        st.markdown("\n".join(f"- {md_escape(d)}" for d in differences))


def _picked(key: str, n: int) -> int | None:
    """The row chosen in the table `key` (its selection state), else the first; None for an empty table."""
    if not n:
        return None
    state = st.session_state.get(f"{key}_pick")
    rows = list(getattr(getattr(state, "selection", None), "rows", None) or [])
    return rows[0] if rows and rows[0] < n else 0


def _pick_table(frame: pd.DataFrame, *, key: str, order: list[str], config: dict) -> None:
    """A searchable, single-row-selectable table in a keyed container (`.st-key-<key>`); the row chosen is
    read back with `_picked`."""
    with st.container(key=key):
        fit = fit_height(len(frame), row_px=WRAP_ROW_PX)       # every row up to 25, else five and a scroll
        st.dataframe(frame, key=f"{key}_pick", hide_index=True, width="stretch",
                     height=HEIGHT_PX if fit == "auto" else fit,
                     row_height=WRAP_ROW_PX, column_order=order,
                     column_config=config, on_select="rerun", selection_mode="single-row")


def render_registry(families, *, key: str, source_of=lambda f: ()) -> None:
    """The measures as one table (pick a row) above the chosen measure's detail: formula, how to write it,
    trec_eval's name, parameters, source and reference."""
    _pick_table(overview(families, source_of), key=f"{key}_table", order=["Measure", "Source", "Description"],
                config={"Measure": st.column_config.TextColumn(pinned=True, width=NAME_PX),
                        "Description": st.column_config.TextColumn(width=DESCRIPTION_PX)})
    i = _picked(f"{key}_table", len(families))
    with st.container(key=f"{key}_detail", border=True):
        if i is None:
            st.info("No measure matches the filter.")
            return
        render_family(families[i], key=key, source_of=source_of)


def render_family(f, *, key: str, source_of=lambda f: ()) -> None:
    st.markdown(f"**{md_escape(f.name)}** · {md_escape(f.description)}")
    if f.formula:
        st.latex(f.formula)
    left, right = st.columns(2)
    left.caption("Write it as")
    left.code(_example(f) + "".join(f"\n{a}" for a in f.aliases), language=None)
    right.caption("trec_eval equivalent")
    right.code(_trec(f), language=None)
    if f.params:
        show_table(pd.DataFrame([{"Parameter": p.name, "Type": p.type.__name__, "Default": repr(p.default),
                                  "Choices": ", ".join(map(repr, p.choices)), "Help": p.help}
                                 for p in f.params]), hide_index=True, key=f"{key}_{f.name}_params")
    st.caption(md_format("Cutoff: {} · Source: {} · Reference: {}", CUTOFF.get(f.cutoff, f.cutoff),
                         ", ".join(source_of(f)), f.reference)
               + (md_format(" · aggregated as {} over topics", f.agg) if f.agg != "mean" else ""))


def render_statistics(entries, *, key: str) -> None:
    """Rank resolution, all-pairs tests and risk (core.stats.docs): one table (pick a row) above the chosen
    statistic's formula, option and reference."""
    _pick_table(pd.DataFrame([{"Statistic": s.name, "Kind": s.kind, "Description": s.description,
                               "Command line": s.option} for s in entries]),
                key=f"{key}_table", order=["Statistic", "Kind", "Description"],
                config={"Statistic": st.column_config.TextColumn(pinned=True, width=NAME_PX),
                        "Description": st.column_config.TextColumn(width=DESCRIPTION_PX)})
    i = _picked(f"{key}_table", len(entries))
    with st.container(key=f"{key}_detail", border=True):
        if i is None:
            st.info("No statistic matches the filter.")
            return
        s = entries[i]
        st.markdown(f"**{md_escape(s.name)}** · {md_escape(s.description)}")
        st.latex(s.formula)
        if s.option:
            st.code(f"python -m core compare ... {s.option}", language=None)
        st.caption(f"Reference: {md_escape(s.reference)} · computed by `{s.function}`")
