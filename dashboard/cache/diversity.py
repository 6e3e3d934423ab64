"""st.cache_data wrapper around core.service.diversity: stored runs against a subtopic (diversity) qrels set."""
from __future__ import annotations

import streamlit as st

from dashboard.cache import store as store_resource


@st.cache_data(show_spinner=False, max_entries=32)
def _evaluate(path: str, cid: int, run_ids: tuple, qrels_id: int, measures: tuple, ver: str):
    from core.service.diversity import evaluate_stored_diversity
    result = evaluate_stored_diversity(store_resource.get_store(), cid, list(run_ids), qrels_id, list(measures))
    return result.summary, result.per_query, list(result.warnings)


def evaluate(cid: int, run_ids: list[int], qrels_id: int, measures: list[str], *, ver: str):
    """(summary, per_query, warnings) of the runs on the diversity measures, cached per data version."""
    return _evaluate(str(store_resource.get_store().path), int(cid), tuple(run_ids), int(qrels_id), tuple(measures),
                     ver)


def split(measures: list[str], imported=()) -> tuple[list[str], list[str]]:
    """(measures for the relevance qrels, diversity measures) of canonical measure names (an imported measure,
    named in `imported`, goes with the relevance measures)."""
    from core.engine.diversity import is_diversity
    from core.measures import parse_measure
    div = [m for m in measures if m not in imported and is_diversity(parse_measure(m))]
    return [m for m in measures if m not in div], div
