"""Cross-validation of the methods that learn from judged topics (posfuse, probfuse, segfuse, slidefuse, bayesfuse,
mapfuse): for each fold, every configuration learns from the other folds' topics only and is scored on them, as
ranx's optimize_fusion scores them on its training qrels; the best is applied to the fold's topics, which it has
neither learned from nor been chosen on."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.engine.relevance import evaluate_frames
from core.fusion.registry import Method
from core.fusion.stack import Stack
from core.fusion import folds as cv
from core.fusion.folds import Fold

__all__ = ["learned"]


def _models(method: Method, s: Stack, configs: list[dict], qrels: pd.DataFrame) -> list:
    """What each configuration learns from `qrels`, learned once per setting of the parameters training reads."""
    cache = {}
    out = []
    for config in configs:
        key = tuple(config.get(p) for p in method.learns_with)
        if key not in cache:
            cache[key] = method.train(s, qrels, **{k: v for k, v in config.items() if k != "weights"})
        out.append(cache[key])
    return out


def _fit(method, s, configs, fused, qrels, measure) -> tuple[int, float, pd.DataFrame]:
    """(best configuration, its mean over the topics of `qrels`, the run it fuses) when learning from `qrels`."""
    models = _models(method, s, configs, qrels)
    matrix, _ = cv.matrix(configs, lambda i: fused(i, models[i]), qrels, measure)
    best = cv.best(matrix, np.arange(matrix.shape[1]))
    return best, float(matrix[best].mean()), fused(best, models[best])


def learned(method: Method, s: Stack, configs, fused, qrels: pd.DataFrame, measure: str, folds: int, seed: int):
    qrels = qrels[["qid", "docno", "rel"]].astype({"qid": str, "docno": str})
    topics = np.array(sorted(set(qrels["qid"]) & set(s.topics)), dtype=object)
    parts = cv.split(topics, folds, seed)
    fold_rows, runs, held = [], [], []
    for part in parts:
        train = qrels[~qrels["qid"].isin(set(topics[part]))]
        best, score, run = _fit(method, s, configs, fused, train, measure)
        mine = run[run["qid"].isin(set(topics[part]))]
        values = evaluate_frames(qrels[qrels["qid"].isin(set(topics[part]))], mine[["qid", "docno", "score"]],
                                 [measure]).per_query["value"].to_numpy(float)
        fold_rows.append(Fold(tuple(topics[part]), configs[best], score, float(values.mean())))
        runs.append(run)
        held.append(values)
    overall, overall_score, rest = _fit(method, s, configs, fused, qrels, measure)
    table = cv.assemble(runs, parts, topics, rest)
    return tuple(fold_rows), overall, overall_score, np.concatenate(held), table
