"""Worked values for the textbook variants and the engine's edge cases (ties, grades, missing topics, switches).

Every expected value is derived from the measure's definition by hand (tests/cases/worked_examples.py lists the
seeds' arithmetic slips), not copied from the engine.
"""
from __future__ import annotations

import pandas as pd
import pytest

from core.errors import EvalError, UnknownMeasureError
from core.engine.evaluate import EvalOptions, evaluate_frames
from core.measures import parse_measure
from tests.cases.measures import WORKED


def ranking(pattern: str, total_rel: int | None = None, grades=None, qid="q1", extra_judged=0):
    """'R N R ...' (or grades) -> (qrels, run). Scores strictly decrease; relevant docs not retrieved are
    added to the qrels so that R = total_rel; `extra_judged` adds unretrieved judged non-relevant docs."""
    labels = grades if grades is not None else [1 if c == "R" else 0 for c in pattern.split()]
    docs = [f"d{i:03d}" for i in range(len(labels))]
    run = pd.DataFrame({"qid": qid, "docno": docs, "score": [100.0 - i for i in range(len(docs))]})
    qrels = [(qid, d, g) for d, g in zip(docs, labels) if g is not None]
    found = sum(1 for g in labels if g is not None and g >= 1)
    qrels += [(qid, f"missing{i}", 1) for i in range((total_rel or found) - found)]
    qrels += [(qid, f"judged{i}", 0) for i in range(extra_judged)]
    return pd.DataFrame(qrels, columns=["qid", "docno", "rel"]), run


def value(qrels, run, measure, **options):
    res = evaluate_frames(qrels, run, [measure], EvalOptions(**options))
    s = res.summary
    return float(s.loc[s["measure"] == parse_measure(measure).name, "value"].iloc[0])


@pytest.mark.parametrize("measure,kw,expected", WORKED, ids=[w[0] for w in WORKED])
def test_worked_value(measure, kw, expected):
    qrels, run = ranking(**kw)
    assert value(qrels, run, measure) == pytest.approx(expected, abs=1e-9)


def test_auc_with_collection_size_counts_unjudged_as_negative():
    qrels, run = ranking("", grades=[1, None, 0, 1])        # ranks: pos, unjudged, neg, pos
    # N = 10 docs, R = 2 -> 8 negatives; 2 retrieved negatives (ranks 2, 3), 6 unretrieved tied last.
    # rank-1 positive beats all 8; rank-4 positive beats the 6 unretrieved.
    assert value(qrels, run, "AUC", num_docs=10) == pytest.approx((8 + 6) / 16)
    assert value(qrels, run, "AUC") == pytest.approx((1 + 0) / 2)   # judged only: one negative, at rank 3


def test_score_ties_break_by_docno_descending():
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]})
    run = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    assert value(qrels, run, "RR") == pytest.approx(1 / 3)                 # c, b, a
    run["rank"] = [1, 2, 3]                                                 # a frame's rank column is ignored
    assert value(qrels, run, "RR") == pytest.approx(1 / 3)


def test_a_table_with_the_stores_precomputed_rank_is_trusted():
    """evaluate() over a DuckDB table that carries `rank` (the store's canonical rank) uses it as is."""
    import duckdb
    from core.engine.relevance import evaluate
    con = duckdb.connect()
    con.execute("CREATE TABLE q AS SELECT * FROM (VALUES ('1', 'a', 1)) t(qid, docno, rel)")
    con.execute("CREATE TABLE r AS SELECT * FROM (VALUES ('s', '1', 'a', 1.0, 1), ('s', '1', 'b', 1.0, 2),"
                " ('s', '1', 'c', 1.0, 3)) t(run, qid, docno, score, rank)")
    res = evaluate(con, "r", "q", ["RR"])
    assert res.per_query["value"].tolist() == [1.0]


def test_qids_stay_strings_and_sort_bytewise():
    qrels = pd.DataFrame({"qid": ["10", "9", "010"], "docno": ["a", "a", "a"], "rel": [1, 1, 1]})
    run = pd.DataFrame({"qid": ["10", "9", "010"], "docno": ["a", "b", "a"], "score": [1.0, 1.0, 1.0]})
    res = evaluate_frames(qrels, run, ["P@1"])
    assert list(res.per_query["qid"]) == ["010", "10", "9"]
    assert list(res.per_query["value"]) == [1.0, 1.0, 0.0]


def test_missing_topics_skipped_with_warning_or_counted_with_c():
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "a"], "rel": [1, 1]})
    run = pd.DataFrame({"qid": ["1", "3"], "docno": ["a", "a"], "score": [1.0, 1.0]})   # 3: run only
    res = evaluate_frames(qrels, run, ["AP", "NumRel"])
    assert res.missing_topics == {"run": ["2"]}
    assert any("2" in w and "-c" in w for w in res.warnings)
    assert res.num_q == {"run": 1}
    res_c = evaluate_frames(qrels, run, ["AP", "NumRel"], EvalOptions(complete=True))
    s = res_c.summary.set_index("measure")["value"]
    assert s["AP"] == pytest.approx(0.5) and s["NumRel"] == 2 and res_c.num_q == {"run": 2}


