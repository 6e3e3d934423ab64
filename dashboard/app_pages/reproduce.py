"""Reproduce: how well one stored run reproduces another, as repro_eval measures it (core.repro): KTU and RBO of
their document orderings, RMSE and a paired t-test per measure, and with both baselines the effect ratio and ΔRI."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import repro as cached_repro
from dashboard.cache import results as cached
from dashboard.cache import store as store_resource
from dashboard.components import repro as rp
from dashboard.components.constants import DEFAULT_MEASURES, MORE_MEASURES, NO_BASELINE, RBO_PS
from dashboard.components.feedback import guard, show_error
from dashboard.components.escape import md_format
from dashboard.session import gates, state

st.title("Reproducibility")
coll, ids = gates.require_runs(key="rp_empty", minimum=2)
names = list(ids)
store = store_resource.get_store()

top = st.columns(4)
original = state.select_one("Original run", names, key="rp_original", param="original", where=top[0])
reproduced = state.select_one("Reproduced run", [n for n in names if n != original], key="rp_reproduced",
                              param="reproduced", where=top[1])
no_base = {"format_func": lambda r: "No baseline" if r == NO_BASELINE else r}
base_o = state.select_one("Original baseline", [NO_BASELINE] + names, key="rp_original_baseline",
                          param="original_baseline", where=top[2], **no_base)
base_r = state.select_one("Reproduced baseline", [NO_BASELINE] + names, key="rp_reproduced_baseline",
                          param="reproduced_baseline", where=top[3], **no_base)
row = st.columns([3, 1])
raw = state.select_many("Measures", list(dict.fromkeys(DEFAULT_MEASURES + MORE_MEASURES)), key="rp_measures",
                        param="measures", default=DEFAULT_MEASURES[:3], allow_new=True, where=row[0])
rbo_p = float(state.select_one("RBO persistence p", RBO_PS, key="rp_rbo_p", param="rbo_p", default="0.8",
                               where=row[1], help=rp.MEANING["rbo"]))
measures, problems = cached.canonical_measures(raw)
for text in problems:
    show_error(text, title="Unknown measure (left out)")
if bool(base_o) != bool(base_r):
    st.info("Pick both baselines, or neither: the effect ratio and ΔRI compare the two improvements.",
            icon=":material/info:")
if not measures:
    st.info("Pick at least one measure.")
    st.stop()

roles = {"original": ids[original], "reproduced": ids[reproduced]}
if base_o and base_r:
    roles |= {"original_baseline": ids[base_o], "reproduced_baseline": ids[base_r]}
result = None
with guard("compare the reproduced run with the original"):
    with st.spinner(md_format("Comparing {} with {} on every topic...", reproduced, original), show_time=True):
        result = cached_repro.reproduction(store, str(store.path), coll["id"], tuple(roles.items()),
                                           tuple(measures), rbo_p, cached.version(coll["id"]))
if result is None:
    st.stop()
st.caption(rp.caption(result))
tab_order, tab_measures, tab_effects = st.tabs(["Document orderings (KTU, RBO)", "Per measure (RMSE, p)",
                                                "Effects (ER, ΔRI)"], key="rp_tab")
with tab_order:
    rp.render_orderings(result, key="rp_orderings")
with tab_measures:
    rp.render_measures(result, key="rp_measures_table")
with tab_effects:
    rp.render_effects(result, key="rp_effects")
rp.render_download(result, key="rp_csv")
