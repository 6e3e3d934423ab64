"""st.cache_data wrappers around core calls.

Keys: the store path, the collection id, run ids and measure strings, plus `version`, a digest of
the collection's runs and qrels sets (ids, names, sizes, upload times): deleting, renaming or
replacing a run, or loading qrels, changes it, so no stale result is ever shown.
Arguments starting with `_` (the Store) are not hashed.
"""
from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from dashboard import state

SPIN = False  # pages wrap calls in their own st.spinner with a message that says what is slow


def version(cid: int) -> str:
    """A digest of the collection's runs and qrels sets; part of every cache key below."""
    store = state.get_store()
    runs = store.runs(cid)[["run_id", "name", "n_rows", "uploaded_at"]]
    qrels = store.qrels_sets(cid)[["qrels_id", "assessor", "is_default", "n_judgments"]]
    colls = state.collections()
    counts = colls[colls["collection_id"] == cid].drop(columns=["created_at"], errors="ignore")
    text = "|".join(df.to_csv(index=False) for df in (runs, qrels, counts))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _key() -> str:
    return str(state.get_store().path)


def run_names(cid: int) -> dict:
    """run id (and its str) -> run name, for tables core keys by id."""
    runs = state.get_store().runs(cid)
    names = {int(i): str(n) for i, n in zip(runs["run_id"], runs["name"])}
    names.update({str(i): n for i, n in list(names.items())})
    names.update({n: n for n in list(names.values())})
    return names


@st.cache_data(show_spinner=SPIN, max_entries=256)
def evaluate(_store, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id, version: str):
    """core.results.evaluate_stored, with the run column mapped to run names."""
    from core.results import evaluate_stored
    result = evaluate_stored(_store, cid, list(run_ids), list(measures), qrels_id=qrels_id)
    names = run_names(cid)
    for frame in (result.per_query, result.summary):
        frame["run"] = frame["run"].map(lambda r: names.get(r, str(r)))
    result.missing_topics = {names.get(k, str(k)): v for k, v in result.missing_topics.items()}
    return result


def evaluated(cid: int, run_ids, measures, *, qrels_id=None, ver: str):
    return evaluate(state.get_store(), _key(), cid, tuple(int(r) for r in run_ids),
                    tuple(str(m) for m in measures), qrels_id, ver)


@st.cache_data(show_spinner=SPIN, max_entries=256)
def compare(_per_query: pd.DataFrame, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id,
            version: str, baseline: str, test: str, correction: str, alpha: float):
    from core.compare import compare as core_compare
    return core_compare(_per_query, baseline=baseline, measures=list(measures), test=test,
                        correction=correction, alpha=alpha)


def compared(cid: int, run_ids, measures, *, baseline: str, test: str, correction: str, alpha: float,
             ver: str, qrels_id=None):
    result = evaluated(cid, run_ids, measures, qrels_id=qrels_id, ver=ver)
    return result, compare(result.per_query, _key(), cid, tuple(int(r) for r in run_ids),
                           tuple(str(m) for m in measures), qrels_id, ver, baseline, test, correction,
                           float(alpha))


@st.cache_data(show_spinner=SPIN, max_entries=32)
def qrels_frame(_store, store_key: str, qrels_id: int, version: str) -> pd.DataFrame:
    return _store.qrels(int(qrels_id))


@st.cache_data(show_spinner=SPIN, max_entries=64)
def pair_agreement(_store, store_key: str, a: int, b: int, names: tuple, rel_level, version: str):
    from core.agreement import agreement
    return agreement(qrels_frame(_store, store_key, a, version), qrels_frame(_store, store_key, b, version),
                     rel_level=rel_level, weights="linear", names=names)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def multi_agreement(_store, store_key: str, ids: tuple, names: tuple, rel_level, version: str):
    from core.agreement import multi_agreement as core_multi
    return core_multi([qrels_frame(_store, store_key, q, version) for q in ids], names=names,
                      rel_level=rel_level)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def does_it_matter(_store, store_key: str, cid: int, measure: str, ids: tuple, version: str):
    from core.rankcorr import does_it_matter as core_dim
    dim = core_dim(_store, cid, measure, list(ids))
    names = run_names(cid)
    dim.scores.index = [names.get(r, str(r)) for r in dim.scores.index]
    return dim


@st.cache_data(show_spinner=SPIN, max_entries=16)
def topics(_store, store_key: str, cid: int, version: str) -> dict:
    df = _store.topics(cid)
    return dict(zip(df["qid"].astype(str), df["text"].astype(str)))
