"""Stored runs against a subtopic (diversity) qrels set of their collection (core.engine.diversity).

    evaluate_stored_diversity(store, "web2011", [run_id], qid, ["alpha_nDCG@20", "ERR_IA@20"]).summary

Values are computed on demand (ndeval's measures are quick on judged rows); they are not cached in the results
table.
"""
from __future__ import annotations

from core.engine.diversity import evaluate_diversity
from core.engine.types import EvalResult
from core.errors import EvalError
from core.measures import EvalOptions
from core.store.diversity import frame as _frame

__all__ = ["evaluate_stored_diversity"]


def evaluate_stored_diversity(store, collection, run_ids, qrels_id: int, measures,
                              options: EvalOptions = EvalOptions()) -> EvalResult:
    """Stored runs of `collection` (by id) against its diversity set `qrels_id`; runs are named by their names."""
    cid = store._cid(collection)
    if _frame(store, "SELECT 1 FROM diversity_sets WHERE qrels_id = ? AND collection_id = ?", [qrels_id, cid]).empty:
        raise EvalError(f"Collection '{collection}' has no diversity qrels set {qrels_id}. Upload subtopic qrels "
                        f"on the Data page or choose one of its diversity sets.")
    ids = [int(r) for r in run_ids]
    names = _frame(store, "SELECT run_id, name FROM runs WHERE collection_id = ? AND list_contains(?, run_id)",
                   [cid, ids])
    unknown = sorted(set(ids) - set(names["run_id"]))
    if unknown:
        raise EvalError(f"Collection '{collection}' has no run with id {unknown[0]}. Choose one of its runs.")
    name_of = dict(zip(names["run_id"], names["name"]))
    run = _frame(store, "SELECT n.name AS run, r.qid, r.docno, r.score FROM run_rows r JOIN runs n USING (run_id) "
                        "WHERE list_contains(?, r.run_id)", [ids])
    qrels = _frame(store, "SELECT qid, subtopic, docno, rel FROM subtopic_qrels WHERE qrels_id = ? ORDER BY line",
                   [qrels_id])
    return evaluate_diversity(qrels, run, measures, options, runs=[name_of[i] for i in ids])
