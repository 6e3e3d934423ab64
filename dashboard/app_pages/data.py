"""Data: choose or create a collection, upload runs/qrels/topics/documents, per-query scores and RAG nuggets,
manage runs and their lineage and cost."""
from __future__ import annotations

import streamlit as st

from core.errors import RankboardError
from dashboard.session import access, uploads
from dashboard.cache import catalogue
from dashboard.session import state
from dashboard.cache import store as store_resource
from dashboard.components.feedback import show_error, words
from dashboard.components.escape import md_escape
from dashboard.components.runs_admin import (render_collections, render_counts, render_diversity_table,
                                             render_qrels_table, render_run_admin, render_run_table)
from dashboard.components.dataset import render_dataset_loader
from dashboard.components.lineage import render_lineage_table, render_meta_editor
from dashboard.components.upload import render_uploader

st.title("Data")
store = store_resource.get_store()
journal = uploads.Journal(store.path)


def _created(name: str) -> None:
    with store_resource.db_lock():
        store.create_collection(name)


create = access.for_editors(_created)


def _create() -> None:
    name = st.session_state.get("data_new_collection", "").strip()
    try:
        create(name)
        catalogue.changed()
        state.set_choice("sidebar_collection", "collection", name)
        st.session_state.pop("data_create_error", None)
        st.session_state["data_new_collection"] = ""
    except RankboardError as err:
        st.session_state["data_create_error"] = words(err)


with st.expander("Collections: pick one in the sidebar, or create one here", expanded=state.collection() is None):
    all_colls = catalogue.collections()
    if not all_colls.empty:
        render_collections(all_colls, key="data_collections_table")
    if create:
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.text_input("New collection name", key="data_new_collection", placeholder="e.g. robust04-week12")
        right.button("Create collection", key="data_create_collection", on_click=_create)
    if st.session_state.get("data_create_error"):
        show_error(st.session_state["data_create_error"], title="Could not create the collection")

coll = state.collection()
if coll is None:
    st.info("Create a collection above, then upload its qrels, topics and runs here." if create
            else "There is no collection yet; an editor can create one here.")
    st.stop()

cid = coll["id"]
row = catalogue.collections().set_index("collection_id").loc[cid]
qrels_sets = catalogue.qrels_sets(cid)
render_counts(row, qrels=qrels_sets, key="data_counts")


def _then_refresh(fn):
    """A store write, then drop the cached run and qrels lists (even on failure). The store parses the file
    before it takes its turn on the store file, so other sessions keep reading while an upload is parsed."""
    def call(*args, **kw):
        try:
            return fn(*args, **kw)
        finally:
            catalogue.changed()
    return call


def _upload(fn):
    """One upload into this collection (a Streamlit UploadedFile), as a store write."""
    return lambda f, **kw: _then_refresh(fn)(cid, f.getvalue(), filename=f.name, **kw)


def _run_options() -> dict | None:
    """The on-conflict choice; None (the load button stays off) until a replace is confirmed."""
    choice = st.selectbox("If a run with that name exists", ["error", "replace", "rename"],
                          key="data_runs_on_conflict",
                          format_func={"error": "Stop and tell me", "replace": "Replace it",
                                       "rename": "Keep both (rename the new one)"}.get)
    if choice == "replace" and not st.checkbox(
            "Yes, replace: a stored run with the same name is deleted with its cached results",
            key="data_runs_confirm_replace"):
        return None
    return {"on_conflict": choice}


def _qrels_options(key: str = "data_qrels_assessor") -> dict:
    who = st.text_input("Assessor name", key=key, placeholder="defaults to the file name",
                        help="Each qrels set of a collection needs its own assessor name.")
    return {"assessor": who.strip() or None}


def _scores_options() -> dict:
    left, right = st.columns(2)
    name = left.text_input("Run name", key="data_scores_name", placeholder="the run the file names, else its name",
                           help="For a file of one run: the run these scores belong to (a stored run of that name "
                                "gets them; another name adds a run with scores only).")
    source = right.text_input("Source", key="data_scores_source", placeholder="e.g. GPT-4o judge, nuggetizer",
                              help="Where the scores come from; the tables mark them 'imported (source)'.")
    return {"name": name.strip() or None, "label": source.strip() or None}


def _add_diversity(c, data, **kw):
    from core.store.diversity import add_diversity_qrels
    return add_diversity_qrels(store, c, data, **kw)


# every write of this page, through the one access check: None (no control drawn) for a session that may not edit
load_runs = access.for_editors(_upload(store.add_run))
load_qrels = access.for_editors(_upload(store.add_qrels))
load_diversity = access.for_editors(_upload(_add_diversity))
load_topics = access.for_editors(_upload(store.add_topics))
load_docs = access.for_editors(_upload(store.add_documents))
load_dataset = access.for_editors(_then_refresh(lambda did, **kw: store.add_dataset(cid, did, **kw)))
load_scores = access.for_editors(_upload(store.add_scores))
load_nuggets = access.for_editors(lambda f, nuggets: _then_refresh(store.add_nuggets)(
    cid, nuggets.getvalue(), f.getvalue(), nuggets_name=nuggets.name, assignments_name=f.name))
