"""Evaluate stored runs, caching per-query values in the store's `results` table.

The cache key is (run_id, qrels_id, options string, measure); qid 'all' is never stored (the summary
is recomputed from the per-query values, which is exact for means, sums and geometric means).
Only (run, measure) pairs without cached rows are computed, from the small tables the store keeps at
ingest (`run_topics`, `judged_rows`: about 6% of a run's rows), never from `run_rows`. Deleting or
replacing a run deletes its rows (the store does that), so the cache cannot go stale.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa

from core.distributed.driver import evaluate_rankings_on_cluster
from core.errors import EvalError
from core.engine.stage2 import evaluate_rankings, summarise
from core.measures import EvalOptions, parse_measures
from core.db.sql import sql
from core.engine.stage1 import StoredRuns, rankings
from core.engine.stage1.stored import stored_rankings  # noqa: F401  (its old home)
from core.engine.types import EvalResult


def stored_ids(store, collection, run_ids, qrels_id=None) -> tuple[list[int], int, dict[int, str]]:
    """Check a request for stored runs: the run ids (deduplicated, all in the collection), the qrels
    set id (None = the collection's default) and the names of the collection's runs by id."""
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
        if qrels_id is None:
            raise EvalError(f"Collection {collection!r} has no qrels. Upload a qrels file first.")
    return run_ids, int(qrels_id), known


def evaluate_stored(store, collection, run_ids, measures, qrels_id=None,
                    options: EvalOptions = EvalOptions()) -> EvalResult:
    """EvalResult for stored runs; `run` columns hold run names. qrels_id None = the default qrels set."""
    ms = parse_measures(measures, compat=options.compat)
    run_ids, qrels_id, known = stored_ids(store, collection, run_ids, qrels_id)
    key = options.key()
    numeric = [m for m in ms if m.family.agg != "text"]
    names = [m.name for m in numeric]
    cur = store.cursor()
    try:
        cached = cur.execute(
            "SELECT DISTINCT run_id, measure FROM results WHERE qrels_id = $q AND options = $o "
            "AND list_contains($runs, run_id) AND list_contains($ms, measure)",
            {"q": qrels_id, "o": key, "runs": run_ids, "ms": names}).fetchall()
        have = {(int(r), m) for r, m in cached}
        todo_runs = [r for r in run_ids if any((r, n) not in have for n in names)]
        todo_ms = [m for m in numeric if any((r, m.name) not in have for r in todo_runs)]
        text = None
        if todo_runs and todo_ms or any(m.family.agg == "text" for m in ms):
            fresh = _compute(cur, todo_runs or run_ids, todo_ms + [m for m in ms if m.family.agg == "text"],
                             qrels_id, options)
            text = fresh.text.assign(run=fresh.text["run"].astype(int).map(known))
            if todo_runs and todo_ms:
                _write(store, fresh.per_query, qrels_id, key)
        # through Arrow: fetchdf builds pandas' string columns value by value (~4x slower on 1.5M rows); same frame
        per_query = cur.sql(sql("stored_results"), params={"q": qrels_id, "o": key, "runs": run_ids,
                                                           "ms": names}).to_arrow_table().to_pandas()
        missing, warnings = _missing(cur, run_ids, qrels_id, known, options)
    finally:
        cur.close()
    summary, num_q = _summary(per_query, numeric, known)
    per_query = per_query[["run", "qid", "measure", "value"]]
    return EvalResult(per_query, summary, missing, warnings,
                      text if text is not None else pd.DataFrame(columns=["run", "qid", "measure", "text"]),
                      num_q, list(ms), [known[r] for r in run_ids if known[r] in num_q])


def _summary(per_query: pd.DataFrame, numeric, known: dict[int, str]) -> tuple[pd.DataFrame, dict[str, int]]:
    """trec_eval's "all" rows and the number of topics per run, from cached per-query rows in (run, measure
    position m, qid) order: each measure's rows, taken in order, are one contiguous block. Runs are told apart by
    their integer id (`run_id`), and only each block's run column is built from names (`known`)."""
    m = per_query["m"].to_numpy(np.int64) - 1
    order = np.argsort(m, kind="stable")
    bounds = np.searchsorted(m[order], np.arange(len(numeric) + 1))
    codes, ids = pd.factorize(per_query["run_id"].to_numpy(np.int64)[order])
    names = np.asarray([known[int(i)] for i in ids], dtype=object)
    value = per_query["value"].to_numpy(np.float64)[order]
    blocks = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    if not blocks:
        return summarise([], [], []), {}
    first = codes[blocks[0]]
    if all(np.array_equal(codes[b], first) for b in blocks[1:]):          # every measure over the same topics
        summary = summarise(names[first], numeric, [value[b] for b in blocks])
    else:
        summary = pd.concat([summarise(names[codes[b]], [ms], [value[b]]) for ms, b in zip(numeric, blocks)],
                            ignore_index=True)
    counts = np.bincount(first, minlength=len(names))
    return summary, {str(n): int(c) for n, c in zip(names, counts) if c}


