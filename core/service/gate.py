"""The regression gate on stored runs: evaluate the new run and its baseline through the store's results cache
(core.service.evaluate), then check the new one against the baseline (core.stats.gate)."""
from __future__ import annotations

from core.engine.evaluate import EvalOptions
from core.service.evaluate import evaluate_stored
from core.stats.gate import Gate, gate


def check_stored(store, collection, new_run_id, baseline_run_id, measures, *, qrels_id=None, options=None,
                 **kwargs) -> Gate:
    """`gate` for two stored runs (named by their store names) of `collection`, against qrels set `qrels_id` (None:
    the default set). Topics are those either run has (with options.complete, every qrels topic, missing ones 0)."""
    options = options or EvalOptions()
    result = evaluate_stored(store, collection, [int(new_run_id), int(baseline_run_id)], measures,
                             qrels_id=qrels_id, options=options)
    new, baseline = result.runs
    return gate(result.per_query, new=new, baseline=baseline, measures=measures,
                missing="zero" if options.complete else "skip",
                all_qids=sorted(result.per_query["qid"].astype(str).unique()), **kwargs)
