"""A fused run beside its parts: the parts evaluated from the store (through its results cache), the fused run
evaluated from its table under the same qrels set, and every run compared with the best part (core.stats.compare,
a paired test per measure).

    report = fusion_report(store, "robust03", fuse_stored(...), ["AP", "nDCG@10"], name="rrf-fused")
    report.best, report.comparison, report.topic_deltas()
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.engine.relevance import evaluate_frames
from core.errors import EvalError
from core.measures import parse_measures
from core.service.evaluate import evaluate_stored, stored_ids
from core.stats.compare import Comparison, compare

__all__ = ["FusionReport", "fusion_report", "fused_label"]


@dataclass(frozen=True)
class FusionReport:
    fused: str                  # the fused run's label in the tables
    best: str                   # the part with the highest mean of the first measure (the baseline)
    parts: tuple[str, ...]
    measures: tuple[str, ...]
    summary: pd.DataFrame       # run, measure, value (fused run first, then the parts)
    per_query: pd.DataFrame     # run, qid, measure, value
    comparison: Comparison      # every run against `best`
    warnings: tuple[str, ...]

    def topic_deltas(self, measure: str | None = None) -> pd.DataFrame:
        """Per topic of the best part: qid, fused, best, delta (fused - best), sorted by delta descending; a
        topic the fused run lacks counts 0 for it."""
        measure = measure or self.measures[0]
        rows = self.per_query[self.per_query["measure"] == measure]
        wide = rows.pivot_table(index="qid", columns="run", values="value", aggfunc="first")
        best = wide[self.best].dropna()
        fused = wide.get(self.fused, pd.Series(dtype=float)).reindex(best.index).fillna(0.0)
        out = pd.DataFrame({"qid": best.index.astype(str), "fused": fused.to_numpy(float),
                            "best": best.to_numpy(float)})
        out["delta"] = out["fused"] - out["best"]
        return out.sort_values(["delta", "qid"], ascending=[False, True], kind="stable").reset_index(drop=True)


def fused_label(name: str, parts) -> str:
    """The fused run's label: its name, with " (fused)" when a part has that name."""
    return f"{name} (fused)" if name in set(parts) else name


def fusion_report(store, collection, stored, measures, *, name: str, qrels_id: int | None = None,
                  test: str = "t", correction: str = "holm", alpha: float = 0.05) -> FusionReport:
    """Evaluate `stored` (a core.service.fusion.StoredFusion) and its parts on `measures`, and compare every run
    with the best part (the highest mean of the first measure) with the paired `test`."""
    ms = [m.name for m in parse_measures(list(measures))]
    if not ms:
        raise EvalError("No measures to compare. Pick at least one measure.")
    _ids, qrels_id, _known = stored_ids(store, collection, list(stored.run_ids), qrels_id)
    parts = evaluate_stored(store, collection, list(stored.run_ids), ms, qrels_id=qrels_id)
    label = fused_label(name, stored.runs)
    run = stored.fused.table[["qid", "docno", "score"]].assign(run=label)
    own = evaluate_frames(store.qrels(int(qrels_id)), run, ms)
    summary = pd.concat([own.summary, parts.summary], ignore_index=True)
    per_query = pd.concat([own.per_query, parts.per_query], ignore_index=True)
    first = summary[(summary["measure"] == ms[0]) & summary["run"].isin(stored.runs)]
    means = first.set_index("run")["value"].reindex(list(stored.runs)).to_numpy(float)
    best = stored.runs[int(np.nanargmax(means))] if np.isfinite(means).any() else stored.runs[0]
    comparison = compare(per_query, baseline=best, measures=ms, test=test, correction=correction, alpha=alpha,
                         intervals=False)
    return FusionReport(label, best, tuple(stored.runs), tuple(ms), summary, per_query, comparison,
                        tuple(own.warnings) + tuple(parts.warnings) + _in_sample(stored, label, qrels_id))


def _in_sample(stored, label: str, qrels_id: int) -> tuple[str, ...]:
    """A warning when the fused run learned from the very judgments it is scored on (a learning method trained on
    them, not tuned by cross-validation): its scores and its tests against the parts are optimistic."""
    if "train" not in stored.fused.provenance or stored.qrels_id != int(qrels_id):
        return ()
    return (f"{label} learned from the judged topics it is scored on here, so its scores and its tests against the "
            "parts are optimistic. Tune it by cross-validation for scores on topics it did not learn from.",)
