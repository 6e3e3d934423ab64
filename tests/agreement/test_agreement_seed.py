"""Worked examples: seed 004 exercise 8/4, Manning et al.'s 400-document example (their labels are in
tests/cases/worked_examples.py, with their sources), and small cases worked by hand from the definitions (values
derived here, never copied from seed arithmetic)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from core.agreement.qrels import agreement, multi_agreement, reading
from core.agreement.consensus import consensus
from core.errors import EvalError
from core.engine.evaluate import evaluate_frames
from tests.cases.worked_examples import EX84_JUDGE_1, EX84_JUDGE_2, EX84_RETRIEVED, MANNING_TABLE_8_2

# Seed 004, exercise 8/4: 12 documents, one query; the system returns {4, 5, 6, 7, 8}.
JUDGE_1, JUDGE_2, RETRIEVED = list(EX84_JUDGE_1), list(EX84_JUDGE_2), set(EX84_RETRIEVED)


def qrels(labels, qid="q1", docnos=None) -> pd.DataFrame:
    docnos = docnos or [str(i + 1) for i in range(len(labels))]
    return pd.DataFrame({"qid": qid, "docno": docnos, "rel": labels})


def test_seed_004_8_4_a_kappa():
    res = agreement(qrels(JUDGE_1), qrels(JUDGE_2))
    # P(A) = 4/12 (docs 1-4). Pooled: P(R) = 12/24 = 1/2, P(E) = 1/4 + 1/4 = 1/2.
    assert res.p_observed == pytest.approx(1 / 3)
    assert res.p_expected_pooled == pytest.approx(0.5)
    assert res.pooled_kappa == pytest.approx((1 / 3 - 1 / 2) / (1 - 1 / 2))      # -1/3
    # Both judges say relevant 6 times out of 12, so Cohen's chance term is the same here.
    assert res.cohen_kappa == pytest.approx(-1 / 3)
    assert res.confusion.to_numpy().tolist() == [[2, 4], [4, 2]]
    assert res.n_common == 12 and res.only_a == 0 and res.only_b == 0


def _set_prf(qrels_df: pd.DataFrame, retrieved: set[str]) -> tuple[float, float, float]:
    """Set-based precision, recall and F1 of the system through the evaluation engine (trec_eval's
    set_P, set_recall, set_F); the expected values below are worked from seed 004's Defs. 1-3."""
    run = pd.DataFrame({"qid": "q1", "docno": sorted(retrieved), "score": 1.0})
    summary = evaluate_frames(qrels_df, run, ["set_P", "set_recall", "set_F"]).summary
    values = dict(zip(summary["measure"], summary["value"]))
    return values["SetP"], values["SetR"], values["SetF"]


def test_seed_004_8_4_b_relevant_if_the_judges_agree():
    agreed = consensus([qrels(JUDGE_1), qrels(JUDGE_2)], "agree")
    assert sorted(agreed.loc[agreed["rel"] == 1, "docno"], key=int) == ["3", "4"]
    p, r, f = _set_prf(agreed, RETRIEVED)
    # relevant {3, 4}; retrieved {4..8}: one hit. P = 1/5, R = 1/2, F = 2PR/(P+R) = 0.2/0.7
    assert (p, r) == (pytest.approx(1 / 5), pytest.approx(1 / 2))
    assert f == pytest.approx(2 * 0.2 * 0.5 / 0.7)                                 # 0.2857


def test_seed_004_8_4_c_relevant_if_at_least_one_judge_says_so():
    union = consensus([qrels(JUDGE_1), qrels(JUDGE_2)], "union")
    assert sorted(union.loc[union["rel"] == 1, "docno"], key=int) == [str(d) for d in range(3, 13)]
    p, r, f = _set_prf(union, RETRIEVED)
    # relevant {3..12} (10 docs); all 5 retrieved are relevant. P = 1, R = 1/2, F = 2/3
    assert (p, r) == (pytest.approx(1.0), pytest.approx(5 / 10))
    assert f == pytest.approx(2 / 3)


def test_manning_400_documents():
    # Manning, Raghavan & Schuetze (2008), Table 8.2: yes/yes 300, yes/no 20, no/yes 10, no/no 70.
    a = [x for (x, _), n in MANNING_TABLE_8_2.items() for _ in range(n)]
    b = [y for (_, y), n in MANNING_TABLE_8_2.items() for _ in range(n)]
    assert (a, b) == ([1] * 300 + [1] * 20 + [0] * 10 + [0] * 70, [1] * 300 + [0] * 20 + [1] * 10 + [0] * 70)
    res = agreement(qrels(a), qrels(b))
    assert res.p_observed == pytest.approx(370 / 400)
    p_rel = (320 + 310) / 800
    assert res.p_expected_pooled == pytest.approx(p_rel ** 2 + (1 - p_rel) ** 2)  # 0.665313
    assert round(res.pooled_kappa, 3) == 0.776
    assert res.cohen_kappa == pytest.approx(cohen_kappa_score(a, b))
    assert res.cohen_kappa != pytest.approx(res.pooled_kappa, abs=1e-5)      # two chance models
    assert reading(res.pooled_kappa) == "0.78 = substantial"


