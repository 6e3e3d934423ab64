"""The Curves page's caches: PR and ROC curves kept per run, under the collection's default qrels set, shared by all
sessions (see `run_stamps` for why they are not keyed on the store's data version)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.cache import store as store_resource
from dashboard.cache.results import qrels_stamp


def run_stamps(runs: pd.DataFrame, ids) -> tuple:
    """What keys the per-run curve caches below instead of the data version: (run_id, name, rows, upload time) of
    each run in `ids`, from the catalogue's runs. A stored run's rows never change and its id is never reused; a
    rename changes its name (the curves carry it); the rows and upload time keep a store rebuilt under the same
    path from matching by id alone. So a run that a pipeline loads, a new data version, leaves the others' curves
    cached, and only the new run is computed when it is shown. Plain equivalent: key every run set on `version`, as
    the other caches do (tests/dashboard/test_curve_cache.py compares)."""
    rows = runs.set_index(runs["run_id"].astype(int))
    return tuple((int(r), str(rows.at[int(r), "name"]), int(rows.at[int(r), "n_rows"]),
                  str(rows.at[int(r), "uploaded_at"])) for r in ids)


def default_qrels_stamp(sets: pd.DataFrame) -> tuple:
    """(qrels_id, judgments, topics) of the collection's default qrels set, which the curves are computed under;
    () when it has none."""
    default = sets[sets["is_default"].astype(bool)] if "is_default" in sets else sets.iloc[:0]
    return qrels_stamp(sets, default["qrels_id"].astype(int).tolist()[:1])


@st.cache_resource(show_spinner=False, max_entries=8)
def _curve_memo(store_key: str, cid: int, kind: str, qrels: tuple) -> dict:
    """run stamp -> that run's part of the curves of `kind` under one qrels set, shared by all sessions."""
    return {}


def _per_run(store, store_key: str, cid: int, kind: str, stamps: tuple, qrels: tuple, compute) -> list:
    """Each run's part from the memo; the runs not in it computed together by `compute(run_ids, qrels_id)` ->
    {run name: part} (the part under None for a run it has none of). The memo is read without the lock (a dict read),
    so a view whose runs are all known never waits for another session's computation. A part is kept only under the
    name the store gives its run while it is computed: a stamp read before a rename (the catalogue can be a version
    behind) gets that part for this view and is not kept."""
    memo = _curve_memo(store_key, cid, kind, qrels)
    fresh: dict = {}
    if any(s not in memo for s in stamps):
        with store_resource.db_lock():
            todo = [s for s in stamps if s not in memo]
            if todo:
                now = store.runs(cid)
                names = dict(zip(now["run_id"].astype(int), now["name"].astype(str)))
                parts = compute([s[0] for s in todo], qrels[0][0] if qrels else None)
                for s in todo:
                    if names.get(s[0]) == s[1]:
                        memo[s] = parts.get(s[1], parts.get(None))
                    else:
                        fresh[s] = parts.get(names.get(s[0]), parts.get(None))
    return [fresh[s] if s in fresh else memo[s] for s in stamps]


def pr_curves(_store, store_key: str, cid: int, run_ids: tuple, *, runs: pd.DataFrame, sets: pd.DataFrame
              ) -> pd.DataFrame:
    """11-point interpolated PR per run (by name) and topic (qid 'all' = the average), as core's
    pr_curve_stored(..., average=True, per_topic=True): each run's rows are its own (the average is over its own
    topics), cached per run (`run_stamps`) under the default qrels set. A run without interpolated precision (imported
    scores only, or no topic judged) has no rows; when no run of the view has any, core's own error is raised.
    `runs`, `sets`: the catalogue's."""
    from core.errors import OptionError
    from core.service.curves import pr_curve_stored

    def compute(ids, qrels_id):
        try:
            curve = pr_curve_stored(_store, cid, ids, qrels_id=qrels_id, average=True, per_topic=True)
        except OptionError:          # none of these runs has interpolated precision
            return {}
        return {str(run): rows for run, rows in curve.groupby("run", sort=False)}

    parts = [p for p in _per_run(_store, store_key, cid, "pr", run_stamps(runs, run_ids), default_qrels_stamp(sets),
                                 compute) if p is not None]
    if not parts:                    # no run of the view has any: core's error, as without the memo
        with store_resource.db_lock():
            return pr_curve_stored(_store, cid, list(run_ids), average=True, per_topic=True)
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["run", "qid", "x"], kind="stable").reset_index(drop=True)


def roc_curves(_store, store_key: str, cid: int, run_ids: tuple, *, runs: pd.DataFrame, sets: pd.DataFrame):
    """The vertically averaged ROC curve (qid 'all') and AUC of each run, computed in DuckDB by
    core.service.curves.roc_curve_stored under the default qrels set, cached per run (`run_stamps`): adding a run to
    the selection, or loading one, computes only that run."""
    from core.analysis.curves import roc_auc
    from core.service.curves import roc_curve_stored

    def compute(ids, qrels_id):
        curves = roc_curve_stored(_store, cid, ids, qrels_id, average=True, per_topic=False)
        parts = {str(run): (rows.reset_index(drop=True), roc_auc(rows.reset_index(drop=True)))
                 for run, rows in curves.groupby("run", sort=False)}     # one pass, not a comparison per run
        parts[None] = (curves.iloc[:0], roc_auc(curves.iloc[:0]))       # a run without judged documents: no points
        return parts

    parts = _per_run(_store, store_key, cid, "roc", run_stamps(runs, run_ids), default_qrels_stamp(sets), compute)
    return (pd.concat([p[0] for p in parts], ignore_index=True),
            pd.concat([p[1] for p in parts], ignore_index=True))
