"""What the two kinds of cross-validation share (tune.py, tune_learned.py): the folds of topics, the matrix of
per-topic scores of every configuration, the choice of the best, and the run put together from the folds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.engine.relevance import evaluate_frames
from core.errors import EvalError

__all__ = ["Fold", "split", "best", "matrix", "assemble", "BATCH_ROWS"]

BATCH_ROWS = 4_000_000         # fused rows evaluated at a time


@dataclass(frozen=True)
class Fold:
    topics: tuple[str, ...]
    params: dict
    train: float               # mean of the measure over the other folds' topics, with `params`
    held_out: float            # mean over this fold's topics, with `params`


def split(topics: np.ndarray, folds: int, seed: int) -> list[np.ndarray]:
    if not 2 <= folds <= len(topics):
        raise EvalError(f"--folds {folds}: cross-validation needs 2 to {len(topics)} folds here (one topic at "
                        f"least per fold; {len(topics)} topics have judgments). Give --folds between 2 and "
                        f"{len(topics)}." if len(topics) >= 2 else
                        f"only {len(topics)} topic of the runs has judgments in the qrels; cross-validation needs "
                        f"two or more. Check that the qrels are for these runs.")
    return [np.sort(f) for f in np.array_split(np.random.default_rng(seed).permutation(len(topics)), folds)]


def best(matrix: np.ndarray, columns: np.ndarray) -> int:
    means = matrix[:, columns].mean(axis=1)
    return int(len(means) - 1 - np.argmax(means[::-1]))          # the last of the best, as optimize_fusion


def matrix(configs, fused, qrels: pd.DataFrame, measure: str) -> tuple[np.ndarray, np.ndarray]:
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


def assemble(per_fold: list[pd.DataFrame], parts, topics, rest: pd.DataFrame) -> pd.DataFrame:
    """Each fold's topics from the run fused for that fold; the topics without judgments from `rest`."""
    pieces = [run[run["qid"].isin(set(topics[p]))] for run, p in zip(per_fold, parts)]
    pieces.append(rest[~rest["qid"].isin(set(topics))])
    table = pd.concat(pieces, ignore_index=True)
    return table.sort_values(["qid", "rank"], kind="stable").reset_index(drop=True)
