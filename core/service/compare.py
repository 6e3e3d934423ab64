"""Comparisons of stored runs: against a baseline (core.stats.compare), a new run against its baseline (the
regression gate, core.stats.gate), and under several qrels sets ("does it matter?", core.agreement.rankcorr); and a
consensus of stored qrels sets saved as a new one."""
from __future__ import annotations

import pandas as pd

from core.agreement.consensus import consensus, to_trec_text
from core.agreement.rankcorr import DoesItMatter, correlation_table
from core.engine.evaluate import EvalOptions
from core.errors import EvalError
from core.measures import parse_measure
from core.service.evaluate import evaluate_stored
from core.service.judges import check_sets, labels_of
from core.stats.compare import Comparison, compare
from core.stats.gate import Gate, gate_result


def compare_stored(store, collection, run_ids, measures, baseline_run_id, *, qrels_id=None, options=None,
                   **kwargs) -> Comparison:
    """Evaluate stored runs (through the engine's results cache) and compare them with the baseline run.

    Runs are named by their store names. With options.complete (-c) missing topics count as 0.
    """
    options = options or EvalOptions()
    run_ids = list(dict.fromkeys([int(baseline_run_id), *map(int, run_ids)]))
    result = evaluate_stored(store, collection, run_ids, measures, qrels_id=qrels_id, options=options)
    runs = store.runs(collection)
    names = dict(zip(runs["run_id"].astype(int), runs["name"].astype(str)))
    kwargs.setdefault("missing", "zero" if options.complete else "skip")
    order = {names[i]: k for k, i in enumerate(run_ids)}  # rows in the order the runs were asked for
    per_query = result.per_query.sort_values("run", key=lambda s: s.map(order), kind="stable")
    return compare(per_query, baseline=names[int(baseline_run_id)],
                   measures=[getattr(m, "name", m) for m in measures] if measures else None, **kwargs)


def check_stored(store, collection, new_run_id, baseline_run_id, measures, *, qrels_id=None, options=None,
                 **kwargs) -> Gate:
    """`gate` for two stored runs (named by their store names) of `collection`, against qrels set `qrels_id` (None:
    the default set). Topics are those either run has (with options.complete, every qrels topic, missing ones 0)."""
    options = options or EvalOptions()
    result = evaluate_stored(store, collection, [int(new_run_id), int(baseline_run_id)], measures,
                             qrels_id=qrels_id, options=options)
    return gate_result(result, measures, complete=options.complete, **kwargs)


def does_it_matter(store, collection, measure: str, qrels_ids=None, *, options=None) -> DoesItMatter:
    """Evaluate every run of `collection` under each qrels set (all of them when `qrels_ids` is None)
    with `core.service.evaluate.evaluate_stored`, and correlate the system orderings pairwise."""
    canonical = parse_measure(measure).name
    sets = store.qrels_sets(collection)
    if qrels_ids is not None:
        wanted = list(dict.fromkeys(int(q) for q in qrels_ids))
        check_sets(sets, wanted)
        sets = sets.set_index("qrels_id").loc[wanted].reset_index()      # in the order asked for
    if len(sets) < 2:
        raise EvalError("'Does it matter?' needs at least two qrels sets in the collection.")
    runs = store.runs(collection)
    if runs.empty:
        raise EvalError("The collection has no runs to rank.")
    columns, ids, labels = {}, {}, labels_of(sets)
    for row in sets.itertuples():
        label = labels[int(row.qrels_id)]
        result = evaluate_stored(store, collection, runs["run_id"].tolist(), [canonical],
                                 qrels_id=int(row.qrels_id), options=options or EvalOptions())
        summary = result.summary[result.summary["measure"] == canonical]
        columns[label] = pd.Series(summary["value"].to_numpy(), index=summary["run"].to_numpy())     # by run name
        ids[label] = int(row.qrels_id)
    scores = pd.DataFrame(columns).rename_axis("run")
    return DoesItMatter(measure=canonical, scores=scores, correlations=correlation_table(scores),
                        qrels_ids=ids)


def save_consensus(store, collection, qrels_ids, method: str, assessor_name: str | None = None, *,
                   on: str = "union"):
    """Build the consensus of the stored qrels sets `qrels_ids` and add it to `collection` as a new
    qrels set (one transaction, through `store.add_qrels`). Returns the store's IngestReport."""
    qrels_ids = [int(q) for q in qrels_ids]
    check_sets(store.qrels_sets(collection), qrels_ids)
    merged = consensus([store.qrels(q) for q in qrels_ids], method, on=on)
    name = assessor_name or f"consensus-{method} of " + "+".join(map(str, qrels_ids))
    return store.add_qrels(collection, to_trec_text(merged), filename=f"consensus-{method}.qrels",
                           assessor=name)
