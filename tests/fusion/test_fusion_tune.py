"""Cross-validated tuning: a topic is never fused with parameters tuned on it; the report's held-out score is the
written run's score; the folds follow the seed."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.engine.relevance import evaluate_frames
from core.errors import EvalError
from core.fusion import fuse, method_named
from core.fusion.tune import configurations, tune


def planted():
    """Ten topics. In q1..q9 both runs rank the same way, so every weight scores the same there (and a tie goes
    to the last configuration, weights 1,0). In the planted topic q10 only run B finds the relevant document:
    its best weights are 0,1, and it alone decides the tuning on all topics."""
    a_rows, b_rows, qrels = [], [], []
    for t in range(1, 11):
        docs = [f"t{t}-d{i}" for i in range(5)]
        qrels.append((f"q{t}", docs[2], 1))
        a_order = docs if t < 10 else [docs[0], docs[1], docs[3], docs[4], docs[2]]
        b_order = docs if t < 10 else [docs[2], docs[0], docs[1], docs[3], docs[4]]
        a_rows += [(f"q{t}", d, 5.0 - i) for i, d in enumerate(a_order)]
        b_rows += [(f"q{t}", d, 5.0 - i) for i, d in enumerate(b_order)]
    columns = ["qid", "docno", "score"]
    return (pd.DataFrame(a_rows, columns=columns), pd.DataFrame(b_rows, columns=columns),
            pd.DataFrame(qrels, columns=["qid", "docno", "rel"]))


def test_a_planted_topic_is_not_fused_with_its_own_best_parameters():
    a, b, qrels = planted()
    tuning = tune([a, b], "wsum", qrels, measure="AP", folds=5, seed=0, step=0.5)
    assert tuning.overall == {"weights": [0.0, 1.0]}               # the planted topic decides on all topics
    fold = next(f for f in tuning.folds if "q10" in f.topics)
    assert fold.params == {"weights": [1.0, 0.0]}                  # tuned without it
    written = tuning.run.table[tuning.run.table["qid"] == "q10"].reset_index(drop=True)
    expected = fuse([a, b], "wsum", weights=[1.0, 0.0]).table
    expected = expected[expected["qid"] == "q10"].reset_index(drop=True)
    pd.testing.assert_frame_equal(written, expected)
    assert written["docno"].tolist()[-1] == "t10-d2"               # run B's weights would have put it first
    assert fold.held_out < 1.0
    for other in tuning.folds:
        if other is not fold:
            assert other.params == {"weights": [0.0, 1.0]}         # q10 was in their training topics


def test_the_held_out_score_is_the_written_run_score():
    a, b, qrels = planted()
    tuning = tune([a, b], "rrf", qrels, measure="AP", folds=3, seed=4)
    per = evaluate_frames(qrels, tuning.run.table[["qid", "docno", "score"]], ["AP"]).per_query
    assert tuning.held_out == pytest.approx(per["value"].mean(), abs=1e-12)
    assert sorted(t for f in tuning.folds for t in f.topics) == sorted(qrels["qid"])
    assert [len(f.topics) for f in tuning.folds] == [4, 3, 3]


def test_the_folds_follow_the_seed():
    a, b, qrels = planted()
    first = tune([a, b], "rrf", qrels, measure="AP", folds=5, seed=1)
    again = tune([a, b], "rrf", qrels, measure="AP", folds=5, seed=1)
    other = tune([a, b], "rrf", qrels, measure="AP", folds=5, seed=2)
    assert [f.topics for f in first.folds] == [f.topics for f in again.folds]
    assert [f.topics for f in first.folds] != [f.topics for f in other.folds]
    assert first.report() == again.report()


def test_the_grid_is_ranx_optimize_fusion_grid_and_given_parameters_stay_fixed():
    assert [c["k"] for c in configurations(method_named("rrf"), 2, {}, None, 0.1)] == list(range(10, 101, 10))
    assert len(configurations(method_named("rbc"), 2, {}, None, 0.1)) == 100
    assert len(configurations(method_named("wsum"), 3, {}, None, 0.1)) == 66
    assert configurations(method_named("wsum"), 2, {}, [0.2, 0.8], 0.1) == [{"weights": [0.2, 0.8]}]
    assert configurations(method_named("rrf"), 2, {"k": "7"}, None, 0.1) == [{"k": 7}]
    assert configurations(method_named("sum"), 2, {}, None, 0.1) == [{}]


def test_folds_must_fit_the_topics():
    a, b, qrels = planted()
    with pytest.raises(EvalError) as e:
        tune([a, b], "rrf", qrels, folds=11)
    assert str(e.value) == ("--folds 11: cross-validation needs 2 to 10 folds here (one topic at least per fold; "
                            "10 topics have judgments). Give --folds between 2 and 10.")
    with pytest.raises(EvalError, match=r"^no topic of the runs has judgments in the qrels\. Check"):
        tune([a, b], "rrf", qrels.assign(qid="other"))


def test_the_report_lists_every_fold_and_the_parameters_tuned_on_all_topics():
    """q1..q9 score AP 1/3 whatever the weights; q10 scores 1 with weights 0,1 and 1/5 with 1,0."""
    a, b, qrels = planted()
    text = tune([a, b], "wsum", qrels, measure="AP", folds=2, seed=0, step=0.5).report()
    assert text == ("wsum: 3 configurations, 2-fold cross-validation over topics, maximising AP\n"
                    "fold  topics    train  held-out  parameters\n"
                    "   1       5   0.4667    0.3333  weights=0,1\n"
                    "   2       5   0.3333    0.3067  weights=1,0\n"
                    "held-out AP of the fused run: 0.3200 (mean of the folds: 0.3200)\n"
                    "tuned on all topics: weights=0,1 (AP 0.4000 on the topics it was tuned on)")


@pytest.mark.parametrize(("method", "params"), [("posfuse", {}), ("probfuse", {"n_segments": "2"}),
                                                ("slidefuse", {})])
def test_a_learning_method_learns_each_fold_from_the_other_folds_only(method, params):
    a, b, qrels = planted()
    tuning = tune([a, b], method, qrels, measure="AP", folds=5, seed=3, params=params)
    for fold in tuning.folds:
        others = qrels[~qrels["qid"].isin(fold.topics)]
        alone = fuse([a, b], method, params=fold.params, qrels=others).table
        alone = alone[alone["qid"].isin(fold.topics)].reset_index(drop=True)
        written = tuning.run.table[tuning.run.table["qid"].isin(fold.topics)].reset_index(drop=True)
        pd.testing.assert_frame_equal(written, alone)
    assert set(tuning.overall) == set(tuning.folds[0].params)
