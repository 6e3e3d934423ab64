"""Evaluate stored runs, through the store's per-query results cache (core/store/results.py).

Only the (run, measure) pairs without cached rows are computed, by stage 1 from the small tables the store keeps
at ingest (`run_topics`, `judged_rows`: about 6% of a run's rows; never `run_rows`) and stage 2; those fresh rows
are written to the cache and used as they are. The pairs already cached are read from it. The summary, the
missing topics and the warnings of the fresh runs are stage 2's; for the runs read from the cache alone they come
from the cached rows (the summary, core.engine.finish.summarise) and from `run_topics` (the missing topics).
"""
from __future__ import annotations

import os
from contextlib import closing

import numpy as np
import pandas as pd

from core.distributed.driver import evaluate_rankings_on_cluster
from core.engine.finish import skipped, summarise
from core.engine.stage1 import StoredRuns, rankings
from core.engine.stage2 import evaluate_rankings
from core.engine.types import EvalResult
from core.errors import EvalError
from core.measures import EvalOptions, parse_measures
from core.service.imported import imported_rows, join, score_only, split
from core.store.results import cached_pairs, read_cached, write_results

__all__ = ["evaluate_stored", "stored_ids"]


def stored_ids(store, collection, run_ids, qrels_id=None, *, need_qrels: bool = True):
    """Check a request for stored runs: the run ids (deduplicated, all in the collection), the qrels
    set id (None = the collection's default; with need_qrels=False, None when it has none) and the names of the
    collection's runs by id."""
    run_ids = [int(r) for r in dict.fromkeys(run_ids)]
    if not run_ids:
        raise EvalError("No runs selected. Pick at least one run to evaluate.")
    runs = store.runs(collection)
    known = dict(zip(runs["run_id"].astype(int), runs["name"].astype(str)))
    unknown = [r for r in run_ids if r not in known]
    if unknown:
        raise EvalError(f"Run id(s) {', '.join(map(str, unknown))} are not in collection {collection!r}. "
                        "Reload the run list.")
    if qrels_id is None:
        qrels_id = store.default_qrels_id(collection)
        if qrels_id is None and not need_qrels:
            return run_ids, None, known
        if qrels_id is None:
            raise EvalError(f"Collection {collection!r} has no qrels. Upload a qrels file first.")
    return run_ids, int(qrels_id), known


def evaluate_stored(store, collection, run_ids, measures, qrels_id=None,
                    options: EvalOptions = EvalOptions()) -> EvalResult:
    """EvalResult for stored runs (named by their names), against qrels set `qrels_id` (None: the default set).
    Measures imported into the collection (core/service/imported.py) are read as stored and joined to the computed
    ones; runs with imported scores only are left out of the computed part."""
    measures = [measures] if isinstance(measures, str) else list(measures)
    measures, imported = split(store, collection, measures)
    only = score_only(store.runs(collection))
    if not imported and not only.intersection(int(r) for r in run_ids):
        return _evaluate(store, collection, run_ids, measures, qrels_id, options)
    run_ids, default, known = stored_ids(store, collection, run_ids, qrels_id, need_qrels=False)
    ranked = [r for r in run_ids if r not in only]
    computed, warnings = None, []
    if measures and ranked and default is None:
        warnings.append(f"Collection {collection!r} has no qrels, so {', '.join(map(str, measures))} cannot be "
                        "computed; only the imported measures are shown. Upload a qrels file to compute them.")
    elif measures and ranked:
        computed = _evaluate(store, collection, ranked, measures, default, options)
    rows = imported_rows(store, run_ids, known, list(imported))
    return join(computed, rows, imported, [known[r] for r in run_ids], warnings)


def _evaluate(store, collection, run_ids, measures, qrels_id, options: EvalOptions) -> EvalResult:
    """The computed measures, through the results cache."""
    ms = parse_measures(measures, compat=options.compat)
    run_ids, qrels_id, known = stored_ids(store, collection, run_ids, qrels_id)
    key, numeric = options.key(), [m for m in ms if m.family.agg != "text"]
    texts = [m for m in ms if m.family.agg == "text"]
    names = [m.name for m in numeric]
    with closing(store.cursor()) as cur:
        have = cached_pairs(cur, qrels_id, key, run_ids, names)
        todo_runs = [r for r in run_ids if texts or any((r, n) not in have for n in names)]
        todo_ms = [m for m in numeric if any((r, m.name) not in have for r in todo_runs)]
        fresh = _compute(cur, todo_runs, todo_ms + texts, qrels_id, known, options) if todo_runs else None
        done = {m.name for m in todo_ms} if fresh is not None else set()
        later = [(r, n) for n in names for r in run_ids if not (r in todo_runs and n in done)]
        cached = read_cached(cur, qrels_id, key, later, known, names)
        rest = [r for r in run_ids if r not in todo_runs]
        missing = _missing(cur, rest, qrels_id, known) if rest else {}
    if fresh is not None and todo_ms and not store.read_only:
        with store.transaction(bump=False) as wcur:     # a cache, not new data: the store's data_version stays
            write_results(wcur, fresh.per_query[fresh.per_query["measure"].isin(done)],
                          {known[r]: r for r in todo_runs}, qrels_id, key)
    return _combine(fresh, cached, missing, ms, numeric, [known[r] for r in run_ids], options)


