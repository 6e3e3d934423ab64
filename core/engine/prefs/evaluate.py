"""Evaluation against preference judgments: trec_eval -R prefs (a prefs file, `qid jg jsg docno rel_level`) and
-R qrels_prefs (a qrels file read as preferences: column 2 is the judgment group, one subgroup per group).

    evaluate_prefs_files("prefs.test", ["run.txt"], ["all_prefs"])              # -R prefs
    evaluate_prefs_files("qrels.txt", ["run.txt"], ["prefs"], kind="qrels_prefs")

Topics are those of the judgments that the run retrieved for (all judgment topics with -c, a missing one with
nothing retrieved); -M cuts each ranking. trec_eval ranks for these measures by score descending and breaks ties
by docno *ascending* (form_prefs_counts.c comp_sim_docno), unlike its other measures: stage 1's order with
ties="asc" (core.engine.stage1.order).
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.errors import EvalError
from core.measures import EvalOptions
from core.measures.prefs import PREFS_FAMILIES
from core.engine.prefs.counts import prefs_values
from core.engine.prefs.graph import build
from core.engine.stage1.order import canonical_ranks, topic_codes
from core.engine.finish import no_topic, skipped, summarise, summarise_long
from core.engine.kinds import Kind, read_runs, register
from core.engine.types import EvalResult

def read_prefs_kind(path, kind: str = "prefs") -> pa.Table:
    """A prefs file (kind "prefs") or a qrels file read as one (kind "qrels_prefs") -> qid, jg, jsg, docno, rel."""
    from core.formats import read_qrels
    from core.formats.prefs import prefs_from_qrels, read_prefs

    if kind not in ("prefs", "qrels_prefs"):
        raise EvalError(f"Unknown preference format {kind!r}. Use 'prefs' or 'qrels_prefs'.")
    name = Path(str(path)).name
    if kind == "prefs":
        return read_prefs(path, filename=name).table
    return prefs_from_qrels(read_qrels(path, filename=name, judgment_groups=True))


def evaluate_prefs_files(prefs_path, run_paths, measures, options: EvalOptions = EvalOptions(),
                         kind: str = "prefs") -> EvalResult:
    """trec_eval -R prefs / -R qrels_prefs on run files; the measures are prefs_* (or all_prefs / prefs)."""
    ms = KINDS[0].measures(measures, options)
    prefs = read_prefs_kind(prefs_path, kind)
    run, names, warnings = read_runs(run_paths, options)
    return evaluate_prefs(prefs, run, ms, options, warnings, checked=True, runs=names)


def evaluate_prefs(prefs, run: pd.DataFrame, measures, options: EvalOptions = EvalOptions(),
                   warnings=(), checked: bool = False, runs: list[str] | None = None) -> EvalResult:
    """`prefs`: qid, jg, jsg, docno, rel (DataFrame or Arrow; one line per document per (topic, jg, jsg));
    `run`: run, qid, docno, score. `checked`: the readers already refused a document twice in a subgroup."""
    ms = KINDS[0].measures(measures, options)
    prefs = _prefs_table(prefs, checked)
    judged_topics = sorted(set(prefs["qid"].to_pylist()))
    runs = list(runs) if runs is not None else run["run"].drop_duplicates().tolist()
    per_query, missing, notes, num_q, done = [], {}, list(warnings), {}, []
    for name in runs:
        part = run[run["run"] == name]
        have = set(part["qid"].unique().tolist())
        miss = [q for q in judged_topics if q not in have]
        topics = judged_topics if options.complete else [q for q in judged_topics if q in have]
        if miss:
            missing[name] = miss
            if not options.complete:
                notes.append(skipped(name, miss, "judged topic(s)", "count them with nothing retrieved"))
        if not topics:
            notes.append(no_topic(name, "the preference judgments"))
            continue
        mine = prefs.filter(pc.is_in(prefs["qid"], value_set=pa.array(topics, pa.string())))
        values = prefs_values(build(mine, prefs_ranks(part, options.max_depth), topics))
        per_query.append(pd.DataFrame({"run": name, "qid": np.tile(np.array(topics, object), len(ms)),
                                       "measure": np.repeat([m.name for m in ms], len(topics)),
                                       "value": np.concatenate([values[m.family.name] for m in ms])}))
        num_q[name] = len(topics)
        done.append(name)
    pq = pd.concat(per_query, ignore_index=True) if per_query else pd.DataFrame(
        {"run": [], "qid": [], "measure": [], "value": []})
    summary = summarise_long(pq, ms) if len(pq) else summarise([], [], [])
    text = pd.DataFrame({"run": [], "qid": [], "measure": [], "text": []})
    return EvalResult(pq, summary, missing, notes, text, num_q, ms, done)


def prefs_ranks(run: pd.DataFrame, max_depth: int | None = None) -> pa.Table:
    """qid, docno, rank (1-based) of a run's documents in trec_eval's prefs order: score descending, ties by
    docno ascending (the reverse of the usual tie order), cut at `max_depth` (-M)."""
    if run.duplicated(["qid", "docno"]).any():
        q, d = run.loc[run.duplicated(["qid", "docno"]), ["qid", "docno"]].iloc[0]
        raise EvalError(f"Topic {q!r}: document {d!r} is retrieved twice. trec_eval refuses duplicate documents; "
                        f"remove one of the lines.")
    qid = pa.array(run["qid"].to_numpy(object), pa.string())
    docno = pa.array(run["docno"].to_numpy(object), pa.string())
    rank = canonical_ranks(topic_codes(qid)[0], run["score"].to_numpy(np.float64), docno, ties="asc")
    keep = rank <= max_depth if max_depth else np.ones(len(rank), bool)
    return pa.table({"qid": qid.filter(pa.array(keep)), "docno": docno.filter(pa.array(keep)),
                     "rank": pa.array(rank[keep], pa.int64())})


def _prefs_table(prefs, checked: bool = False) -> pa.Table:
    if isinstance(prefs, pd.DataFrame):
        prefs = pa.Table.from_pandas(prefs, preserve_index=False)
    cols = {"qid": pa.string(), "jg": pa.string(), "jsg": pa.string(), "docno": pa.string(), "rel": pa.float64()}
    missing = [c for c in cols if c not in prefs.column_names]
    if missing:
        raise EvalError(f"The preference judgments lack column(s) {', '.join(missing)}. Give qid, jg, jsg, docno, "
                        f"rel (trec_eval's prefs format).")
    table = pa.table({c: pc.cast(prefs[c], t) for c, t in cols.items()})
    if checked:
        return table
    keys = table.group_by(["qid", "jg", "jsg", "docno"], use_threads=False).aggregate([])
    if keys.num_rows != table.num_rows:
        raise EvalError("A document appears twice in one (topic, jg, jsg) of the preference judgments. Give it one "
                        "rel_level per subgroup.")
    return table


KINDS = tuple(register(Kind(name, partial(evaluate_prefs_files, kind=name), frozenset(PREFS_FAMILIES),
                            "-R prefs and -R qrels_prefs compute the preference measures only (prefs_*; -m all_prefs "
                            "for all 14)", default=("all_prefs",))) for name in ("prefs", "qrels_prefs"))
