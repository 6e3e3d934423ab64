"""The fusing step of `python -m core fuse` and of stored runs (core.service.fusion): the runs fused, or tuned by
cross-validation (tune.py), with the judgments a learning method trained on named in the provenance."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from core.fusion.fuse import Fused, fuse

__all__ = ["fuse_or_tune"]


def fuse_or_tune(runs: list[pd.DataFrame], method: str, qrels: pd.DataFrame | None = None, *,
                 qrels_name: str = "qrels", tune: bool = False, measure: str = "nDCG@10", folds: int = 5,
                 seed: int = 0, step: float = 0.1, norm: str | None = None, params: dict | None = None,
                 weights=None, depth: int | None = 1000, names: list[str] | None = None) -> tuple[Fused, str | None]:
    """(the fused run, tune's report or None). With `tune`, the parameters are chosen by cross-validation over the
    topics of `qrels` (core.fusion.tune.tune); else the runs are fused (core.fusion.fuse) and `qrels`, when given,
    are the topics a learning method learns from, named `qrels_name` under "train" in the provenance."""
    if tune:
        from core.fusion.tune import tune as tuned
        tuning = tuned(runs, method, qrels, measure=measure, norm=norm, params=params, weights=weights, depth=depth,
                       folds=folds, seed=seed, step=step, names=names, qrels_name=qrels_name)
        return tuning.run, tuning.report()
    fused = fuse(runs, method, norm=norm, params=params, weights=weights, depth=depth, names=names, qrels=qrels)
    if qrels is not None:
        fused = replace(fused, provenance={**fused.provenance, "train": {"qrels": qrels_name}})
    return fused, None