def test_weighted_kappa_uses_grade_values_not_positions():
    # Grades {0, 1, 3}: there is no 2. A 1-vs-3 disagreement is 2 grade steps, 1 label position.
    a = [0, 1, 3, 3, 1, 0, 3, 1]
    b = [0, 3, 1, 3, 0, 0, 1, 1]
    g = np.array([0, 1, 3])
    obs = pd.crosstab(pd.Series(a), pd.Series(b)).reindex(index=g, columns=g, fill_value=0).to_numpy() / len(a)
    exp = np.outer(obs.sum(axis=1), obs.sum(axis=0))
    for weights, power in (("linear", 1), ("quadratic", 2)):
        w = np.abs(g[:, None] - g[None, :]) ** power
        by_hand = 1 - (w * obs).sum() / (w * exp).sum()
        res = agreement(qrels(a), qrels(b), weights=weights)
        assert res.weighted_kappa == pytest.approx(by_hand)
        sk = cohen_kappa_score(a, b, weights=weights)
        assert abs(res.weighted_kappa - sk) > 0.01                             # the documented difference
        positions = agreement(qrels(np.searchsorted(g, a)), qrels(np.searchsorted(g, b)), weights=weights)
        assert positions.weighted_kappa == pytest.approx(sk)
    # With consecutive grades the two definitions coincide.
    c, d = [0, 1, 2, 2, 1, 0], [0, 2, 1, 2, 0, 0]
    assert agreement(qrels(c), qrels(d), weights="quadratic").weighted_kappa == pytest.approx(
        cohen_kappa_score(c, d, weights="quadratic"))


def test_binary_kappa_at_a_threshold_and_only_counts():
    a = qrels([0, 1, 2, 3, 2], docnos=list("vwxyz"))
    b = qrels([0, 2, 1, 3, 0, 1], docnos=list("vwxyzu"))
    res = agreement(a, b, rel_level=2)
    # rel >= 2: a -> 0 0 1 1 1, b -> 0 1 0 1 0 on the five shared docs
    assert res.confusion.to_numpy().tolist() == [[1, 1], [2, 1]]
    assert res.cohen_kappa == pytest.approx(cohen_kappa_score([0, 0, 1, 1, 1], [0, 1, 0, 1, 0]))
    assert (res.n_common, res.only_a, res.only_b) == (5, 0, 1)
    assert list(res.confusion.index) == [0, 1]


def test_unjudged_negative_grades_are_dropped_unless_kept():
    a = qrels([-1, 1, 0], docnos=list("xyz"))
    b = qrels([1, 1, 0], docnos=list("xyz"))
    assert agreement(a, b).n_common == 2
    assert agreement(a, b).only_b == 1
    assert agreement(a, b, negative="keep").n_common == 3


def test_per_topic_kappa_flags_single_label_topics():
    a = pd.concat([qrels([1, 0, 1, 0], "t1"), qrels([1, 1, 1], "t2"), qrels([1, 1], "t3")])
    b = pd.concat([qrels([1, 0, 0, 0], "t1"), qrels([1, 0, 1], "t2"), qrels([1, 1], "t3")])
    topics = agreement(a, b).per_topic.set_index("qid")
    assert topics.loc["t1", "kappa"] == pytest.approx(cohen_kappa_score([1, 0, 1, 0], [1, 0, 0, 0]))
    assert topics.loc["t2", "kappa"] == pytest.approx(0.0)      # A used one label: defined but uninformative
    assert topics.loc["t2", "single_label"] and not topics.loc["t2", "undefined"]
    assert np.isnan(topics.loc["t3", "kappa"]) and topics.loc["t3", "undefined"]
    assert not topics.loc["t1", "single_label"]
    assert topics["n"].tolist() == [4, 3, 2]


def test_reading_bands():
    assert reading(0.78) == "0.78 = substantial"
    assert reading(0.2003) == "0.20 = slight"
    assert reading(0.21) == "0.21 = fair"
    assert reading(0.5) == "0.50 = moderate"
    assert reading(0.95) == "0.95 = almost perfect"
    assert reading(-0.1).startswith("-0.10 = poor")
    assert reading(float("nan")).startswith("undefined")


def test_multi_agreement_fleiss_by_hand():
    # 4 items, 3 raters; categories 0/1. Counts per item: (3,0) (0,3) (2,1) (1,2).
    j = [qrels([0, 1, 0, 1]), qrels([0, 1, 0, 1]), qrels([0, 1, 1, 0])]
    res = multi_agreement(j)
    p_items = np.array([1, 1, 1 / 3, 1 / 3])        # (sum n^2 - 3) / (3 * 2)
    p_e = 0.5 ** 2 + 0.5 ** 2
    assert res.fleiss_kappa == pytest.approx((p_items.mean() - p_e) / (1 - p_e))
    assert res.n_items_all == 4
    assert len(res.pairwise) == 3
    with pytest.raises(EvalError):
        multi_agreement([j[0]])


def test_bad_weights_are_an_eval_error():
    with pytest.raises(EvalError, match="linear or quadratic"):
        agreement(qrels([0, 1]), qrels([1, 1]), weights="cubic")
