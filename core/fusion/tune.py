"""Tuning a fusion method's parameters by k-fold cross-validation over topics, so that no topic is scored with
parameters tuned on it.

    tuning = tune(runs, "wsum", qrels, measure="nDCG@10", folds=5, seed=0)
    tuning.folds        # per fold: its topics, the parameters tuned on the other folds, train and held-out means
    tuning.run          # the fused run, each fold's topics fused with that fold's parameters
    tuning.overall      # the parameters tuned on all topics, for later use

The grid is ranx's optimize_fusion grid (registry.Param.grid; weights on a grid of `step` that sum to 1); a
parameter given by the caller is kept fixed. The unsupervised methods fuse each topic on its own, so every
configuration is fused and evaluated once over all topics, giving a matrix of per-topic scores (configuration x
topic); each fold's parameters are the configuration with the best mean over the other folds' topics (a tie goes
to the later configuration, as in optimize_fusion). Topics are shuffled with `seed` and split into `folds` nearly
equal parts. Only topics with judgments are tuned and scored; a topic the qrels lack is fused with `overall`.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core.fusion import folds as cv
from core.fusion.folds import Fold
from core.fusion.fuse import Fused, check_weights, frame, prepare, provenance, scores
from core.fusion.registry import Method, method_named, weight_grid
from core.fusion.votes import votes

__all__ = ["Fold", "Tuning", "tune", "configurations"]

@dataclass(frozen=True)
class Tuning:
    method: str
    measure: str
    folds: tuple[Fold, ...]
    overall: dict              # tuned on all topics
    overall_score: float
    held_out: float            # mean over every scored topic of its held-out value (the run's score)
    configurations: int
    run: Fused

    def report(self) -> str:
        width = max(len("fold"), len(str(len(self.folds))))
        plural = "s" if self.configurations != 1 else ""
        lines = [f"{self.method}: {self.configurations} configuration{plural}, {len(self.folds)}-fold cross-validation "
                 f"over topics, maximising {self.measure}",
                 f"{'fold':>{width}}  topics  {'train':>7}  {'held-out':>8}  parameters"]
        for i, f in enumerate(self.folds, 1):
            lines.append(f"{i:>{width}}  {len(f.topics):>6}  {f.train:7.4f}  {f.held_out:8.4f}  {_text(f.params)}")
        lines.append(f"held-out {self.measure} of the fused run: {self.held_out:.4f} "
                     f"(mean of the folds: {np.mean([f.held_out for f in self.folds]):.4f})")
        lines.append(f"tuned on all topics: {_text(self.overall)} ({self.measure} {self.overall_score:.4f} on "
                     f"the topics it was tuned on)")
        return "\n".join(lines)


def _text(params: dict) -> str:
    return " ".join(f"{k}={','.join(f'{x:g}' for x in v) if isinstance(v, list) else f'{v:g}'}"
                    for k, v in params.items()) or "(none)"


def configurations(method: Method, n_runs: int, params: dict, weights, step: float) -> list[dict]:
    """Every parameter setting to try: the product of the grids of the parameters not given, and the weight grid
    when the method is weighted and no weights were given, in ranx's order."""
    fixed = {p.name: p.coerce(method.name, params[p.name]) for p in method.params if p.name in params}
    for name in params:
        method.param(name)
    axes = [[(p.name, v) for v in p.grid] for p in method.params if p.name not in fixed]
    if method.weighted:
        grid = [list(map(float, w)) for w in (weight_grid(n_runs, step) if weights is None
                                              else [check_weights(method, weights, n_runs)])]
        axes.append([("weights", w) for w in grid])
    return [{**fixed, **dict(combo)} for combo in itertools.product(*axes)]


def tune(runs: list[pd.DataFrame], method: str, qrels: pd.DataFrame, *, measure: str = "nDCG@10",
         norm: str | None = None, params: dict | None = None, weights=None, depth: int | None = 1000,
         folds: int = 5, seed: int = 0, step: float = 0.1, names: list[str] | None = None,
         qrels_name: str = "qrels") -> Tuning:
    m = method_named(method)
    configs = configurations(m, len(runs), params or {}, weights, step)
    s, n = prepare(runs, norm, m)
    base = votes(s, np.full(len(runs), 1.0 / max(len(runs), 1)))

    def fused(i: int, model=None) -> pd.DataFrame:
        values = {k: v for k, v in configs[i].items() if k != "weights"}
        v = replace(base, weights=np.asarray(configs[i]["weights"])) if "weights" in configs[i] else base
        return frame(v, scores(v, m, values, model), depth)

    if m.train is None:
        fold_rows, overall, overall_score, held, table = _unsupervised(configs, fused, qrels, measure, folds, seed)
    else:
        from core.fusion.tune_learned import learned
        fold_rows, overall, overall_score, held, table = learned(m, s, configs, fused, qrels, measure, folds, seed)
    prov = provenance(m, n.name, {}, None, names or [],
                      tune={"qrels": qrels_name, "measure": measure, "folds": folds, "seed": seed},
                      fold_params={str(i): f.params for i, f in enumerate(fold_rows, 1)})
    return Tuning(m.name, measure, fold_rows, configs[overall], overall_score, float(np.mean(held)), len(configs),
                  Fused(table, prov))


def _unsupervised(configs, fused, qrels, measure, folds, seed):
    """Every configuration fused and scored once over all topics; each fold picks from the others' columns."""
    matrix, topics = cv.matrix(configs, fused, qrels, measure)
    parts = cv.split(topics, folds, seed)
    everything = np.arange(len(topics))
    chosen = [cv.best(matrix, np.setdiff1d(everything, part)) for part in parts]
    overall = cv.best(matrix, everything)
    fold_rows = tuple(Fold(tuple(topics[p]), configs[c], float(matrix[c, np.setdiff1d(everything, p)].mean()),
                           float(matrix[c, p].mean())) for p, c in zip(parts, chosen))
    held = np.concatenate([matrix[c, p] for p, c in zip(parts, chosen)])
    runs = {c: fused(c) for c in {*chosen, overall}}
    table = cv.assemble([runs[c] for c in chosen], parts, topics, runs[overall])
    return fold_rows, overall, float(matrix[overall].mean()), held, table
