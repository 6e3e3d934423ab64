"""Reproducibility of stored runs (core.repro): the per-topic values come from evaluate_stored (the store's results
cache), the document orderings for KTU and RBO from the store's canonical ranks (trec_eval's order, as
core.repro.ordering.ranked would rank the run files), read only down to `depth`."""
from __future__ import annotations

from contextlib import closing

from core.errors import EvalError
from core.measures import EvalOptions, parse_measures
from core.repro import ROLES, Reproduction, reproduce
from core.repro.ordering import DEPTH, RBO_P
from core.service.evaluate import evaluate_stored, stored_ids
from core.service.imported import score_only

# a run's top `depth` documents per topic in its canonical order, ranked from 0 as core.repro.ordering.ranked's table
# (the store's ranks are 1-based)
RANKED_SQL = """
SELECT qid, docno, rank - 1 AS rank FROM run_rows WHERE run_id = ? AND rank <= ? ORDER BY qid, rank
"""


def reproduce_stored(store, collection, runs: dict[str, int], measures, *, qrels_id=None,
                     options: EvalOptions = EvalOptions(), rbo_p: float = RBO_P,
                     depth: int = DEPTH) -> Reproduction:
    """core.repro.reproduce of stored runs of one collection, on one qrels set (None: the default set).
    `runs`: role -> run id, for the roles of core.repro.ROLES given (original and reproduced; both baselines or
    neither). Reproducibility only: the runs share the collection's topics."""
    unknown = [r for r in runs if r not in ROLES]
    if unknown or not {"original", "reproduced"} <= set(runs):
        raise EvalError(f"Give the original and the reproduced run (roles: {', '.join(ROLES)}), "
                        f"not {', '.join(sorted(runs))}.")
    if depth < 1:
        raise EvalError(f"The depth must be 1 or more, not {depth}.")
    names = [m.name for m in parse_measures(measures, compat=options.compat)]
    if not names:
        raise EvalError("No measure chosen. Pick at least one measure.")
    run_ids, qrels_id, known = stored_ids(store, collection, runs.values(), qrels_id)
    unranked = [known[r] for r in run_ids if r in score_only(store.runs(collection))]
    if unranked:
        raise EvalError(f"{', '.join(unranked)}: per-query scores only, no ranking to compare. Pick runs loaded "
                        "from run files.")
    result = evaluate_stored(store, collection, run_ids, names, qrels_id, options)
    types = {"qid": str, "docno": str, "rank": "int64"}
    with closing(store.cursor()) as cur:
        rankings = {role: cur.execute(RANKED_SQL, [int(rid), int(depth)]).df().astype(types)
                    for role, rid in runs.items()}
    return reproduce(result.per_query, result.per_query, {role: known[int(rid)] for role, rid in runs.items()},
                     names, rankings=rankings, rbo_p=rbo_p, depth=depth)

