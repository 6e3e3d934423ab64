"""The methods that learn from judged topics against ranx 0.3.21: trained on some topics (ranx's *_train on the
normalised runs of those topics), applied to all, the same scores to 1e-6; and the fused sample evaluates as
ranx's does.

ranx ranks a normalised run again (numba's quicksort) before it counts hits, so equal scores could be counted in
another order: these runs have none."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.engine.relevance import evaluate_frames
from core.errors import EvalError
from core.fusion import METHODS, fuse
from tests.cases.fusion import random_runs, ranx_frame, to_ranx

ranx = pytest.importorskip("ranx")

LEARNED = [m.name for m in METHODS if m.train is not None]
GIVEN = {"probfuse": {"n_segments": 3}, "slidefuse": {"w": 2}}
MODEL = {"posfuse": "probs", "probfuse": "probs", "segfuse": "probs", "slidefuse": "probs", "bayesfuse": "log_odds",
         "mapfuse": "map_scores"}


def ranx_qrels(qrels: pd.DataFrame):
    return ranx.Qrels.from_dict({q: {d: int(r) for d, r in zip(g["docno"], g["rel"])}
                                 for q, g in qrels.groupby("qid")})


def ranx_learned(runs, method, norm, qrels, train_topics):
    """ranx's model trained on the normalised runs of `train_topics`, then ranx.fuse over every topic."""
    import ranx.fusion as rf
    from ranx.normalization import norm_switch
    topics = sorted(set().union(*(set(r["qid"]) for r in runs)))
    train_runs = [norm_switch(norm)(to_ranx(r[r["qid"].isin(train_topics)], sorted(train_topics))) for r in runs]
    extra = GIVEN.get(method, {})
    trainer = getattr(rf, f"{method}_train")
    model = trainer(ranx_qrels(qrels), train_runs, *extra.values()) if method == "probfuse" else \
        trainer(ranx_qrels(qrels), train_runs)
    params = {MODEL[method]: model, **({"w": extra["w"]} if method == "slidefuse" else {})}
    fused = ranx.fuse([to_ranx(r, topics) for r in runs], norm=norm, method=method, params=params)
    return ranx_frame(fused)


def judged(runs, seed: int, topics) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    pairs = pd.concat([r[["qid", "docno"]] for r in runs]).drop_duplicates()
    pairs = pairs[pairs["qid"].isin(topics)].reset_index(drop=True)
    return pairs.assign(rel=rng.integers(0, 3, len(pairs)))


@pytest.mark.parametrize("norm", ["min-max", "zmuv", "rank"])
@pytest.mark.parametrize("method", LEARNED)
def test_learned_methods_give_ranx_scores(method, norm):
    for seed in range(3):
        runs = random_runs(seed, ties=False)
        train = ["q1", "q2"] if seed else ["q1", "q2", "q3"]
        qrels = judged(runs, seed, train)
        ours = fuse(runs, method, norm=norm, params=GIVEN.get(method), qrels=qrels, depth=None).table
        theirs = ranx_learned(runs, method, norm, qrels, train)
        both = ours.merge(theirs, on=["qid", "docno"], suffixes=("", "_ranx"))
        assert len(both) == len(ours) == len(theirs)
        np.testing.assert_allclose(both["score"], both["score_ranx"], rtol=1e-9, atol=1e-6)


def without_ties(run: pd.DataFrame) -> pd.DataFrame:
    """The run with its equal scores pulled apart in trec_eval's order (docno descending), by 1e-9 a place."""
    run = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False]).reset_index(drop=True)
    place = run.groupby("qid").cumcount().to_numpy()
    return run.assign(score=run["score"] - 1e-9 * place)


def test_the_learned_sample_evaluates_as_ranx_fused_run():
    """On the sample runs, their ties broken (ranx would count hits among them in quicksort's order). The learned
    scores agree to about 1e-15, not to the last bit, and many documents share a score (the same places): the
    scores are rounded to 1e-9 before evaluating, so that such documents tie in both runs and are ordered by
    docno in both."""
    from pathlib import Path
    from core.formats import read_qrels, read_run
    data = Path(__file__).resolve().parents[2] / "data"
    runs = [without_ties(read_run(data / "runs" / f"input.{n}.gz").table.to_pandas())
            for n in ("aplrob03a", "pircRBa1")]
    assert not any(r.duplicated(["qid", "score"]).any() for r in runs)
    qrels = read_qrels(data / "qrels.robust03.txt.gz").table.to_pandas()
    topics = sorted(set(runs[0]["qid"]))
    train = topics[: len(topics) // 2]
    train_qrels = qrels[qrels["qid"].isin(train)]
    for method in LEARNED:
        ours = fuse(runs, method, params=GIVEN.get(method), qrels=train_qrels, depth=None).table
        theirs = ranx_learned(runs, method, "min-max", train_qrels, train)
        values = [evaluate_frames(qrels, t[["qid", "docno", "score"]].assign(score=t["score"].round(9)),
                                  ["AP", "nDCG@10"]).per_query["value"] for t in (ours, theirs)]
        np.testing.assert_allclose(values[0].to_numpy(), values[1].to_numpy(), atol=1e-6, rtol=0)


def test_a_learned_method_needs_judged_topics_and_the_others_refuse_them():
    runs = random_runs(0, ties=False)
    with pytest.raises(EvalError) as e:
        fuse(runs, "posfuse")
    assert str(e.value) == ("posfuse learns from judged topics. Give --train QRELS (the topics to learn from), or "
                            "--tune QRELS to learn on the other folds of topics.")
    with pytest.raises(EvalError, match=r"^rrf does not learn from judged topics\. Drop --train"):
        fuse(runs, "rrf", qrels=judged(runs, 0, ["q1"]))