rename = access.for_editors(_then_refresh(store.rename_run))
delete = access.for_editors(_then_refresh(store.delete_run))
save_meta = access.for_editors(_then_refresh(lambda run_id, values: store.set_run_meta(run_id, values, replace=True)))


def _nuggets_options() -> dict | None:
    """The nuggets file the assignments were made from; None (the load button stays off) until one is chosen."""
    nuggets = st.file_uploader("Nuggets file", key="data_nuggets_file",
                               help="nuggetizer's nuggets (JSON Lines: qid, nuggets with text and importance)")
    return {"nuggets": nuggets} if nuggets is not None else None


def _upload_section() -> None:
    """The uploaders (editors only)."""
    st.subheader(f"Upload to '{md_escape(coll['name'])}'")
    tab_runs, tab_qrels, tab_div, tab_topics, tab_docs, tab_scores, tab_nuggets, tab_dataset = st.tabs(
        ["Runs", "Qrels", "Diversity qrels", "Topics", "Documents", "Scores", "Nuggets", "ir_datasets"])
    with tab_runs:
        render_uploader(key="data_runs", journal=journal, label="Run files", button="Load runs", noun="runs",
                        load=load_runs, options=_run_options,
                        on_loaded=lambda reports: state.include("runs", [r.name for r in reports if r.name]),
                        help="TREC run format (qid Q0 docno rank score tag), any file name, gzip is fine.")
    with tab_qrels:
        render_uploader(key="data_qrels", journal=journal,
                        label="Qrels files", button="Load qrels", noun="qrels files",
                        load=load_qrels, options=_qrels_options,
                        help="TREC qrels (qid iter docno rel). The collection's first qrels set is its default.")
    with tab_div:
        render_uploader(key="data_div", journal=journal, label="Subtopic qrels files", button="Load diversity qrels",
                        noun="subtopic qrels files", load=load_diversity,
                        options=lambda: _qrels_options("data_div_assessor"),
                        help="ndeval's subtopic qrels (qid subtopic docno rel), for the diversity measures "
                             "(alpha_nDCG@k, ERR_IA@k, NRBP, ...). Kept apart from the relevance qrels sets.")
    with tab_topics:
        render_uploader(key="data_topics", journal=journal,
                        label="Topic files", button="Load topics", noun="topic files",
                        load=load_topics, help="TREC topic files or qid<TAB>text lines.")
    with tab_docs:
        render_uploader(key="data_docs", journal=journal,
                        label="Document files", button="Load documents", noun="document files",
                        load=load_docs, help="docno<TAB>text lines, JSONL or TREC <DOC> files.")
    with tab_scores:
        render_uploader(key="data_scores", journal=journal, label="Per-query score files", button="Load scores",
                        noun="score files", load=load_scores, options=_scores_options,
                        on_loaded=lambda reports: state.include("runs", [n for r in reports for n in r.new_runs]),
                        help="Per-query values from any tool: trec_eval -q output, ir_measures -q (or its "
                             "DataFrame as CSV/Parquet), ranx per-query scores (JSON), or a CSV/Parquet of run, qid, "
                             "measure, value. A name Rankboard computes itself gets the prefix 'imported:'.")
    with tab_nuggets:
        render_uploader(key="data_nuggets", journal=journal, label="Assignments files", button="Load nuggets",
                        noun="assignments files", load=load_nuggets, options=_nuggets_options,
                        help="nuggetizer's assignments (JSON Lines: qid, run_id, nuggets with their assignment), "
                             "scored on the nuggets file below: each run gets the scores strict_vital, strict_all, "
                             "vital and all per topic, as imported measures (source 'nuggets').")
    with tab_dataset:
        render_dataset_loader(key="data_dataset", load=load_dataset)


if load_runs is None:
    st.info(access.why_read_only(), icon=":material/lock:")
else:
    _upload_section()

st.subheader("Runs")
runs = catalogue.runs(cid)
if runs.empty:
    st.info("No runs yet: upload run files above (the Runs tab).")
else:
    render_run_table(runs, key="data_runs_table")
    if rename and delete:
        with st.expander("Rename or delete a run"):
            render_run_admin(runs, rename=rename, delete=delete, key="data")
    st.subheader("Lineage and cost")
    st.caption("Each run's system, version, timestamp and cost, from its ir_metadata header, `python -m core load "
               "--system/--version/--meta` or the editor below (docs/formats.md lists the keys).")
    render_lineage_table(catalogue.lineage(cid), key="data_lineage_table")
    if save_meta:
        with st.expander("Edit a run's lineage and cost"):
            render_meta_editor(runs, meta_of=store.run_meta, save=save_meta, key="data")

st.subheader("Qrels sets")
if qrels_sets.empty:
    st.info("No qrels yet: upload a qrels file above (the Qrels tab). Evaluation needs one.")
else:
    render_qrels_table(qrels_sets, key="data_qrels_table")
div_sets = catalogue.diversity_sets(cid)
if not div_sets.empty:
    st.subheader("Diversity qrels sets")
    st.caption("Subtopic judgments for the diversity measures (python -m core evaluate --qrels-kind diversity, "
               "core.service.diversity.evaluate_stored_diversity).")
    render_diversity_table(div_sets, key="data_div_table")
