"""Evaluate many runs on a Dask cluster, with the same kernel and the same numbers as `evaluate_files`
(docs/distributed.md). The driver reads the qrels once and broadcasts them; the workers read the run files
(core.distributed.tasks); the global steps stay here (missing topics, -c, the summary), so every output format
prints exactly what the local engine prints. split="topic" buckets hold hundreds of topics: a kernel call has a
fixed cost of ~20 ms, so one call per topic would spend most of its time starting.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from core.distributed import tasks
from core.errors import EvalError
from core.engine.stage1.tables import arrow_qrels_summary
from core.engine.finish import no_topic, run_names, skipped, summarise_long
from core.engine.stage2 import evaluate_rankings
from core.engine.types import EvalResult, Rankings
from core.measures import EvalOptions, parse_measures

SPLITS = ("run", "topic")
PER_BUCKET = 300


def evaluate_distributed(qrels, runs, measures, options: EvalOptions = EvalOptions(), *, scheduler=None,
                         split: str = "run", per_bucket: int = PER_BUCKET, workers: int | None = None,
                         progress=None, name_runs=run_names) -> EvalResult:
    """`evaluate_files` on a Dask cluster: `scheduler` is an address, a scheduler file, a distributed.Client, or
    None for a local cluster of `workers` processes (default one per core). `progress(done, total)` hears of
    finished tasks. `name_runs(tags, paths)` names the runs (default: as evaluate_files does)."""
    return run_distributed(qrels, runs, measures, options, scheduler=scheduler, split=split, per_bucket=per_bucket,
                           workers=workers, progress=progress, name_runs=name_runs)[0]


def run_distributed(qrels, runs, measures, options: EvalOptions = EvalOptions(), *, scheduler=None,
                    split: str = "run", per_bucket: int = PER_BUCKET, workers: int | None = None,
                    progress=None, name_runs=run_names) -> tuple[EvalResult, list[str], list[str]]:
    """evaluate_distributed's (result, every run's name in order, the sorted qrels topics)."""
    from core.distributed.cluster import client_for, wait
    from core.formats import read_qrels

    if split not in SPLITS:
        raise EvalError(f"split must be 'run' or 'topic', not {split!r}.")
    if per_bucket < 1:
        raise EvalError(f"per_bucket must be a positive number of topics, not {per_bucket!r}.")
    paths = [str(runs)] if isinstance(runs, (str, Path)) else [str(p) for p in runs]
    ms = parse_measures(measures, compat=options.compat)
    names = [m.name for m in ms]
    parsed = read_qrels(qrels, filename=Path(str(qrels)).name)
    qtable = parsed.table.select(["qid", "docno", "rel"])
    topics, levels = arrow_qrels_summary(qtable)
    with client_for(scheduler, workers) as client:
        shared = client.scatter(qtable, broadcast=True)
        if split == "run":
            futures = [client.submit(tasks.run_task, p, str(i), shared, names, options, pure=False)
                       for i, p in enumerate(paths)]
            wait(client, futures, progress)
            done = client.gather(futures)
            tags, warns, tables = [d[0] for d in done], [d[1] for d in done], [d[2] for d in done]
        else:
            tags, warns, tables = _by_topic(client, paths, topics, per_bucket, shared, names, options, progress)
    keys = [str(i) for i in range(len(paths))]
    run_names = name_runs(tags, paths)
    result = assemble(tables, keys, run_names, topics, levels, ms, options)
    result.warnings = list(parsed.warnings) + [w for ws in warns for w in ws] + result.warnings
    return result, run_names, topics


def evaluate_rankings_on_cluster(parts: list[Rankings], measures, options: EvalOptions = EvalOptions(), *,
                                 scheduler=None, progress=None) -> EvalResult:
    """evaluate_rankings of each stage-1 `Rankings` (disjoint runs) as one task of a Dask cluster, merged: how the
    dashboard hands stored runs to a cluster. The rows go with the task (the judged retrieved documents, ~6% of a
    run), so a worker needs no access to the store."""
    from core.distributed.cluster import client_for, wait
    from core.engine.types import merge

    names = [m.name for m in parse_measures(measures, compat=options.compat)]
    with client_for(scheduler) as client:
        futures = [client.submit(evaluate_rankings, rk, names, options, pure=False) for rk in parts]
        wait(client, futures, progress)
        return merge(client.gather(futures))


def _by_topic(client, paths, topics, per_bucket, shared, names, options, progress):
    """The shuffle: a reader per file cuts it into buckets; a kernel task per bucket takes its piece of every file."""
    from core.distributed.cluster import wait

    topic_array = pa.array(topics, pa.string())
    n = max(1, (len(topics) + per_bucket - 1) // per_bucket)
    reads = [client.submit(tasks.bucket_task, p, str(i), topic_array, per_bucket, options.complete, pure=False)
             for i, p in enumerate(paths)]
    metas = [client.submit(tasks.meta, r) for r in reads]
    pieces = [[client.submit(tasks.piece, r, b) for r in reads] for b in range(n)]
    kernels = [client.submit(tasks.topic_task, shared, names, options, *pieces[b], pure=False) for b in range(n)]
    del pieces
    wait(client, reads + kernels, progress)
    got = client.gather(metas)
    return [m[0] for m in got], [m[1] for m in got], client.gather(kernels)


def assemble(tables: list[pa.Table], keys: list[str], names: list[str], topics: list[str], levels: pd.DataFrame,
             ms, options: EvalOptions) -> EvalResult:
    """The global steps over the kernel's per-query tables, whose `run` is a key of `keys` (one per run, in
    order, named `names`): missing topics and their warnings, -c (a missing topic evaluated with nothing
    retrieved, by the same evaluate_rankings), the summary and the EvalResult, laid out as evaluate_files does
    (run by run in the order given; measure by measure; topics sorted)."""
    numeric = [m for m in ms if m.family.agg != "text"]
    parts = [t for t in tables if t.num_rows]
    long = pa.concat_tables(parts).to_pandas() if parts else pd.DataFrame(
        {"run": [], "qid": [], "measure": [], "value": [], "text": []})
    have = long.groupby("run", sort=False)["qid"].agg(set).to_dict() if len(long) else {}
    missing = {k: [q for q in topics if q not in have.get(k, set())] for k in keys}
    missing = {k: v for k, v in missing.items() if v}
    if options.complete and missing:
        groups = pd.DataFrame({"run": [k for k, v in missing.items() for _ in v],
                               "qid": [q for v in missing.values() for q in v]}, dtype=object)
        zero = Rankings.empty(levels, list(missing), topics, groups)
        from core.distributed.kernel import long_table
        extra = long_table(evaluate_rankings(zero, ms, replace(options, complete=False))).to_pandas()
        long = pd.concat([long, extra], ignore_index=True)
    run_pos = {k: i for i, k in enumerate(keys)}
    m_pos = {m.name: i for i, m in enumerate(ms)}
    q_pos = {q: i for i, q in enumerate(topics)}
    r = long["run"].map(run_pos).to_numpy(np.int64)
    order = np.lexsort((long["qid"].map(q_pos).to_numpy(np.int64), long["measure"].map(m_pos).to_numpy(np.int64), r))
    long = long.iloc[order].reset_index(drop=True)
    long["run"] = np.asarray(names, dtype=object)[r[order]]
    is_text = long["text"].notna().to_numpy()
    per_query = long.loc[~is_text, ["run", "qid", "measure", "value"]].reset_index(drop=True)
    text = long.loc[is_text, ["run", "qid", "measure", "text"]].reset_index(drop=True)
    per_query, text = (f.astype({c: str for c in f.columns if c != "value"}) for f in (per_query, text))
    return _result(per_query, text, keys, names, missing, numeric, ms, options)


def _result(per_query, text, keys, names, missing, numeric, ms, options) -> EvalResult:
    """The summary (summarise, per measure, over values in the local engine's order) and the EvalResult."""
    first = per_query[per_query["measure"] == numeric[0].name] if numeric else text[text["measure"] == ms[0].name]
    num_q = first.groupby("run", sort=False).size().to_dict()
    summary = summarise_long(per_query, numeric)
    if len(summary):          # summarise lists runs by name, measure by measure: lay it out run by run
        rank = {n: i for i, n in enumerate(names)}
        m_pos = {m.name: i for i, m in enumerate(numeric)}
        key = summary["run"].map(rank).to_numpy(np.int64) * len(numeric) + summary["measure"].map(m_pos).to_numpy()
        summary = summary.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)
    warnings = []
    for k, run in zip(keys, names):
        if missing.get(k) and not options.complete:
            warnings.append(skipped(run, missing[k]))
        if run not in num_q:
            warnings.append(no_topic(run))
    by_key = dict(zip(keys, names))
    return EvalResult(per_query, summary, {by_key[k]: v for k, v in missing.items()}, warnings, text,
                      {n: int(num_q[n]) for n in names if n in num_q}, list(ms), [n for n in names if n in num_q])
