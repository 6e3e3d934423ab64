"""Curves: seed 002's worked examples, trec_eval's iprec_at_recall_*, and sklearn's ROC AUC."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from sklearn.metrics import roc_auc_score

from core.analysis.curves import IPREC_LEVELS, canonical_ranking, pr_curve, pr_points, roc_auc, roc_curve
from tests.cases.reference import ROBUST, ROBUST_QRELS, reference_file, robust_run

# seed 002: the relevant set R_q and the ranking of its recall/precision table (ERRATA 5: the table's
# ranking has d48 at 11 and d3 at 14; the R-precision slide's has d38 at 11, d48 at 12, d3 at 15)
RELEVANT = ["d3", "d5", "d9", "d25", "d39", "d44", "d56", "d71", "d89", "d123"]
TABLE_RANKING = "d123 d84 d56 d6 d8 d9 d511 d129 d187 d25 d48 d250 d113 d3".split()
SLIDE_RANKING = "d123 d84 d56 d6 d8 d9 d511 d129 d187 d25 d38 d48 d250 d113 d3".split()
QRELS = pd.DataFrame({"qid": "q", "docno": RELEVANT, "rel": 1})


def _run(docnos, qid="q", run="seed002") -> pd.DataFrame:
    return pd.DataFrame({"run": run, "qid": qid, "docno": docnos, "score": np.arange(len(docnos), 0, -1.0)})


@pytest.mark.parametrize("ranking,last_rank", [(TABLE_RANKING, 14), (SLIDE_RANKING, 15)])
def test_seed002_recall_precision_pairs(ranking, last_rank):
    pts = pr_points(_run(ranking), QRELS)
    # (1/10, 1/1) (2/10, 2/3) (3/10, 3/6) (4/10, 4/10) (5/10, 5/14): derived from the definitions
    expected_ranks = [1, 3, 6, 10, last_rank]
    assert pts["docno"].tolist() == ["d123", "d56", "d9", "d25", "d3"]
    assert pts["rank"].tolist() == expected_ranks
    np.testing.assert_allclose(pts["recall"], [k / 10 for k in range(1, 6)], rtol=0, atol=1e-15)
    np.testing.assert_allclose(pts["precision"], [k / r for k, r in zip(range(1, 6), expected_ranks)],
                               rtol=0, atol=1e-15)
    assert (pts["x"] == pts["recall"]).all() and (pts["y"] == pts["precision"]).all()
    every = pr_points(_run(ranking), QRELS, at="rank")
    assert len(every) == len(ranking) and every["rank"].tolist() == list(range(1, len(ranking) + 1))
    assert every.loc[1, "precision"] == 0.5 and every.loc[1, "recall"] == 0.1  # d84: 1 of 2, 1 of 10


def test_seed002_two_query_average_table():
    q1 = [80, 80, 60, 60, 40, 40, 30, 30, 20, 20]
    q2 = [60, 50, 40, 30, 25, 20, 15, 10, 5, 5]
    per_query = pd.DataFrame([("sys", qid, f"IPrec@{level / 10:g}", value / 100)
                              for qid, values in (("1", q1), ("2", q2))
                              for level, value in zip(range(1, 11), values)],
                             columns=["run", "qid", "measure", "value"])
    avg = pr_curve(per_query)
    assert avg["qid"].eq("all").all() and avg["recall"].tolist() == pytest.approx([k / 10 for k in range(1, 11)])
    # ERRATA 2: at 90% and 100% recall the average of 20 and 5 is 12.5 (the seed prints 11.5)
    expected = [70, 65, 50, 45, 32.5, 30, 22.5, 20, 12.5, 12.5]
    np.testing.assert_allclose(avg["precision"] * 100, expected, rtol=0, atol=1e-12)
    both = pr_curve(per_query, per_topic=True)
    assert sorted(both["qid"].unique()) == ["1", "2", "all"]


def _trec_eval_file(path) -> pd.DataFrame:
    df = pd.read_csv(path, sep=r"\s+", header=None, names=["measure", "qid", "value"], dtype=str)
    return df[df["measure"].str.startswith("iprec_at_recall_")].assign(value=lambda d: d["value"].astype(float))


@pytest.fixture(scope="module")
def robust():
    qrels = pd.read_csv(reference_file(ROBUST_QRELS), sep=r"\s+", header=None, names=["qid", "it", "docno", "rel"],
                        dtype={"qid": str, "docno": str, "rel": int})
    runs = {name: pd.read_csv(robust_run(name), sep=r"\s+", header=None, usecols=[0, 2, 4],
                              names=["qid", "docno", "score"], dtype={"qid": str, "docno": str, "score": float})
            for name in ("InexpC2", "NLPR03vb10")}
    return qrels, runs


def test_interpolated_average_matches_trec_eval_all_rows(robust):
    qrels, runs = robust
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(zip(g["docno"], g["rel"])) for q, g in qrels.groupby("qid")}, {"iprec_at_recall"})
    for name, run in runs.items():
        res = evaluator.evaluate({q: dict(zip(g["docno"], g["score"])) for q, g in run.groupby("qid")})
        per_query = pd.DataFrame([(name, q, m, v) for q, ms in res.items() for m, v in ms.items()],
                                 columns=["run", "qid", "measure", "value"])
        curve = pr_curve(per_query)
        ref = _trec_eval_file(reference_file(f"{ROBUST}/reference_trec_eval_9.0.8/input.{name}.all_trec.q.txt.gz"))
        ref_all = ref[ref["qid"] == "all"].set_index("measure")["value"]
        assert curve["recall"].tolist() == list(IPREC_LEVELS)
        for level, precision in zip(curve["recall"], curve["precision"]):
            assert precision == pytest.approx(ref_all[f"iprec_at_recall_{level:.2f}"], abs=5e-5)


def _auc_oracle(ranked: pd.DataFrame, qrels: pd.DataFrame) -> float:
    """sklearn on the judged documents: retrieved ones scored by rank, the rest tied below them."""
    judged = qrels[qrels["rel"] >= 0].merge(ranked[["docno", "rank"]], on="docno", how="left")
    score = -judged["rank"].fillna(judged["rank"].max() + 1 if judged["rank"].notna().any() else 1)
    return roc_auc_score(judged["rel"] >= 1, score)


def test_roc_auc_matches_sklearn_and_the_average_curve_area_is_the_mean(robust):
    qrels, runs = robust
    run = pd.concat([r.assign(run=name) for name, r in runs.items()], ignore_index=True)
    curve = roc_curve(run, qrels)
    auc = roc_auc(curve)
    ranked = canonical_ranking(run)
    per_topic = auc[auc["qid"] != "all"]
    assert len(per_topic) == 200
    for (name, qid), value in per_topic.set_index(["run", "qid"])["auc"].items():
        sub = ranked[(ranked["run"] == name) & (ranked["qid"] == qid)]
        assert value == pytest.approx(_auc_oracle(sub, qrels[qrels["qid"] == qid]), abs=1e-12), (name, qid)
    means = per_topic.groupby("run")["auc"].mean()
    for name in runs:
        assert auc[(auc["run"] == name) & (auc["qid"] == "all")]["auc"].item() == pytest.approx(means[name], abs=1e-12)
    assert (curve["x"].between(0, 1) & curve["y"].between(0, 1)).all()
    assert {"fpr", "tpr"} <= set(curve.columns)


def test_roc_by_hand_with_and_without_num_docs():
    # ranking R U N R (U unjudged); one more relevant and one more judged non-relevant unretrieved
    run = _run(["r1", "u1", "n1", "r2"], qid="t")
    qrels = pd.DataFrame({"qid": "t", "docno": ["r1", "r2", "r3", "n1", "n2"], "rel": [1, 2, 1, 0, 0]})
    curve = roc_curve(run, qrels, average=False)
    np.testing.assert_allclose(curve[["x", "y"]].to_numpy(),
                               [(0, 0), (0, 1 / 3), (0.5, 1 / 3), (0.5, 2 / 3), (1, 1)], atol=1e-15)
    assert roc_auc(curve)["auc"].item() == pytest.approx(7 / 12)  # 3.5 of 6 pairs ordered correctly
    # -N 10: 7 negatives; the unjudged u1 is one of them; 5 negatives tie with r3 at the end
    big = roc_curve(run, qrels, num_docs=10, average=False)
    assert roc_auc(big)["auc"].item() == pytest.approx(29 / 42)  # (7 + 5 + 2.5) / 21
    assert roc_auc(roc_curve(run, qrels.assign(rel=[1, 1, 1, 2, 2]), rel_level=2))["auc"].iloc[0] == pytest.approx(
        _auc_oracle(canonical_ranking(run), qrels.assign(rel=[0, 0, 0, 1, 1])))


def test_engine_auc_equals_the_curve_area_with_and_without_num_docs(robust):
    from core.engine.evaluate import EvalOptions, evaluate_frames
    qrels, runs = robust
    run = pd.concat([r.assign(run=name) for name, r in runs.items()], ignore_index=True)
    for num_docs in (None, 528_155):
        engine = evaluate_frames(qrels, run, ["AUC"], EvalOptions(num_docs=num_docs)).per_query
        area = roc_auc(roc_curve(run, qrels, num_docs=num_docs, average=False))
        both = engine.merge(area, on=["run", "qid"])
        assert len(both) == 200
        np.testing.assert_allclose(both["value"], both["auc"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("compat,folder", [(9, "reference_trec_eval_9.0.8"), (10, "reference_trec_eval_10.0")])
def test_pr_curve_from_the_engine_matches_trec_eval_per_topic_and_all(robust, compat, folder):
    from core.analysis.curves import pr_curve_frames
    from core.engine.evaluate import EvalOptions
    qrels, runs = robust
    run = pd.concat([r.assign(run=name) for name, r in runs.items()], ignore_index=True)
    curve = pr_curve_frames(qrels, run, EvalOptions(compat=compat), per_topic=True)
    for name in runs:
        ref = _trec_eval_file(reference_file(f"{ROBUST}/{folder}/input.{name}.all_trec.q.txt.gz"))
        ref = ref.assign(x=ref["measure"].str.removeprefix("iprec_at_recall_").astype(float))
        got = curve[curve["run"] == name].merge(ref, on=["qid", "x"], validate="1:1")
        assert len(got) == 101 * 11
        np.testing.assert_allclose(got["y"], got["value"], rtol=0, atol=5e-5 + 1e-12)


def test_seed002_interpolated_curve_through_the_engine():
    from core.analysis.curves import pr_curve_frames
    curve = pr_curve_frames(QRELS, _run(TABLE_RANKING), per_topic=True)
    one = curve[curve["qid"] == "q"]
    # interpolated precision at recall r = the best precision at any recall >= r (derived by hand
    # from the pairs above); recall never passes 5/10, so 0.6..1.0 interpolate to 0
    expected = [1, 1, 2 / 3, 3 / 6, 4 / 10, 5 / 14, 0, 0, 0, 0, 0]
    np.testing.assert_allclose(one["precision"], expected, rtol=0, atol=1e-12)
    assert one["recall"].tolist() == list(IPREC_LEVELS)


def test_bad_curve_requests_are_eval_errors():
    from core.analysis.curves import pr_curve, pr_points
    from core.errors import EvalError
    per_query = pd.DataFrame({"run": ["r"], "qid": ["1"], "measure": ["AP"], "value": [0.5]})
    with pytest.raises(EvalError) as info:
        pr_curve(per_query)
    assert str(info.value) == ("The per-query table has no IPrec@r (iprec_at_recall_*) values for these runs. "
                               "Evaluate the measures from iprec_measures() first.")
    run = pd.DataFrame({"qid": ["1"], "docno": ["d"], "score": [1.0]})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1]})
    with pytest.raises(EvalError, match="at must be 'relevant' or 'rank', not 'every'"):
        pr_points(run, qrels, at="every")


@pytest.mark.parametrize("kwargs", [{}, {"num_docs": 528_155}, {"rel_level": 2, "per_topic": False}])
def test_roc_from_the_store_equals_roc_from_run_frames(tmp_path, kwargs):
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store
    from core.service.curves import roc_curve_stored
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        ids, names = runs["run_id"].astype(int).tolist(), runs["name"].astype(str).tolist()
        qrels = store.qrels(store.default_qrels_id(SAMPLE_COLLECTION))
        frame = pd.concat([store.run_rows(i).assign(run=n) for i, n in zip(ids, names)], ignore_index=True)
        stored = roc_curve_stored(store, SAMPLE_COLLECTION, ids[::-1], **kwargs)
        one = roc_curve_stored(store, SAMPLE_COLLECTION, ids[:1], **kwargs)
    expected = roc_curve(frame, qrels, **kwargs)
    assert len(expected) > 1000 and set(expected["run"]) == set(names)
    pd.testing.assert_frame_equal(stored, expected, check_dtype=False)
    pd.testing.assert_frame_equal(one, expected[expected["run"] == names[0]].reset_index(drop=True),
                                  check_dtype=False)


def test_roc_from_the_store_rejects_unknown_runs_and_an_empty_selection(tmp_path):
    from core.service.curves import roc_curve_stored
    from core.errors import EvalError
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store
    with sample_store(tmp_path) as store:
        with pytest.raises(EvalError, match="Run id.s. 999999 are not in collection"):
            roc_curve_stored(store, SAMPLE_COLLECTION, [999999])
        store.create_collection("empty")
        with pytest.raises(EvalError, match="No runs selected"):
            roc_curve_stored(store, "empty", [])


def test_vertical_average_by_hand():
    # topic a: (0,0) (0,1) (1,1); topic b: (0,0) (1,0) (1,1): the average jumps to 0.5 at 0, stays, jumps at 1
    curve = pd.DataFrame({"run": "r", "qid": ["a"] * 3 + ["b"] * 3, "x": [0, 0, 1, 0, 1, 1.0],
                          "y": [0, 1, 1, 0, 0, 1.0]})
    from core.analysis.curves import with_average
    avg = with_average(curve, average=True, per_topic=False)
    np.testing.assert_allclose(avg[["x", "y"]].to_numpy(), [(0, 0), (0, 0.5), (1, 0.5), (1, 1)])
    assert roc_auc(avg)["auc"].item() == pytest.approx(0.5)


def test_pr_from_the_store_equals_pr_from_run_frames(tmp_path):
    from core.analysis.curves import pr_curve_frames
    from core.service.curves import pr_curve_stored
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        ids, names = runs["run_id"].astype(int).tolist(), runs["name"].astype(str).tolist()
        qrels = store.qrels(store.default_qrels_id(SAMPLE_COLLECTION))
        frame = pd.concat([store.run_rows(i).assign(run=n) for i, n in zip(ids, names)], ignore_index=True)
        stored = pr_curve_stored(store, SAMPLE_COLLECTION, ids, per_topic=True)
    expected = pr_curve_frames(qrels, frame, per_topic=True)
    assert set(stored["run"]) == set(names) and (stored["qid"] == "all").sum() == 11 * len(names)
    pd.testing.assert_frame_equal(stored, expected, check_dtype=False)


def test_stored_roc_keeps_topics_whose_retrieved_documents_are_all_unjudged(tmp_path):
    """The stored ROC reads judged rows only; a topic the run answered with unjudged documents alone still
    has its (0,0)-(1,1) curve, as from the run frame, so the run's average is the same."""
    from core.service.curves import roc_curve_stored
    from core.store.store import Store
    qrels = b"1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n3 0 d5 1\n3 0 d6 0\n"
    run = b"1 Q0 d2 1 3.0 r\n1 Q0 d1 2 2.0 r\n1 Q0 dx 3 1.0 r\n2 Q0 dy 1 5.0 r\n2 Q0 dz 2 4.0 r\n"
    with Store.open(tmp_path / "s.duckdb", load_sample=False) as store:
        store.create_collection("c")
        store.add_qrels("c", qrels, filename="q")
        rid = store.add_run("c", run, filename="r").id
        stored = roc_curve_stored(store, "c", [rid])
        frame = store.run_rows(rid).assign(run="r")
        expected = roc_curve(frame, store.qrels(store.default_qrels_id("c")))
    assert set(stored.loc[stored["qid"] != "all", "qid"]) == {"1", "2"}       # topic 3 was not retrieved
    pd.testing.assert_frame_equal(stored, expected, check_dtype=False)
