"""Agreement: how much do two or more assessors agree, and does it change which system wins?"""
from __future__ import annotations

import streamlit as st

from dashboard.cache import results as cached
from dashboard.cache import catalogue
from dashboard.session import state
from dashboard.cache import store as store_resource
from dashboard.components.agreement import (render_confusion, render_multi_summary, render_pair_summary,
                                            render_slopegraph, render_topic_kappa)
from dashboard.components.feedback import empty_state, guard
from dashboard.components.palette import run_colors
from dashboard.components.escape import md_format
from dashboard.components.constants import DEFAULT_MEASURES, MORE_MEASURES

st.title("Judge agreement")
coll = state.collection()
store = store_resource.get_store()
sets = catalogue.qrels_sets(coll["id"]) if coll else None
if sets is None or len(sets) < 2:
    empty_state("Agreement needs two or more qrels sets in this collection, one per assessor. Upload another "
                "qrels file with its assessor name first.", key="ag_empty",
                upload_hint="a second qrels file with its assessor name")
    st.stop()

ver = cached.version(coll["id"])
by_name = dict(zip(sets["assessor"].astype(str), sets["qrels_id"].astype(int)))
left, mid, right = st.columns([3, 1.2, 1.2])
chosen = state.select_many("Qrels sets", list(by_name), key="ag_qrels", param="qrels",
                           default=list(by_name)[:2], where=left)
level_labels = {"graded": "Graded labels", "1": "Binary (rel ≥ 1)", "2": "Binary (rel ≥ 2)"}
level = state.select_one("Compare labels as", list(level_labels), key="ag_rel_level", param="rel_level",
                         format_func=level_labels.get, where=mid)
chosen_on_leaderboard, _ = cached.canonical_measures(state.remembered("measures"))
measure = state.select_one("Measure", list(dict.fromkeys(DEFAULT_MEASURES + chosen_on_leaderboard + MORE_MEASURES)),
                           key="ag_measure", param="measure",
                           where=right, help="Used for the slopegraph of system scores")
rel_level = None if level == "graded" else int(level)
if len(chosen) < 2:
    st.info("Pick at least two qrels sets.")
    st.stop()

ids = tuple(by_name[n] for n in chosen)
skey = str(store.path)
with guard("compute agreement"), st.spinner("Comparing judgments..."):
    if len(chosen) > 2:
        render_multi_summary(cached.multi_agreement(store, skey, ids, tuple(chosen), rel_level,
                                                     cached.qrels_stamp(sets, ids)),
                             key="ag_multi")
        pair_names = [(a, b) for i, a in enumerate(chosen) for b in chosen[i + 1:]]
        a, b = st.selectbox("Pair to inspect", pair_names, format_func=lambda p: f"{p[0]} vs {p[1]}",
                            key="ag_pair")
    else:
        a, b = chosen
    pair = cached.pair_agreement(store, skey, by_name[a], by_name[b], (a, b), rel_level,
                                 cached.qrels_stamp(sets, (by_name[a], by_name[b])))
    if len(chosen) == 2:
        render_pair_summary(pair, key="ag_summary")
    c1, c2 = st.columns([2, 3])
    with c1:
        render_confusion(pair, key="ag_confusion")
    with c2:
        render_topic_kappa(pair, topics=cached.topics(store, skey, coll["id"], ver), key="ag_topics")

st.subheader("Does it change the system ranking?")
runs = catalogue.runs(coll["id"])
if len(runs) < 2:
    empty_state("The slopegraph needs at least two runs in this collection.", key="ag_no_runs", upload_hint="runs")
else:
    with guard("rank the systems under each qrels set"), st.spinner(md_format("Scoring every run with {}...", measure)):
        dim = cached.does_it_matter(store, skey, coll["id"], measure, ids, ver)
        render_slopegraph(dim, colors=run_colors(runs["name"]), key="ag_slope")
