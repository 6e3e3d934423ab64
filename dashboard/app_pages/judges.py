"""Judges: many assessors (human or LLM) against a reference qrels set, on a projector."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import results as cached
from dashboard.cache import judges as cached_judges
from dashboard.cache import catalogue
from dashboard.session import access, state, uploads
from dashboard.cache import store as store_resource
from dashboard.components import judges as view
from dashboard.components.feedback import guard, md_escape
from dashboard.components.escape import md_format
from dashboard.components.upload import render_uploader
from dashboard.components.constants import CORRECTIONS, DEFAULT_MEASURES, MORE_MEASURES

st.title("Judges")
store = store_resource.get_store()
coll = state.collection()


def _add_judge(f):
    with store_resource.db_lock():
        try:
            return store.add_qrels(coll["id"], f.getvalue(), filename=f.name)
        finally:
            catalogue.changed()


add_judge = access.for_editors(_add_judge)      # None for a viewer: no uploader at all


def _upload(where) -> None:
    if add_judge is None:
        return
    with where:
        render_uploader(key="jd_upload", label="Judge qrels files (pick many at once)", button="Load judges",
                        noun="qrels files", load=add_judge, journal=uploads.Journal(store.path),
                        help="One TREC qrels file per judge; each file's name (without .gz) becomes the judge's name.")


if coll is None:
    st.info("There is no collection yet. Create one on the Data page.", icon=":material/info:")
    st.stop()
sets = catalogue.qrels_sets(coll["id"])
runs = catalogue.runs(coll["id"])
names = set(catalogue.collections()["name"].astype(str))
if len(sets) < 2 or runs.empty:
    need = "two or more qrels sets (a reference and at least one judge)" if len(sets) < 2 else "at least one run"
    st.info(md_escape(f"Collection '{coll['name']}' needs {need} for this page."), icon=":material/info:")
    if cached_judges.SAMPLE in names and coll["name"] != cached_judges.SAMPLE:
        st.button(f"Open the {cached_judges.SAMPLE} sample (NIST and six LLM judges)", key="jd_open_sample",
                  on_click=state.set_choice, args=("sidebar_collection", "collection", cached_judges.SAMPLE))
    if len(sets) >= 1:
        _upload(st.container())
    st.stop()

ver = cached.version(coll["id"])
by_name = cached_judges.assessor_names(sets)
default_ref = next((n for n, q in by_name.items() if q in set(sets.loc[sets["is_default"], "qrels_id"])), list(by_name)[0])
row = st.columns([2, 1.4, 1, 1.2])
reference = state.select_one("Reference", list(by_name), key="jd_reference", param="reference",
                             default=default_ref, where=row[0], help="The qrels set taken as the truth")
measure = state.select_one("Measure", list(dict.fromkeys(["nDCG@10"] + DEFAULT_MEASURES + MORE_MEASURES)),
                           key="jd_measure", param="measure", where=row[1])
level = state.select_one("Relevant at grade ≥", ["1", "2", "3"], key="jd_level", param="jd_level", where=row[2])
correction = state.select_one("Correction", list(CORRECTIONS), key="jd_correction", param="correction",
                              default="holm", format_func=CORRECTIONS.get, where=row[3])
others = [n for n in by_name if n != reference]
with st.expander("Judges: leave some out, or upload more" if add_judge else "Judges: leave some out",
                 expanded=bool(st.session_state.get("jd_upload_results"))):
    left_out = state.select_many("Leave out", others, key="jd_leave_out", param="leave_out",
                                 help="Every qrels set but the reference is a judge, unless left out here")
    _upload(st.container())
chosen = [j for j in others if j not in left_out] or others
run_ids = tuple(int(r) for r in runs["run_id"])

with guard("compare the judges"), st.spinner(md_format("Scoring {} runs under {} qrels sets...", len(runs),
                                                       len(chosen) + 1), show_time=True):
    rep = cached_judges.report(store, str(store.path), coll["id"], by_name[reference],
                               tuple(by_name[j] for j in chosen), run_ids, measure, int(level), correction, 0.05, ver)
    tab_table, tab_heat, tab_scatter, tab_topic, tab_holes = st.tabs(
        ["Judges table", "Shift heatmap", "κ against τ", "Per topic", "Pool holes"])
    with tab_table:
        view.render_judges_table(rep, key="jd_table")
    with tab_heat:
        view.render_shift_heatmap(rep, key="jd_heatmap")
    with tab_scatter:
        view.render_kappa_tau(rep, key="jd_scatter")
    with tab_topic:
        one = state.select_one("Judge", rep.judges, key="jd_topic_judge", param="judge")
        view.render_topic_view(rep, one, topics=cached.topics(store, str(store.path), coll["id"], ver),
                               key="jd_topics")
    with tab_holes:
        filled_by = st.selectbox("Fill the reference's holes with the labels of", rep.judges, key="jd_filled_by")
        view.render_bounds(rep, filled_by=filled_by, key="jd_bounds")
