"""History: a system's measure over its versions, each step tested against the version before (▲ / ▼), and the
topics that moved most in a step, each opening Per-query for that pair."""
from __future__ import annotations

import streamlit as st

from core.service.history import step_topics, systems_of
from core.stats.history import STEP_TESTS
from dashboard.cache import catalogue
from dashboard.cache import history as cached_history
from dashboard.cache import results as cached
from dashboard.cache import store as store_resource
from dashboard.components import history as hi
from dashboard.components.constants import ALPHAS, CORRECTIONS, DEFAULT_MEASURES, MORE_MEASURES, TESTS
from dashboard.components.escape import md_escape, md_format
from dashboard.components.feedback import empty_state, guard
from dashboard.components.palette import run_colors
from dashboard.pages import page_file
from dashboard.session import gates, state

st.title("History")
coll, ids = gates.require_runs(key="hi_empty")
store, ver = store_resource.get_store(), cached.version(coll["id"])
skey = str(store.path)
lineage = catalogue.lineage(coll["id"])
systems = systems_of(lineage)
if not systems:
    empty_state(f"No run of collection '{coll['name']}' has a system yet. Give runs a system and a version when "
                f"loading them (python -m core load --collection NAME --run FILE --system NAME --version V), or "
                "on the Data page.", key="hi_empty")
    st.stop()

top = st.columns([3, 1.4])
chosen = state.select_many("Systems", systems, key="hi_systems", param="systems", default=systems[:1], where=top[0])
imported = catalogue.imported(coll["id"])       # measures loaded from other tools, offered like computed ones
computed = [] if catalogue.qrels_sets(coll["id"]).empty else DEFAULT_MEASURES + MORE_MEASURES
measure = state.select_one("Measure", list(dict.fromkeys(computed + list(imported))), key="hi_measure",
                           param="measure", where=top[1],
                           format_func=lambda m: f"{m} · imported ({imported[m]})" if m in imported else m)
row = st.columns(3)
test = state.select_one("Test", list(STEP_TESTS), key="hi_test", param="test", format_func=TESTS.get, where=row[0])
correction = state.select_one("Correction", list(CORRECTIONS), key="hi_correction", param="correction",
                              format_func=CORRECTIONS.get, where=row[1])
alpha = state.select_one("Significance level", ALPHAS, key="hi_alpha", param="alpha", default="0.05",
                         format_func=lambda a: f"α = {a}", where=row[2])
if not chosen:
    st.info("Pick at least one system.")
    st.stop()
if measure is None:
    empty_state("This collection has no qrels and no imported measure to follow. Upload a qrels file or per-query "
                "scores on the Data page.", key="hi_no_measure")
    st.stop()

result = None
with guard("follow the systems over their versions"):
    with st.spinner(md_format("Scoring every version of {} on {}...", ", ".join(chosen), measure), show_time=True):
        plain, per_query = cached_history.history(store, skey, coll["id"], tuple(chosen), measure, test, ver)
    result = plain.with_correction(correction, float(alpha))
if result is None:
    st.stop()
frame = result.to_dataframe()
OPEN = "_hi_open"        # set by a click on a topic: open Per-query for that step and topic on the next run


def _pick_point() -> None:
    run = hi.clicked_run(frame, st.session_state["hi_chart"].selection.get("points") or [])
    if run is not None and result.step_into(frame.loc[frame["run"] == run, "system"].iloc[0], run) is not None:
        state.set_choice("hi_step", "step", run)


hi.render_chart(frame, measure=result.measure, colors=run_colors(systems), key="hi_chart", on_select=_pick_point)
st.caption(md_escape(result.legend()))
hi.render_versions(frame, stem=f"history_{coll['name']}_{result.measure}", key="hi_table")
if not result.steps:
    st.info("Each system chosen has one version: there is no step to test yet.", icon=":material/info:")
    st.stop()

steps = {s.after: s for s in result.steps}
marked = [s.after for s in result.steps if s.mark] or [result.steps[0].after]
after = state.select_one("Step", list(steps), key="hi_step", param="step", default=marked[0],
                         format_func=lambda r: hi.step_label(steps[r]))
step = steps[after]
moved = step_topics(per_query, result, step.system, step.after)
texts = cached.topics(store, skey, coll["id"], ver)


def _open(qid: str) -> None:
    """Per-query for the step's pair (the version before as its baseline) on this topic."""
    for key, param, value in (("pq_baseline", "baseline", step.before), ("pq_run", "run", step.after),
                              ("pq_measure", "measure", result.measure), ("pq_query", "query", qid)):
        state.set_choice(key, param, value)
    st.session_state[OPEN] = qid


def _pick_topic() -> None:
    qid = hi.clicked_topic(moved, st.session_state["hi_topics"].selection)
    if qid is not None:
        _open(qid)


hi.render_topics(moved, step=step, texts=texts, key="hi_topics", on_select=_pick_topic)
deltas = dict(zip(moved["qid"], moved["delta"]))
st.selectbox("Open a topic in Per-query", [""] + list(deltas), key="hi_topic", index=0,
             format_func=lambda q: "Pick a topic..." if q == "" else f"{q} (Δ {deltas[q]:+.4f})",
             on_change=lambda: st.session_state["hi_topic"] and _open(st.session_state["hi_topic"]))
if OPEN in st.session_state:
    qid = st.session_state.pop(OPEN)
    st.switch_page(page_file("Per-query"), query_params={
        "collection": coll["name"], "baseline": step.before, "run": step.after, "measure": result.measure,
        "query": qid})
