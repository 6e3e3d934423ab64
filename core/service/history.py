"""A system's stored runs over its versions: the runs' lineage (Store.lineage: system, version, timestamp, in version
order) picks and orders the runs, evaluate_stored scores them, core.stats.history tests each step."""
from __future__ import annotations

import pandas as pd

from core.errors import EvalError
from core.measures import EvalOptions, parse_measures
from core.service.evaluate import evaluate_stored
from core.service.imported import sources
from core.stats.history import History, history, moved_topics


def systems_of(lineage: pd.DataFrame) -> list[str]:
    """The systems named by a collection's runs (Store.lineage), in its order."""
    named = lineage["system"].dropna().astype(str)
    return list(dict.fromkeys(named[named != ""]))


def lines_of(lineage: pd.DataFrame, systems) -> dict[str, list[tuple[str, str]]]:
    """system -> its (version, run name) in the lineage's version order (timestamp, then the version's natural
    order); a run without a version is labelled by its name."""
    out = {}
    for system in systems:
        rows = lineage[lineage["system"].astype(object) == system]
        if rows.empty:
            raise EvalError(f"No run of system {system!r} in this collection. Give runs a system when loading them "
                            "(load --system NAME --version V).")
        out[system] = [(str(v) if v is not None and str(v) != "" else str(r), str(r))
                       for v, r in zip(rows["version"].astype(object), rows["run"])]
    return out


def history_stored(store, collection, systems, measure: str, *, test: str = "t", correction: str = "none",
                   alpha: float = 0.05, qrels_id=None, options: EvalOptions = EvalOptions()):
    """(History of the systems' versions on one measure, the per-query table it was computed from). A measure
    imported into the collection (load --scores) is taken by its stored name, as loaded."""
    imported = sources(store, collection)
    name = measure if measure in imported else parse_measures([measure], compat=options.compat)[0].name
    lineage = store.lineage(collection)
    lines = lines_of(lineage, list(dict.fromkeys(systems)))
    if not lines:
        raise EvalError("No system chosen. Pick at least one system.")
    ids = dict(zip(lineage["run"].astype(str), lineage["run_id"].astype(int)))
    runs = [ids[r] for line in lines.values() for _, r in line]
    result = evaluate_stored(store, collection, runs, [name], qrels_id, options)
    return history(result.per_query, lines, name, test=test, correction=correction, alpha=alpha), result.per_query


def step_topics(per_query: pd.DataFrame, result: History, system: str, after: str) -> pd.DataFrame:
    """The topics that moved most in the step into run `after` of `system` (core.stats.history.moved_topics)."""
    step = result.step_into(system, after)
    if step is None:
        raise EvalError(f"{after!r} is the first version of {system!r}: there is no step into it.")
    return moved_topics(per_query, step.before, step.after, result.measure)


__all__ = ["history_stored", "systems_of", "lines_of", "step_topics"]
