"""Curves: 11-point interpolated precision-recall and ROC, one line per run."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import catalogue
from dashboard.cache import curves as cached_curves
from dashboard.cache import results as cached
from dashboard.session import gates, state
from dashboard.cache import store as store_resource
from dashboard.components.curves import render_pr, render_roc
from dashboard.components.feedback import guard
from dashboard.components.palette import run_colors
from dashboard.components.topics import label as topic_label, render_hint
from dashboard.components.view import render_link

st.title("Precision-recall and ROC")
coll, ids = gates.require_runs(key="cv_empty")
names = list(ids)
ver = cached.version(coll["id"])
store, skey = store_resource.get_store(), str(store_resource.get_store().path)
colors = run_colors(names)

chosen = state.select_many("Runs", names, key="cv_runs", param="runs", default=names[:5], follow_default=True)
with st.sidebar:     # pins the runs shown (they follow the collection until picked), then shows the address
    render_link(link=state.link(st.context.url), on_pin=state.pin_view, key="sidebar_link")
if not chosen:
    st.info("Pick at least one run.")
    st.stop()
run_ids = tuple(ids[n] for n in chosen)
ONE = "One query"
pr = None
tab_mean, tab_one = st.tabs(["Mean over topics", ONE], key="cv_tab", on_change="rerun",
                            default=ONE if state.url_value("query") else None)
with tab_mean:
    st.caption("PR: trec_eval's 11-point interpolated precision, averaged over topics. ROC: positives are the "
               "relevant documents, negatives the judged non-relevant ones; AUC in the legend. "
               "Save any chart as a PNG with the camera button in its toolbar.")
    left, right = st.columns(2)
    with left, guard("compute the PR curves"), st.spinner("Interpolating precision at 11 recall levels..."):
        pr = cached_curves.pr_curves(store, skey, coll["id"], run_ids, runs=catalogue.runs(coll["id"]),
                                     sets=catalogue.qrels_sets(coll["id"]))
        render_pr(pr, runs=chosen, colors=colors, title="Interpolated PR (11 points, mean)",
                  key="cv_pr", filename=f"pr_{coll['name']}", half=True)
    with right, guard("compute the ROC curves"), st.spinner("Tracing ROC curves..."):
        roc, auc = cached_curves.roc_curves(store, skey, coll["id"], run_ids, runs=catalogue.runs(coll["id"]),
                                            sets=catalogue.qrels_sets(coll["id"]))
        render_roc(roc, auc, runs=chosen, colors=colors, key="cv_roc", filename=f"roc_{coll['name']}", half=True)

if pr is None:
    st.stop()
with tab_one, guard("draw the query's PR curve"):     # both tabs are drawn; the curves come from a cache
    topics = cached.topics(store, skey, coll["id"], ver)
    qids = sorted(set(pr.loc[pr["qid"] != "all", "qid"]), key=lambda q: (len(q), q))
    qid = state.select_one("Single-query PR curve", [""] + qids, key="cv_query", param="query",
                           format_func=lambda q: "Pick a query..." if q == "" else topic_label(q, topics.get(q), 90))
    if not topics:
        render_hint(key="cv_topics_hint")
    if qid:
        render_pr(pr, runs=chosen, colors=colors, qid=qid, title=f"Query {qid}: interpolated PR",
                  key="cv_query_pr", filename=f"pr_{coll['name']}_q{qid}")
