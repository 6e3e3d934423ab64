"""Evaluation against a qrels_jg file (trec_eval -R qrels_jg): every (topic, judgment group) is evaluated as a
ranking of its own, then each topic's values are averaged over its groups (trec_eval's *_avgjg measures).

The run is repeated once per judgment group of each topic (a join on the topic), so the plain engine computes every
(topic, group) in one vectorised pass; only the averaging happens here.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from core.engine.finish import summarise
from core.engine.kinds import Kind, read_runs, register
from core.engine.relevance import evaluate_frames
from core.engine.types import EvalResult
from core.measures import EvalOptions, parse_measures

SEP = "\x1f"          # between topic and group in the expanded topic id (never in a parsed id: ids have no controls)
JG_FAMILIES = ("P_avgjg", "map_avgjg", "Rprec_mult_avgjg")


def evaluate_jg_files(qrels_path, run_paths, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """trec_eval -R qrels_jg: `qrels_path` is `qid jg docno rel`; the measures are the *_avgjg families."""
    from core.formats import read_qrels

    ms = KIND.measures(measures, options)
    parsed = read_qrels(qrels_path, filename=Path(str(qrels_path)).name, judgment_groups=True)
    groups = parsed.groups if parsed.groups is not None else pa.array(["0"] * parsed.n_rows)
    qrels = pd.DataFrame({"qid": parsed.table["qid"].to_pandas(), "jg": groups.to_pandas(),
                          "docno": parsed.table["docno"].to_pandas(), "rel": parsed.table["rel"].to_pandas()})
    run, _, warnings = read_runs(run_paths, options)
    return evaluate_jg(qrels, run, ms, options, list(parsed.warnings) + warnings)


def evaluate_jg(qrels: pd.DataFrame, run: pd.DataFrame, measures, options: EvalOptions = EvalOptions(),
                warnings=()) -> EvalResult:
    """qrels: qid, jg, docno, rel; run: run, qid, docno, score."""
    ms = parse_measures(measures, compat=options.compat)
    pairs = qrels[["qid", "jg"]].drop_duplicates()
    expanded_qrels = qrels.assign(qid=qrels["qid"] + SEP + qrels["jg"])[["qid", "docno", "rel"]]
    expanded_run = run.merge(pairs, on="qid").assign(qid=lambda d: d["qid"] + SEP + d["jg"])
    if expanded_run.empty:        # keep the runs' names when no topic is shared
        expanded_run = run.iloc[:0]
    result = evaluate_frames(expanded_qrels, expanded_run[["run", "qid", "docno", "score"]], ms, options)
    pq = result.per_query
    pq = pq.assign(qid=pq["qid"].str.split(SEP, n=1).str[0])
    per_query = pq.groupby(["run", "qid", "measure"], sort=True, as_index=False)["value"].mean()
    wide = per_query.pivot_table(index=["run", "qid"], columns="measure", values="value").reset_index()
    summary = summarise(wide["run"].to_numpy(object), ms, [wide[m.name].to_numpy() for m in ms]) if len(wide) else \
        pd.DataFrame({"run": [], "measure": [], "value": []})
    missing = {r: sorted({q.split(SEP, 1)[0] for q in qs}) for r, qs in result.missing_topics.items()}
    notes = [w.replace(SEP, "/") for w in result.warnings]
    per_query["measure"] = pd.Categorical(per_query["measure"], categories=[m.name for m in ms])
    per_query = per_query.sort_values(["run", "measure", "qid"]).astype({"measure": object}).reset_index(drop=True)
    return EvalResult(per_query, summary, missing, list(warnings) + notes, result.text.iloc[:0],
                      wide.groupby("run").size().to_dict(), ms, [r for r in result.runs])


KIND = register(Kind("qrels_jg", evaluate_jg_files, frozenset(JG_FAMILIES),
                     f"-R qrels_jg computes the judgment-group measures only ({', '.join(JG_FAMILIES)}; -m qrels_jg for "
                     f"all of them)", default=("qrels_jg",)))
