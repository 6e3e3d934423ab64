"""A fused run of the bundled sample runs evaluates (AP, nDCG@10, through core.engine) as ranx's fused run of
the same runs does, for every method with its default normalisation."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.engine.relevance import evaluate_frames
from core.formats import read_qrels, read_run
from core.fusion import METHODS, fuse
from tests.cases.fusion import ranx_frame, to_ranx

ranx = pytest.importorskip("ranx")

DATA = Path(__file__).resolve().parents[2] / "data"
NAMES = ("aplrob03a", "UIUC03Rd1", "pircRBa1")
GIVEN = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.8}}
WEIGHTS = [0.5, 0.3, 0.2]


@pytest.fixture(scope="module")
def sample():
    runs = [read_run(DATA / "runs" / f"input.{n}.gz").table.to_pandas() for n in NAMES]
    qrels = read_qrels(DATA / "qrels.robust03.txt.gz").table.to_pandas()
    return runs, qrels


def condorcet_sample(runs):
    """Condorcet's order is defined (ranx's too) when the majorities are a strict order: the first run twice, and
    the second cut down to the documents the first retrieved, so every pair of candidates has a majority."""
    first, second = runs[0], runs[1]
    second = second.merge(first[["qid", "docno"]], on=["qid", "docno"])
    return [first, first.copy(), second]


def evaluation(qrels, run: pd.DataFrame) -> np.ndarray:
    return evaluate_frames(qrels, run[["qid", "docno", "score"]], ["AP", "nDCG@10"]).per_query["value"].to_numpy()


@pytest.mark.parametrize("method", [m for m in METHODS if m.train is None], ids=lambda m: m.name)
def test_the_fused_sample_evaluates_as_ranx_fused_run(sample, method):
    runs, qrels = sample
    if method.name in ("condorcet", "w_condorcet"):
        runs = condorcet_sample(runs)
    params = dict(GIVEN.get(method.name, {}))
    weights = WEIGHTS if method.weighted else None
    ours = fuse(runs, method.name, params=params, weights=weights, depth=None).table
    topics = sorted(set(runs[0]["qid"]))
    theirs = ranx.fuse([to_ranx(r, topics) for r in runs], norm="min-max", method=method.name,
                       params={**params, **({"weights": weights} if weights else {})})
    ours_values, ranx_values = evaluation(qrels, ours), evaluation(qrels, ranx_frame(theirs))
    assert len(ours_values) == 2 * len(topics)
    np.testing.assert_allclose(ours_values, ranx_values, atol=1e-6, rtol=0)
