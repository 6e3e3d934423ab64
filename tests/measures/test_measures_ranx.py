"""ranx's metric names (hits, hit_rate, precision, recall, f1, r-precision, mrr, map, ndcg, ndcg_burges, dcg,
dcg_burges, bpref and the -lN relevance suffix) and the cases of ranx's own tests (tests/unit/ranx/metrics_test.py,
AmenRa/ranx), transcribed: ranx is not installed here (it needs numba), so its test expectations are the oracle.
"""
from __future__ import annotations

import math

import pandas as pd
import pytest

from core.errors import EvalError
from core.engine.evaluate import evaluate_frames
from core.measures import parse_measure, parse_measures


def per_query(qrels: dict, ranked: dict, measure: str) -> dict[str, float]:
    """ranked: qid -> docnos best first (scores fall with the position)."""
    q = pd.DataFrame([(qid, str(d), r) for qid, v in qrels.items() for d, r in v.items()], columns=["qid", "docno", "rel"])
    r = pd.DataFrame([(qid, str(d), float(len(docs) - i)) for qid, docs in ranked.items() for i, d in enumerate(docs)],
                     columns=["qid", "docno", "score"])
    pq = evaluate_frames(q, r, [measure]).per_query
    return dict(zip(pq["qid"], pq["value"]))


@pytest.mark.parametrize("ranx,ours", [
    ("hits@10", "hits@10"), ("hits", "hits"), ("hit_rate@5", "Success@5"), ("precision@10", "P@10"),
    ("precision", "SetP"), ("recall@10", "R@10"), ("f1@10", "F@10"), ("f1", "SetF"), ("r-precision", "Rprec"),
    ("mrr@10", "RR@10"), ("mrr", "RR"), ("map@100", "AP@100"), ("map", "AP"), ("ndcg@10", "nDCG@10"),
    ("ndcg_burges@10", "nDCG(dcg='exp-log2')@10"), ("dcg@5", "DCG@5"), ("dcg_burges@5", "DCG(dcg='exp-log2')@5"),
    ("bpref", "Bpref"), ("precision@10-l2", "P(rel=2)@10"), ("hits@5-l2", "hits(rel=2)@5"), ("map-l2", "AP(rel=2)"),
])
def test_ranx_names(ranx, ours):
    assert parse_measure(ranx) == parse_measure(ours)


def test_bare_recall_keeps_trec_eval_meaning():
    assert parse_measures(["recall"])[0].name == "R@5"       # trec_eval -m recall: its default cutoffs


def test_level_suffix_refused_where_rankboard_has_no_level():
    with pytest.raises(EvalError, match="ranx's -l2 is not supported"):
        parse_measure("ndcg@10-l2")


def test_hits_ranx_case():
    qrels = {"1": {1: 1, 4: 1, 5: 1, 6: 1}, "2": {1: 1, 4: 1, 6: 1}}
    ranked = {"1": [1, 2, 3, 4, 5, 7], "2": [1, 2, 4, 3, 5, 7]}
    got = per_query(qrels, ranked, "hits@5")
    assert got == {"1": 3.0, "2": 2.0} and sum(got.values()) / 2 == 2.5


def test_hit_rate_ranx_case():
    qrels = {"1": {9: 1, 6: 1, 8: 1}, "2": {1: 1, 2: 1, 4: 1}}
    ranked = {"1": [1, 2, 3, 4, 5, 7], "2": [1, 2, 4, 3, 5, 7]}
    got = per_query(qrels, ranked, "hit_rate@5")
    assert sum(got.values()) / 2 == 0.5


def test_dcg_and_ndcg_burges_ranx_cases():
    qrels = {"1": {2: 5, 4: 4, 5: 3, 10: 2}}
    l2 = math.log2
    idcg = 31 / l2(2) + 15 / l2(3) + 7 / l2(4) + 3 / l2(5)
    first = 31 / l2(3) + 15 / l2(5) + 7 / l2(6)
    second = 3 / l2(2) + 7 / l2(3) + 31 / l2(4) + 15 / l2(5)
    assert per_query(qrels, {"1": [1, 2, 3, 4, 5]}, "dcg_burges@10")["1"] == pytest.approx(first)
    assert per_query(qrels, {"1": [10, 5, 2, 4, 3]}, "dcg_burges@10")["1"] == pytest.approx(second)
    assert per_query(qrels, {"1": [1, 2, 3, 4, 5]}, "ndcg_burges@10")["1"] == pytest.approx(first / idcg)
    assert per_query(qrels, {"1": [10, 5, 2, 4, 3]}, "ndcg_burges@10")["1"] == pytest.approx(second / idcg)
    assert per_query(qrels, {"1": [1, 3, 6, 7, 8]}, "ndcg_burges@10")["1"] == 0.0


def test_hits_is_averaged_unlike_numrelret():
    qrels = {"1": {"a": 1, "b": 1}, "2": {"c": 1}}
    q = pd.DataFrame([(k, d, r) for k, v in qrels.items() for d, r in v.items()], columns=["qid", "docno", "rel"])
    r = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "x"], "score": [2.0, 1.0, 1.0]})
    s = evaluate_frames(q, r, ["hits", "NumRelRet"]).summary.set_index("measure")["value"]
    assert s["hits"] == 1.0 and s["NumRelRet"] == 2.0


def test_set_nickname_matches_trec_eval_reference():
    """trec_eval -m set: the set_names of measures.c, in trec_eval's output order, values from out.test.a."""
    import subprocess
    import sys

    from tests.cases.reference import reference_file, reference_text
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-m", "set",
                          str(reference_file("trec_eval_test/qrels.test.gz")),
                          str(reference_file("trec_eval_test/results.test.gz"))],
                         capture_output=True, text=True, check=True).stdout
    names = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_relative_P",
             "set_recall", "set_map", "set_F"]
    reference = {}
    for line in reference_text("trec_eval_test/out.test.a.gz").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in names:
            reference[parts[0]] = parts[2]
    got = [line.split() for line in out.splitlines()]
    assert [g[0] for g in got] == names
    assert {g[0]: g[2] for g in got} == reference


def test_ranx_rbp_uses_raw_grades():
    """ranx's rank_biased_precision: (1 - p) * sum of grade_i * p^(i-1) over the ranking, grades >= 1 only."""
    assert parse_measure("rbp.95") == parse_measure("RBP(gain='grade',p=0.95)")
    assert parse_measure("rbp@8").name == "RBP(gain='grade',p=0.8)"
    qrels = {"1": {"a": 3, "b": 1, "c": 0, "d": -1}}
    got = per_query(qrels, {"1": ["x", "a", "d", "b", "c"]}, "rbp.5")["1"]
    assert got == pytest.approx(0.5 * (3 * 0.5 + 1 * 0.5 ** 3))
    with pytest.raises(EvalError, match="-l2 on rbp is not supported"):
        parse_measure("rbp.95-l2")