def _compute(cur, run_ids, ms, qrels_id, options) -> EvalResult:
    """Stage 2 of the runs not cached yet. With RANKBOARD_DASK_SCHEDULER set (a scheduler address), several runs
    are handed to that Dask cluster, one task per run carrying its stage-1 rows (core.distributed.driver)."""
    scheduler = os.environ.get("RANKBOARD_DASK_SCHEDULER")
    if scheduler and len(run_ids) > 1:
        parts = [rankings(StoredRuns(cur, (r,), qrels_id), options) for r in run_ids]
        return evaluate_rankings_on_cluster(parts, ms, options, scheduler=scheduler)
    return evaluate_rankings(rankings(StoredRuns(cur, tuple(run_ids), qrels_id), options), ms, options)


def _write(store, per_query: pd.DataFrame, qrels_id: int, key: str) -> None:
    """Store fresh per-query rows (`run` holds run ids as text) in the results cache. The rows go to DuckDB as an
    Arrow table: the run ids converted once per distinct run, qid and measure handed over without a copy. Plain
    equivalent: a pandas frame with `per_query["run"].astype(int)` and `.astype(str)` columns, which converted
    1.5M values one by one (0.5 s at 50 runs x 5,000 topics x 6 measures); tests/service/test_store_evaluate.py compares."""
    codes, ids = pd.factorize(per_query["run"])
    run_id = np.asarray([int(r) for r in ids], dtype=np.int64)[codes]
    frame = pa.table({"run_id": run_id, "qid": _text(per_query["qid"]), "measure": _text(per_query["measure"]),
                      "value": per_query["value"].to_numpy(np.float64)})
    with store.transaction(bump=False) as cur:     # a cache, not new data: the store's data_version stays
        cur.register("_rb_new_results", frame)
        cur.execute("DELETE FROM results WHERE qrels_id = $q AND options = $o AND (run_id, measure) IN "
                    "(SELECT DISTINCT run_id, measure FROM _rb_new_results)", {"q": qrels_id, "o": key})
        cur.execute("INSERT INTO results SELECT run_id, $q, $o, qid, measure, value FROM _rb_new_results",
                    {"q": qrels_id, "o": key})
        cur.unregister("_rb_new_results")


def _text(column: pd.Series) -> pa.Array:
    """A text column as an Arrow string array (no copy when pandas already holds it in Arrow)."""
    try:
        return pa.array(column, type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array(column.astype(str), type=pa.string())


def _missing(cur, run_ids, qrels_id, known, options):
    rows = cur.execute(
        "SELECT r.run_id, t.qid FROM (SELECT unnest($runs) AS run_id) r, "
        "(SELECT DISTINCT qid FROM qrels WHERE qrels_id = $q) t "
        "WHERE NOT EXISTS (SELECT 1 FROM run_topics x WHERE x.run_id = r.run_id AND x.qid = t.qid) ORDER BY 1, 2",
        {"runs": run_ids, "q": qrels_id}).fetchall()
    missing: dict[str, list[str]] = {}
    for rid, qid in rows:
        missing.setdefault(known[int(rid)], []).append(qid)
    warnings = [] if options.complete else [
        f"{run}: {len(q)} qrels topic(s) not in the run were skipped (use -c to count them as zero): "
        + ", ".join(q[:20]) + (f" ...and {len(q) - 20} more" if len(q) > 20 else "")
        for run, q in missing.items()]
    return missing, warnings
