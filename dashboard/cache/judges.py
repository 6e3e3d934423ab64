"""st.cache_data wrapper around core.judges_stored (keys as in dashboard/cache/results.py: store path, collection,
qrels set ids, run ids, measure and options, plus the collection's `version` digest)."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import catalogue
from dashboard.cache import store as store_resource

SAMPLE = "dl23-llmjudge"      # the bundled collection that shows the Judges page at its best


@st.cache_data(show_spinner=False, max_entries=32)
def report(_store, store_key: str, cid: int, reference: int, judges: tuple, run_ids: tuple, measure: str,
           rel_level: int, correction: str, alpha: float, version: str):
    from core.service.judges import judges_stored
    with store_resource.db_lock():   # reads only, but the store's one connection is shared by every session
        return judges_stored(_store, cid, reference, list(judges), list(run_ids), measure=measure,
                             rel_level=rel_level, correction=correction, alpha=alpha)


def assessor_names(sets) -> dict[str, int]:
    """Display name -> qrels_id, as core.service.judges names the sets in its report."""
    from core.service.judges import labels_of
    return {name: qid for qid, name in labels_of(sets).items()}


def leaderboard_bounds(coll: dict, run_ids, measures, ver: str, *, key: str) -> None:
    """The Leaderboard's optional pool-hole section: bounds for one of its measures under the default qrels set,
    and (when the collection has other qrels sets) the score with the holes filled by one of them."""
    from dashboard.components.judges import render_bounds

    store, sets = store_resource.get_store(), catalogue.qrels_sets(coll["id"])
    names = assessor_names(sets)
    default = next((n for n, q in names.items() if q in set(sets.loc[sets["is_default"], "qrels_id"])), None)
    if default is None:
        return
    left, right = st.columns(2)
    measure = left.selectbox("Bounds for", measures, key=f"{key}_measure")
    fillers = [n for n in names if n != default]
    filled_by = right.selectbox("Fill the holes with the labels of", fillers or ["(no other qrels set)"],
                                key=f"{key}_filled_by", disabled=not fillers)
    judges = (names[filled_by],) if fillers else ()
    with st.spinner("Scoring the holes in the pool..."):
        rep = report(store, str(store.path), coll["id"], names[default], judges, tuple(int(r) for r in run_ids),
                     measure, 1, "holm", 0.05, ver)
    render_bounds(rep, filled_by=filled_by if fillers else None, key=key)
