"""Measures: every measure Rankboard computes, generated from core's registry: one searchable table, and the
chosen measure's detail beside it."""
from __future__ import annotations

import streamlit as st

from dashboard.components.feedback import guard
from dashboard.components.measures import matches, render_differences, render_registry, render_statistics

st.title("Measures")
st.caption("Type any of these names (or their trec_eval or ranx names) into the Leaderboard's measure box. "
           "Parameters go in brackets and cutoffs after @, e.g. nDCG(dcg='exp-log2')@10. Pick a row to see its "
           "formula, parameters and reference.")
with guard("read the measure registry"):
    from core.measures import DIFFERENCES, REGISTRY, sources
    from core.stats.docs import matching
    text = st.text_input("Filter measures", key="ms_filter", placeholder="e.g. ndcg, recall, P_10, ranx, risk")
    families = [f for f in REGISTRY if matches(f, text, sources)]
    st.caption(f"{len(families)} of {len(REGISTRY)} measure families. Source: the tool whose number the measure "
               "gives (trec_eval, ir_measures, ranx) or textbook.")
    render_registry(families, key="ms", source_of=sources)
    render_differences(DIFFERENCES)
    st.subheader("Comparing many runs: rank resolution, all-pairs tests, risk")
    entries = matching(text)
    st.caption(f"{len(entries)} statistics; the Leaderboard and `python -m core compare` use them.")
    render_statistics(entries, key="ms_stats")
