"""The global steps of an evaluation, written once for every engine (stage 2, the Dask driver, stored runs, the
preference and judgment-group kinds): the names of runs read from files, the qrels topics each run lacks and the
warnings that say so, and trec_eval's "all" line (`summarise`, `summarise_long` from a long per-query table)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["run_names", "missing_topics", "skipped", "no_topic", "summarise", "summarise_long", "sorted_codes",
           "MIN_GEO_MEAN"]

MIN_GEO_MEAN = 1e-5      # trec_eval's floor for the geometric mean (gm_map)
SHOWN = 20                # topics named in a warning, then "...and N more"


def run_names(tags, paths) -> list[str]:
    """Runs read from files are named by their tag (the last line's, as trec_eval's runid), else the file name; a
    name already taken gets ' (file name)' added."""
    names, seen = [], set()
    for tag, path in zip(tags, paths):
        name = tag or Path(str(path)).name
        if name in seen:
            name = f"{name} ({Path(str(path)).name})"
        seen.add(name)
        names.append(name)
    return names


def missing_topics(groups: pd.DataFrame, runs, topics) -> dict[str, list[str]]:
    """run -> the topics of `topics` (sorted) that it has no ranking for, for each run of `runs` that lacks some;
    `groups` (run, qid) are the rankings there are."""
    at = groups.groupby("run", sort=False).indices if len(groups) else {}
    qids, topics = groups["qid"].to_numpy(dtype=object), pd.Index(list(topics), dtype=object)
    missing = {}
    for r in runs:                  # a hash lookup per topic (np.isin on strings compares every pair)
        miss = topics[~topics.isin(qids[at[r]])].tolist() if r in at else topics.tolist()
        if miss:
            missing[r] = miss
    return missing


def skipped(run: str, topics: list[str], noun: str = "qrels topic(s)", fix: str = "count them as zero") -> str:
    """The warning for topics a run lacks that were skipped (without -c)."""
    shown = ", ".join(topics[:SHOWN]) + (f" ...and {len(topics) - SHOWN} more" if len(topics) > SHOWN else "")
    return f"{run}: {len(topics)} {noun} not in the run were skipped (use -c to {fix}): {shown}"


def no_topic(run: str, judgments: str = "the qrels") -> str:
    """The warning for a run that shares no topic with the judgments."""
    return f"{run}: no topic in common with {judgments}; nothing to evaluate."


def sorted_codes(values) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True) for a long column with few distinct values (run names): a hash
    factorisation, then a sort of the distinct values only. np.unique sorts every value (0.4 s for 1.5M
    Python strings); tests/engine/test_stage2_summary.py compares the two."""
    codes, uniq = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=False)
    names, remap = np.unique(np.asarray(uniq, dtype=object), return_inverse=True)
    return names, remap[codes]


def summarise(run_col, ms, vals) -> pd.DataFrame:
    """trec_eval's "all": mean over evaluated topics; sums for counts; geometric mean (floored) for gm_*."""
    names, ridx = sorted_codes(run_col) if len(run_col) else (np.array([], object), np.zeros(0, int))
    n = np.bincount(ridx, minlength=len(names)).astype(np.float64)
    rows = []
    for m, v in zip(ms, vals):
        if m.family.agg == "sum":
            s = np.bincount(ridx, weights=v, minlength=len(names))
        elif m.family.agg == "gm":
            s = np.exp(np.bincount(ridx, weights=np.log(np.maximum(v, MIN_GEO_MEAN)), minlength=len(names)) / n)
        else:
            s = np.bincount(ridx, weights=v, minlength=len(names)) / n
        rows.append(pd.DataFrame({"run": names, "measure": m.name, "value": s}))
    if not rows:
        return pd.DataFrame({"run": [], "measure": [], "value": []})
    return pd.concat(rows, ignore_index=True)




def summarise_long(per_query: pd.DataFrame, ms) -> pd.DataFrame:
    """`summarise` of a long per-query table (run, qid, measure, value) in which every numeric measure of `ms` has
    the same (run, qid) rows in the same order: each measure's values in the table's order (the order of the sums),
    the runs read from the first measure's rows."""
    blocks = [per_query[per_query["measure"] == m.name] for m in ms]
    run_col = blocks[0]["run"].to_numpy(object) if blocks else np.zeros(0, object)
    return summarise(run_col, ms, [b["value"].to_numpy(np.float64) for b in blocks])
