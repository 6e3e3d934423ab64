"""Per-query: where does one run beat the baseline, and what do the two rankings look like? In a collection with
RAG nuggets, which runs' answers support which nuggets of a topic."""
from __future__ import annotations

from functools import partial

import streamlit as st

from dashboard.session import access
from dashboard.cache import catalogue
from dashboard.cache import results as cached
from dashboard.session import gates, state
from dashboard.cache import store as store_resource
from dashboard.cache import nuggets as nugget_cache
from dashboard.components import nuggets as nugget_view
from dashboard.components import perquery as pq
from dashboard.components import topics
from dashboard.components.feedback import guard
from dashboard.components.notes import Note, render_note
from dashboard.components.escape import md_escape, md_format
from dashboard.components.constants import DEFAULT_MEASURES, MORE_MEASURES

st.title("Per-query comparison")
here = state.collection()
nugget_topics = nugget_cache.topics(here["id"]) if here else []
if nugget_topics:
    with st.expander("Nuggets: which runs' answers support them", expanded=True), guard("show the nuggets"):
        nq = state.select_one("Topic", nugget_topics, key="pq_nugget_topic", param="nugget_topic")
        nugget_view.render_matrix(nugget_cache.matrix(here["id"], nq), qid=nq, key="pq_nuggets")
coll, ids = gates.require_runs(key="pq_empty", minimum=2)
names = list(ids)
ver = cached.version(coll["id"])
store, skey = store_resource.get_store(), str(store_resource.get_store().path)

c = st.columns([1.6, 1.6, 1, 2.2])
picked = state.chosen_runs(names)   # the Leaderboard's runs and baseline are where this page starts
run_a = state.select_one("Baseline run", names, key="pq_baseline", param="baseline", default=picked[0], where=c[0])
others = [n for n in picked if n != run_a] or [n for n in names if n != run_a]
state.forget_unless("pq_run", "run", others)
run_b = state.select_one("Compared run", [n for n in names if n != run_a], key="pq_run", param="run",
                         default=others[0], where=c[1])
imported = catalogue.imported(coll["id"])       # measures loaded from other tools, offered like computed ones
chosen_on_leaderboard, _ = cached.canonical_measures(state.remembered("measures"), imported)
computed = [] if catalogue.qrels_sets(coll["id"]).empty else DEFAULT_MEASURES
offered = computed + chosen_on_leaderboard + (MORE_MEASURES if computed else []) + list(imported)
measure = state.select_one("Measure", list(dict.fromkeys(offered)),
                           key="pq_measure", param="measure", where=c[2],
                           format_func=lambda m: f"{m} · imported" if m in imported else m)
LISTS = "Ranked lists of the open topic"   # the tab a click on a bar or a row (or a query picked) opens

diff = None
with guard("compare the two runs per query"), st.spinner(md_format("Scoring {} and {} on every topic...", run_a, run_b)):
    result = cached.evaluated(coll["id"], [ids[run_a], ids[run_b]], [measure], ver=ver)
    diff = cached.how_different(result.per_query, skey, coll["id"], (run_a, ids[run_a]), (run_b, ids[run_b]),
                                measure, ver)
if diff is None:
    st.stop()
if diff.empty:
    st.info(md_format("{} and {} share no evaluated topic.", run_a, run_b))
    st.stop()
diff = diff.assign(text=topics.clean(diff["text"]))     # "" for a topic without text


def _open_lists() -> None:
    st.session_state["pq_tab"] = LISTS


def _pick_from_chart() -> None:
    points = st.session_state["pq_chart"].selection.get("points") or []
    qid = pq.clicked_topic(diff, points[0]) if points else None
    if qid is not None:
        state.set_choice("pq_query", "query", qid)
        _open_lists()


open_qid = st.session_state.get("pq_query", state.url_value("query"))
marked = pq.marked_rows(diff, open_qid)


def _pick_from_table() -> None:
    row = pq.clicked_row(st.session_state["pq_table"].selection, next(iter(marked["selection"]["rows"]), None))
    if row is not None:
        state.set_choice("pq_query", "query", str(diff.iloc[row]["qid"]))
        _open_lists()


texts = dict(zip(diff["qid"].astype(str), diff["text"]))
qid = state.select_one("Query", [""] + diff["qid"].astype(str).tolist(), key="pq_query", param="query", where=c[3],
                       format_func=lambda q: "Pick a topic (or click a bar or a row)" if q == "" else
                       topics.label(q, texts.get(q), 100), on_change=_open_lists)
if not (diff["text"] != "").any():
    topics.render_hint(key="pq_topics_hint")
# every tab is drawn (the lists come from a cache); the lists' tab opens with a topic, so they start on the first screen
tab_chart, tab_table, tab_lists = st.tabs(["Δ per topic (click a bar)", "Topics, most different first (click a row)",
                                           LISTS], key="pq_tab", on_change="rerun", default=LISTS if qid else None)
with tab_chart:
    pq.render_delta_chart(diff, run_a=run_a, run_b=run_b, measure=measure, key="pq_chart",
                          on_select=_pick_from_chart,
                          selected=qid or None)
with tab_table:
    st.session_state["pq_table"] = marked      # the open topic's row is shown selected
    pq.render_table(diff, run_a=run_a, run_b=run_b, key="pq_table", on_select=_pick_from_table)
if not qid:
    tab_lists.info("Pick a topic above, or click a bar or a row.", icon=":material/info:")
    st.stop()


def _save_note(cid: int, qid: str, text: str) -> None:
    with store_resource.db_lock():
        store.set_note(cid, qid, text)


save_note = access.for_editors(_save_note)
with tab_lists:
    row = diff[diff["qid"].astype(str) == qid].iloc[0]
    st.markdown(f"#### Topic {md_escape(qid)} · Δ {row['delta']:+.4f}")
    if row["text"]:
        st.text(row["text"])
    with guard("load the two rankings"):
        with st.spinner(md_format("Loading both rankings of topic {}...", qid)):
            left_list, right_list = cached.side_by_side(store, skey, coll["id"], ids[run_a], ids[run_b], qid, ver)
        left, right = st.columns(2)
        with left:
            pq.render_ranked_list(left_list, run=f"{run_a} (baseline)", score=float(row["a"]), key="pq_list_a")
        with right:
            pq.render_ranked_list(right_list, run=run_b, score=float(row["b"]), key="pq_list_b")
        pq.render_lists_download(left_list, right_list, run_a=run_a, run_b=run_b, qid=qid, key="pq_lists_csv")
    with guard("load the note for this query"):
        if save_note:
            render_note(Note((coll["id"], qid), store.get_note(coll["id"], qid)),
                        on_save=partial(save_note, coll["id"], qid), key="pq_note")
        else:   # viewers read the meeting's note; writing one needs an editor
            st.text_area("Note for this query", store.get_note(coll["id"], qid), height=90, disabled=True,
                         help="Only editors can change notes.")
