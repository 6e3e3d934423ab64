"""Consensus qrels (majority, agree, union, mean) and storing one as a new qrels set."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agreement.consensus import consensus, to_trec_text
from core.service.compare import save_consensus
from core.errors import EvalError
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store


def q(rels: dict) -> pd.DataFrame:
    return pd.DataFrame({"qid": "t1", "docno": list(rels), "rel": list(rels.values())})


# Three assessors; d4 is judged by A only, d5 is -1 (unjudged) for B.
A = q({"d1": 0, "d2": 1, "d3": 2, "d4": 1, "d5": 2})
B = q({"d1": 1, "d2": 1, "d3": 0, "d5": -1})
C = q({"d1": 1, "d2": 2, "d3": 3, "d5": 0})


@pytest.mark.parametrize("method,expected", [
    ("agree", {"d1": 0, "d2": 1, "d3": 0, "d4": 1, "d5": 0}),      # lowest grade given
    ("union", {"d1": 1, "d2": 2, "d3": 3, "d4": 1, "d5": 2}),      # highest grade given
    ("majority", {"d1": 1, "d2": 1, "d3": 0, "d4": 1, "d5": 0}),   # d3: 2/0/3 all tied -> lowest; d5: 2/0 -> 0
    ("mean", {"d1": 1, "d2": 1, "d3": 2, "d4": 1, "d5": 1}),       # 2/3->1, 4/3->1, 5/3->2, 1, 1.0
])
def test_methods_by_hand(method, expected):
    out = consensus([A, B, C], method)
    assert dict(zip(out["docno"], out["rel"])) == expected
    assert out["rel"].dtype == "int64"


def test_mean_rounds_half_up_not_to_even():
    a, b = q({"x": 0, "y": 2, "z": 1}), q({"x": 1, "y": 3, "z": 2})     # means 0.5, 2.5, 1.5
    out = consensus([a, b], "mean")
    assert out["rel"].tolist() == [1, 3, 2]


def test_common_keeps_only_pairs_everyone_judged():
    out = consensus([A, B, C], "union", on="common")
    assert out["docno"].tolist() == ["d1", "d2", "d3"]          # d4: A only; d5: B's -1 is no judgment


def test_bad_method():
    with pytest.raises(EvalError, match="majority, agree, union, mean"):
        consensus([A, B], "median")


def test_trec_text_round_trip():
    from core.formats.qrels import read_qrels
    out = consensus([A, C], "agree")
    parsed = read_qrels(to_trec_text(out), filename="consensus.qrels").table.to_pandas()
    assert parsed[["qid", "docno"]].values.tolist() == out[["qid", "docno"]].values.tolist()
    assert parsed["rel"].tolist() == out["rel"].tolist()


def test_save_consensus_adds_a_qrels_set(tmp_path):
    with sample_store(tmp_path) as store:
        sets = store.qrels_sets(SAMPLE_COLLECTION)
        ids = sets["qrels_id"].tolist()
        assert len(ids) == 2
        report = save_consensus(store, SAMPLE_COLLECTION, ids, "agree", "NIST and B agree")
        after = store.qrels_sets(SAMPLE_COLLECTION)
        assert len(after) == 3
        new = after[after["assessor"] == "NIST and B agree"]
        assert len(new) == 1
        stored = store.qrels(int(new["qrels_id"].iloc[0]))
        expected = consensus([store.qrels(i) for i in ids], "agree")
        merged = stored.merge(expected, on=["qid", "docno"], suffixes=("_s", "_e"))
        assert len(merged) == len(expected) == len(stored) == report.n_rows
        assert (merged["rel_s"] == merged["rel_e"]).all()
        # agree = the lowest grade: never more relevant documents than either assessor
        n_rel = [int((store.qrels(i)["rel"] >= 1).sum()) for i in ids]
        assert int((stored["rel"] >= 1).sum()) <= min(n_rel)
        with pytest.raises(EvalError, match="not in this collection"):
            save_consensus(store, SAMPLE_COLLECTION, [ids[0], 999], "union")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(-1, 3), min_size=6, max_size=6), min_size=2, max_size=4))
def test_every_consensus_lies_between_agree_and_union(judges):
    frames = [pd.DataFrame({"qid": "t", "docno": [f"d{i}" for i in range(6)], "rel": row}) for row in judges]
    out = {m: consensus(frames, m).set_index("docno")["rel"] for m in ("agree", "union", "majority", "mean")}
    judged = [d for d in (f"d{i}" for i in range(6)) if any(row[int(d[1:])] >= 0 for row in judges)]
    for m in out:
        assert sorted(out[m].index) == judged                 # a pair nobody judged (-1 everywhere) is absent
    for m in ("majority", "mean"):
        assert (out["agree"] <= out[m]).all() and (out[m] <= out["union"]).all()
    # agree/union at threshold 1 are the intersection/union of the relevant sets
    rel_sets = [{f"d{i}" for i, v in enumerate(row) if v >= 1} for row in judges]
    judged_by = [{f"d{i}" for i, v in enumerate(row) if v >= 0} for row in judges]
    assert set(out["union"][out["union"] >= 1].index) == set().union(*rel_sets)
    expected_agree = {d for d in judged if all(d in r for r, j in zip(rel_sets, judged_by) if d in j)}
    assert set(out["agree"][out["agree"] >= 1].index) == expected_agree
