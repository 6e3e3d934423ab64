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

from core.engine.relevance import evaluate_frames
from core.errors import EvalError
from core.fusion.fuse import Fused, check_weights, frame, prepare, provenance, scores
from core.fusion.registry import Method, method_named, norm_named, weight_grid
from core.fusion.votes import votes

__all__ = ["Fold", "Tuning", "tune", "configurations"]

BATCH_ROWS = 4_000_000         # fused rows evaluated at a time


@dataclass(frozen=True)
class Fold:
    topics: tuple[str, ...]
    params: dict
    train: float               # mean of the measure over the other folds' topics, with `params`
    held_out: float            # mean over this fold's topics, with `params`


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
        lines = [f"{self.method}: {self.configurations} configurations, {len(self.folds)}-fold cross-validation "
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


def _split(topics: np.ndarray, folds: int, seed: int) -> list[np.ndarray]:
    if not 2 <= folds <= len(topics):
        raise EvalError(f"--folds {folds}: cross-validation needs 2 to {len(topics)} folds here (one topic at "
                        f"least per fold; {len(topics)} topics have judgments). Give --folds between 2 and "
                        f"{len(topics)}." if len(topics) >= 2 else
                        f"only {len(topics)} topic of the runs has judgments in the qrels; cross-validation needs "
                        f"two or more. Check that the qrels are for these runs.")
    return [np.sort(f) for f in np.array_split(np.random.default_rng(seed).permutation(len(topics)), folds)]


def _best(matrix: np.ndarray, columns: np.ndarray) -> int:
    means = matrix[:, columns].mean(axis=1)
    return int(len(means) - 1 - np.argmax(means[::-1]))          # the last of the best, as optimize_fusion


def tune(runs: list[pd.DataFrame], method: str, qrels: pd.DataFrame, *, measure: str = "nDCG@10",
         norm: str | None = None, params: dict | None = None, weights=None, depth: int | None = 1000,
         folds: int = 5, seed: int = 0, step: float = 0.1, names: list[str] | None = None,
         qrels_name: str = "qrels") -> Tuning:
    m = method_named(method)
    configs = configurations(m, len(runs), params or {}, weights, step)
    base = votes(prepare(runs, norm, m), np.full(len(runs), 1.0 / max(len(runs), 1)))

    def fused(i: int) -> pd.DataFrame:
        values = {k: v for k, v in configs[i].items() if k != "weights"}
        v = replace(base, weights=np.asarray(configs[i]["weights"])) if "weights" in configs[i] else base
        return frame(v, scores(v, m, values), depth)

    matrix, topics = _matrix(configs, fused, qrels, measure)
    parts = _split(topics, folds, seed)
    chosen = [_best(matrix, np.setdiff1d(np.arange(len(topics)), part)) for part in parts]
    overall = _best(matrix, np.arange(len(topics)))
    fold_rows = tuple(Fold(tuple(topics[p]), configs[c], float(matrix[c, np.setdiff1d(np.arange(len(topics)), p)]
                                                                      .mean()), float(matrix[c, p].mean()))
                      for p, c in zip(parts, chosen))
    held = np.concatenate([matrix[c, p] for p, c in zip(parts, chosen)])
    table = _assemble(fused, parts, chosen, topics, overall)
    prov = provenance(m, norm_named(norm or m.default_norm).name, {}, None, names or [])
    runs_list = prov.pop("runs")
    prov["tune"] = {"qrels": qrels_name, "measure": measure, "folds": folds, "seed": seed}
    prov["fold_params"] = {str(i): f.params for i, f in enumerate(fold_rows, 1)}
    prov["runs"] = runs_list
    return Tuning(m.name, measure, fold_rows, configs[overall], float(matrix[overall].mean()), float(held.mean()),
                  len(configs), Fused(table, prov))


def _matrix(configs, fused, qrels: pd.DataFrame, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """(per-topic scores, configuration x topic; the scored topics, sorted)."""
    values, batch, rows = [], [], 0

    def flush():
        if batch:
            run = pd.concat(batch)
            values.append(evaluate_frames(qrels, run, [measure]).per_query[["run", "qid", "value"]])
            batch.clear()

    for i in range(len(configs)):
        batch.append(fused(i)[["qid", "docno", "score"]].assign(run=str(i)))
        rows += len(batch[-1])
        if rows >= BATCH_ROWS:
            flush()
            rows = 0
    flush()
    per = pd.concat(values).pivot(index="run", columns="qid", values="value")
    per.index = per.index.astype(int)
    per = per.sort_index().sort_index(axis=1)
    if per.shape[1] == 0:
        raise EvalError("no topic of the runs has judgments in the qrels. Check that the qrels are for these runs.")
    return per.to_numpy(float), per.columns.to_numpy(object)


def _assemble(fused, parts, chosen, topics, overall: int) -> pd.DataFrame:
    """Each fold's topics from the run fused with that fold's parameters; the unscored topics from `overall`."""
    runs = {c: fused(c) for c in {*chosen, overall}}
    pieces = [runs[c][runs[c]["qid"].isin(set(topics[p]))] for p, c in zip(parts, chosen)]
    rest = runs[overall]
    pieces.append(rest[~rest["qid"].isin(set(topics))])
    table = pd.concat(pieces, ignore_index=True)
    return table.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