def _compute(cur, run_ids, ms, qrels_id, known, options) -> EvalResult:
    """Stage 1 and stage 2 of the runs not cached yet. With RANKBOARD_DASK_SCHEDULER set (a scheduler address),
    several runs are handed to that Dask cluster, one task per run carrying its stage-1 rows (core.distributed)."""
    scheduler = os.environ.get("RANKBOARD_DASK_SCHEDULER")
    if scheduler and len(run_ids) > 1:
        parts = [rankings(StoredRuns(cur, (r,), qrels_id, (known[r],)), options) for r in run_ids]
        return evaluate_rankings_on_cluster(parts, ms, options, scheduler=scheduler)
    names = tuple(known[r] for r in run_ids)
    return evaluate_rankings(rankings(StoredRuns(cur, tuple(run_ids), qrels_id, names), options), ms, options)


def _missing(cur, run_ids, qrels_id, known) -> dict[str, list[str]]:
    """run name -> the qrels topics it has no ranking for (from run_topics), for runs read from the cache alone."""
    rows = cur.execute(
        "SELECT r.run_id, list(t.qid ORDER BY t.qid) FROM (SELECT unnest($runs) AS run_id) r, "
        "(SELECT DISTINCT qid FROM qrels WHERE qrels_id = $q) t "
        "WHERE NOT EXISTS (SELECT 1 FROM run_topics x WHERE x.run_id = r.run_id AND x.qid = t.qid) "
        "GROUP BY 1 ORDER BY 1", {"runs": run_ids, "q": qrels_id}).fetchall()
    return {known[int(rid)]: qids for rid, qids in rows}


def _combine(fresh, cached: pd.DataFrame, rest_missing, ms, numeric, order: list[str], options) -> EvalResult:
    """One EvalResult of the fresh part (stage 2's, as it is) and the cached rows, runs in the order asked for.
    `rest_missing`: the missing topics of the runs read from the cache alone."""
    position = {m.name: i for i, m in enumerate(numeric)}
    parts = [p for p in (fresh.per_query if fresh is not None else None, cached) if p is not None and len(p)]
    per_query = _in_order(pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0] if parts else cached,
                          position)
    # the cached rows are in measure order: each measure's rows are one slice
    bounds = np.searchsorted(cached["measure"].map(position).to_numpy(np.int64), np.arange(len(numeric) + 1))
    blocks = [(m, cached.iloc[a:b]) for m, a, b in zip(numeric, bounds[:-1], bounds[1:]) if b > a]
    summaries = [fresh.summary] if fresh is not None else []
    summaries += [summarise(rows["run"].to_numpy(object), [m], [rows["value"].to_numpy(np.float64)])
                  for m, rows in blocks]
    summary = pd.concat(summaries, ignore_index=True) if summaries else summarise([], [], [])
    num_q = dict(fresh.num_q) if fresh is not None else {}
    if blocks:
        rows = blocks[0][1]
        num_q.update({str(r): int(n) for r, n in rows[~rows["run"].isin(num_q)].groupby("run").size().items()})
    warnings = list(fresh.warnings) if fresh is not None else []
    if not options.complete:
        warnings += [skipped(run, rest_missing[run]) for run in order if run in rest_missing]
    missing = (dict(fresh.missing_topics) if fresh is not None else {}) | rest_missing
    text = _in_order(fresh.text, {m.name: i for i, m in enumerate(ms)}) \
        if fresh is not None and fresh.text is not None else pd.DataFrame(columns=["run", "qid", "measure", "text"])
    return EvalResult(per_query[["run", "qid", "measure", "value"]], _ordered(summary, position), missing,
                      warnings, text, num_q, list(ms), [r for r in order if r in num_q])


def _in_order(frame: pd.DataFrame, position: dict[str, int]) -> pd.DataFrame:
    """Per-query rows in stage 2's order, measure by measure (`position`), then run by name: each (run, measure)
    block already holds its topics in order, so a stable sort by block is enough. Rows come in another order from
    two parts (computed and cached) or from a Dask cluster (run by run)."""
    if len(frame):
        runs = pd.Index(sorted(frame["run"].unique()))
        block = frame["measure"].map(position).to_numpy(np.int64) * len(runs) + runs.get_indexer(frame["run"])
        if np.any(block[1:] < block[:-1]):
            frame = frame.iloc[np.argsort(block, kind="stable")]
    return frame.reset_index(drop=True)


def _ordered(summary: pd.DataFrame, position: dict[str, int]) -> pd.DataFrame:
    """The summary measure by measure (`position`), runs by name within each (as summarise lays it out)."""
    if not len(summary):
        return summary
    key = summary["measure"].map(position).to_numpy(np.int64)
    summary = summary.astype({"run": str, "measure": str})       # one dtype, whichever part the rows came from
    return summary.iloc[np.lexsort((summary["run"].to_numpy(), key))].reset_index(drop=True)
