"""The measure reference, generated from core's registry (so it cannot drift from the code)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.escape import md_escape, md_format
from dashboard.components.table import table as show_table

CUTOFF = {"none": "no", "optional": "optional", "required": "required"}


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


def render_registry(families, *, key: str, source_of=lambda f: ()) -> None:
    show_table(overview(families, source_of), key=f"{key}_table", hide_index=True, width="stretch",
                 column_config={"Description": st.column_config.TextColumn(width="large"),
                                "Measure": st.column_config.TextColumn(width="medium", pinned=True)})
    for f in families:
        with st.expander(md_escape(f"{f.name} — {f.description}")):
            if f.formula:
                st.latex(f.formula)
            left, right = st.columns(2)
            left.markdown("**Write it as**")
            left.code(_example(f) + "".join(f"\n{a}" for a in f.aliases), language=None)
            right.markdown("**trec_eval equivalent**")
            right.code(_trec(f), language=None)
            if f.params:
                show_table(pd.DataFrame([{"Parameter": p.name, "Type": p.type.__name__, "Default": repr(p.default),
                                            "Choices": ", ".join(map(repr, p.choices)), "Help": p.help}
                                           for p in f.params]), hide_index=True, key=f"{key}_{f.name}_params")
            st.caption(md_format("Source: {} · Reference: {}", ", ".join(source_of(f)), f.reference)
                       + (md_format(" · aggregated as {} over topics", f.agg) if f.agg != "mean" else ""))


def render_statistics(entries, *, key: str) -> None:
    """Rank resolution, all-pairs tests and risk (core.stats.docs): formula, option, reference."""
    show_table(pd.DataFrame([{"Statistic": s.name, "Kind": s.kind, "Description": s.description,
                              "Command line": s.option} for s in entries]),
               key=f"{key}_table", hide_index=True, width="stretch",
               column_config={"Description": st.column_config.TextColumn(width="large"),
                              "Statistic": st.column_config.TextColumn(width="medium", pinned=True)})
    for s in entries:
        with st.expander(md_escape(f"{s.name} — {s.description}")):
            st.latex(s.formula)
            if s.option:
                st.code(f"python -m core compare ... {s.option}", language=None)
            st.caption(f"Reference: {md_escape(s.reference)} · computed by `{s.function}`")