def test_negative_grades_are_pooled_but_unjudged():
    qrels, run = ranking("", grades=[1, -1, 0, 1])
    assert value(qrels, run, "NumRel") == 2
    # infAP skips the pooled-but-unjudged doc at rank 2 when estimating precision above rank 4
    assert value(qrels, run, "infAP") == pytest.approx((1 + (1 / 4 + (3 / 4) * (3 / 3) * ((1 + 1e-5) / (2 + 2e-5)))) / 2)
    assert value(qrels, run, "Judged@4") == 1.0            # ir_measures: in the qrels, whatever the grade
    assert value(qrels, run, "JudgedK@4") == pytest.approx(3 / 4)
    assert value(qrels, run, "NumRet", judged_only=True) == 3
    assert value(qrels, run, "P@2", judged_only=True) == pytest.approx(1 / 2)   # -J: ranks become 1, 2, 3


def test_max_depth_and_rel_level():
    qrels, run = ranking("", grades=[2, 1, 0, 2])
    assert value(qrels, run, "NumRet", max_depth=2) == 2
    assert value(qrels, run, "AP", max_depth=2) == pytest.approx(2 / 3)
    assert value(qrels, run, "P@4", rel_level=2) == pytest.approx(2 / 4)
    assert value(qrels, run, "P(rel=2)@4") == pytest.approx(2 / 4)
    assert value(qrels, run, "P@4") == pytest.approx(3 / 4)


def test_empty_ranking_counts_zero_with_c():
    qrels, _ = ranking("R N")
    run = pd.DataFrame({"qid": ["other"], "docno": ["x"], "score": [1.0]})
    res = evaluate_frames(qrels, run, ["AP", "nDCG@10", "RR"], EvalOptions(complete=True))
    assert res.summary["value"].tolist() == [0.0, 0.0, 0.0]


def test_compat_10_rounds_recall_levels():
    qrels, run = ranking("R R R R R N N N N N R", total_rel=13)
    # 0.4 * 13 = 5.2: trec_eval 9.x cuts at (long)(6.1) = 6 relevant docs, 10.0 at lround(5.2) = 5
    assert value(qrels, run, "IPrec@0.4") == pytest.approx(6 / 11)
    assert value(qrels, run, "IPrec@0.4", compat=10) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", ["P@0", "nDCG(dcg='cubic')@10", "SetF(beta=-1)", "P(foo=1)@5", "AP@x",
                                 "P", "Bpref@10", "RBP(p='high')"])
def test_invalid_parameters_raise(bad):
    with pytest.raises(EvalError):
        parse_measure(bad)


def test_unknown_measure_suggests():
    with pytest.raises(UnknownMeasureError, match=r"Did you mean nDCG@10 "):
        parse_measure("nDGC@10")
    with pytest.raises(UnknownMeasureError, match="Did you mean"):
        parse_measure("mapp")


def test_bad_options_raise():
    with pytest.raises(EvalError):
        EvalOptions(compat=11)
    with pytest.raises(EvalError):
        EvalOptions(max_depth=0)


def test_no_common_topics_and_empty_inputs_do_not_crash():
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]})
    run = pd.DataFrame({"qid": ["2"], "docno": ["a"], "score": [1.0]})
    res = evaluate_frames(qrels, run, ["all_trec"])
    assert res.per_query.empty and res.summary.empty
    assert any("no topic in common" in w for w in res.warnings)
    res = evaluate_frames(qrels, run, ["AP", "relstring"], EvalOptions(complete=True))
    assert res.per_query["value"].tolist() == [0.0] and res.text["text"].tolist() == [""]
    empty = evaluate_frames(qrels, run.iloc[:0], ["AP"])
    assert empty.per_query.empty


def test_utility_uses_collection_size():
    qrels, run = ranking("R N R", total_rel=3)
    # a*relret + b*nonrelret + c*relmissed + d*(N + relret - ret - R) = 2 - 1 + 0 + (10 + 2 - 3 - 3)
    assert value(qrels, run, "utility(d=1)", num_docs=10) == pytest.approx(7.0)
    assert parse_measure("utility(d=1)").trec_name == "utility_1,-1,0,1"


def test_measures_pickle_and_compare_equal():
    """Streamlit's cache and Dask pickle Measures: a judged_only family's compute must survive the trip."""
    import pickle
    for name in ["AP(judged_only=True)", "nDCG@10", "Compat", "SetF(beta=0.25)"]:
        m = parse_measure(name)
        back = pickle.loads(pickle.dumps(m))
        assert back == m and hash(back) == hash(m) and back.name == name
