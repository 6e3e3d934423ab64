"""Per-query analysis: deltas, Kendall's tau over the union, RBO_ext, and the side-by-side view."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sp

from core.analysis.perquery import how_different, query_deltas, ranking_differences, side_by_side
from core.service.perquery import how_different_stored, side_by_side_stored
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store


def _ranking(lists: dict) -> pd.DataFrame:
    return pd.DataFrame([(qid, d, float(len(docs) - i)) for qid, docs in lists.items() for i, d in enumerate(docs)],
                        columns=["qid", "docno", "score"])


def _rbo_reference(S: list, T: list, p: float) -> float:
    """Webber, Moffat & Zobel 2010, eq. (32), transcribed with Python sets (a test-only loop)."""
    if len(S) > len(T):
        S, T = T, S
    s, l = len(S), len(T)
    X = {d: len(set(S[:d]) & set(T[:d])) for d in range(1, l + 1)}
    total = sum(X[d] / d * p ** d for d in range(1, l + 1))
    total += sum(X[s] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    return (1 - p) / p * total + ((X[l] - X[s]) / l + X[s] / s) * p ** l


def test_rbo_hand_worked_and_extremes():
    lists_a = {"swap": list("abcd"), "same": list("abcdef"), "disjoint": list("abc"), "short": list("ab")}
    lists_b = {"swap": list("badc"), "same": list("abcdef"), "disjoint": list("xyz"), "short": list("abcd")}
    diff = ranking_differences(_ranking(lists_a), _ranking(lists_b), depth=None).set_index("qid")
    # X_1..X_4 = 0, 2, 2, 4: (1-p)/p (0.81 + 2/3 0.729 + 0.6561) + 0.9^4
    assert diff.loc["swap", "rbo"] == pytest.approx(0.1 / 0.9 * (0.81 + 0.486 + 0.6561) + 0.6561, abs=1e-12)
    assert diff.loc["same", "rbo"] == pytest.approx(1.0, abs=1e-12)
    assert diff.loc["disjoint", "rbo"] == 0.0
    # a prefix of the other list: the extrapolation assumes agreement continues, so RBO_ext = 1
    assert diff.loc["short", "rbo"] == pytest.approx(1.0, abs=1e-12)
    assert diff.loc["same", "kendall_tau"] == pytest.approx(1.0) and diff.loc["disjoint", "kendall_tau"] < 0
    assert diff["overlap"].to_dict() == {"disjoint": 0, "same": 6, "short": 2, "swap": 4}


def test_rbo_matches_the_transcribed_formula_on_random_uneven_lists():
    rng = np.random.default_rng(11)
    pool = [f"D{i}" for i in range(40)]
    lists_a, lists_b = {}, {}
    for k in range(40):
        lists_a[f"q{k}"] = list(rng.permutation(pool)[: rng.integers(1, 30)])
        lists_b[f"q{k}"] = list(rng.permutation(pool)[: rng.integers(1, 30)])
    for p in (0.9, 0.5):
        got = ranking_differences(_ranking(lists_a), _ranking(lists_b), depth=None, p=p).set_index("qid")["rbo"]
        for q in lists_a:
            assert got[q] == pytest.approx(_rbo_reference(lists_a[q], lists_b[q], p), abs=1e-12), (q, p)


def test_kendall_tau_is_over_the_union_with_absent_documents_tied_last():
    a, b = list("abcde"), list("cabxy")
    got = ranking_differences(_ranking({"1": a}), _ranking({"1": b}), depth=None)["kendall_tau"].item()
    union = ["a", "b", "c", "d", "e", "x", "y"]
    ra = [a.index(d) + 1 if d in a else 6 for d in union]
    rb = [b.index(d) + 1 if d in b else 6 for d in union]
    assert got == pytest.approx(sp.kendalltau(ra, rb).statistic, abs=1e-12)
    # depth truncates both lists before anything is compared
    top2 = ranking_differences(_ranking({"1": a}), _ranking({"1": b}), depth=2)
    assert top2["overlap"].item() == 1


def test_query_deltas_sorted_with_text_and_how_different():
    per_query = pd.DataFrame({"run": ["A"] * 3 + ["B"] * 3, "qid": ["1", "2", "3"] * 2, "measure": "AP",
                              "value": [0.5, 0.2, 0.9, 0.7, 0.1, 0.3]})
    topics = pd.DataFrame({"qid": ["1", "2", "3"], "text": ["one", "two", "three"]})
    deltas = query_deltas(per_query, "A", "B", "AP", topics=topics)
    assert deltas["qid"].tolist() == ["1", "2", "3"] and deltas["text"].tolist() == ["one", "two", "three"]
    np.testing.assert_allclose(deltas["delta"], [0.2, -0.1, -0.6], atol=1e-12)
    rank_a = _ranking({"1": list("abc"), "2": list("abc"), "3": list("abc")})
    rank_b = _ranking({"1": list("abc"), "2": list("cba"), "3": list("xyz")})
    diff = how_different(per_query, rank_a, rank_b, "A", "B", "AP", topics=topics)
    assert diff["qid"].tolist() == ["3", "1", "2"]  # largest |delta| first
    assert diff.set_index("qid").loc["3", "rbo"] == 0.0


def test_side_by_side_frames():
    ra = _ranking({"7": ["d1", "d2", "d3"]})
    rb = _ranking({"7": ["d3", "d9"]})
    qrels = pd.DataFrame({"qid": ["7", "7"], "docno": ["d2", "d9"], "rel": [2, 0]})
    left, right = side_by_side(ra, rb, qrels, "7", documents={"d3": "text of d3"})
    assert list(left.columns) == ["rank", "docno", "score", "grade", "other_rank", "text"]
    assert left["grade"].tolist() == [None, 2, None] and left["other_rank"].tolist() == [None, None, 1]
    assert right["grade"].tolist() == [None, 0] and right["other_rank"].tolist() == [3, None]
    assert left["text"].tolist() == [None, None, "text of d3"]


def test_side_by_side_from_the_store_agrees_with_frames(tmp_path):
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        a, b = int(runs["run_id"].iloc[0]), int(runs["run_id"].iloc[1])
        docs = "docno\ttext\nFBIS3-10082\tA document about something.\n"
        store.add_documents(SAMPLE_COLLECTION, docs.encode(), filename="docs.tsv")
        qid = "303"
        left, right = side_by_side_stored(store, SAMPLE_COLLECTION, a, b, qid)
        qrels = store.qrels(store.default_qrels_id(SAMPLE_COLLECTION))
        want_l, want_r = side_by_side(store.run_rows(a), store.run_rows(b), qrels, qid,
                                      documents=store.document_text(SAMPLE_COLLECTION, ["FBIS3-10082"]))
        for got, want in ((left, want_l), (right, want_r)):
            assert got["docno"].tolist() == want["docno"].tolist() and got["rank"].tolist() == want["rank"].tolist()
            assert got["grade"].tolist() == want["grade"].tolist()
            assert got["other_rank"].tolist() == want["other_rank"].tolist()
            assert got["text"].tolist() == want["text"].tolist()
        assert left["grade"].notna().any() and left["other_rank"].notna().any()
        diff = ranking_differences(store.run_rows(a), store.run_rows(b), depth=100)
        assert len(diff) == 100 and diff["rbo"].between(0, 1).all()


def _matches_scipy(both: pd.DataFrame, got: pd.Series) -> int:
    """Assert each topic's value is scipy's tau-b on its union list (absent documents tied after each list);
    return how many topics had a defined value."""
    checked = 0
    for qid, g in both.groupby("qid"):
        a, b = g["rank_a"].to_numpy(float), g["rank_b"].to_numpy(float)
        a = np.where(np.isnan(a), np.nanmax(a, initial=0) + 1, a)
        b = np.where(np.isnan(b), np.nanmax(b, initial=0) + 1, b)
        want = sp.kendalltau(a, b).statistic if len(g) > 1 else np.nan
        if np.isnan(want):
            assert np.isnan(got[qid]), qid
        else:
            assert got[qid] == pytest.approx(want, abs=1e-12), qid
            checked += 1
    return checked


def test_kendall_with_tied_ranks_equals_scipy_per_topic():
    """Lists with tied ranks (not rankings) go through scipy per topic: the value is scipy's tau-b, including
    one-item and all-tied topics."""
    from core.analysis.perquery import _kendall_rankings, kendall_union

    rng = np.random.default_rng(3)
    rows = []
    for t in range(200):
        for _ in range(int(rng.integers(0, 30))):
            ra = float(rng.integers(1, 20)) if rng.random() < 0.8 else np.nan
            rb = float(rng.integers(1, 20)) if rng.random() < 0.8 else np.nan
            rows.append((f"q{t}", 1.0 if np.isnan(ra) and np.isnan(rb) else ra, rb))
    rows += [("same", 1.0, 1.0), ("same", 1.0, 2.0)]                  # a tied in a: tau-b undefined
    both = pd.DataFrame(rows, columns=["qid", "rank_a", "rank_b"])
    assert _kendall_rankings(both) is None                            # tied ranks: the scipy path
    assert _matches_scipy(both, kendall_union(both)) > 100


@pytest.mark.parametrize("depth", [10, 100])
def test_how_different_from_the_store_equals_it_from_run_frames(tmp_path, depth):
    """The store joins the two top-depth lists in SQL; the result is the frames' result, row for row."""
    from core.service.evaluate import evaluate_stored

    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        (a, name_a), (b, name_b) = [(int(r.run_id), str(r.name)) for r in runs.iloc[[0, 3]].itertuples()]
        per_query = evaluate_stored(store, SAMPLE_COLLECTION, [a, b], ["AP"]).per_query
        topics = store.topics(SAMPLE_COLLECTION)
        got = how_different_stored(store, per_query, a, b, name_a, name_b, "AP", topics=topics, depth=depth)
        want = how_different(per_query, store.run_rows(a), store.run_rows(b), name_a, name_b, "AP", topics=topics,
                             depth=depth)
    assert len(got) == 100 and got["kendall_tau"].notna().all()
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_exact=False, rtol=1e-12)


def test_kendall_on_rankings_takes_the_vectorised_path_and_equals_scipy():
    """Two top-k rankings per topic (distinct ranks, random overlap, either list possibly empty): the
    vectorised tau-b equals scipy's on the union list with absent documents tied after each list."""
    from core.analysis.perquery import _kendall_rankings, _union_ranks

    rng = np.random.default_rng(11)
    lists_a, lists_b = {}, {}
    for t in range(150):
        pool = [f"d{i}" for i in range(int(rng.integers(1, 40)))]
        lists_a[str(t)] = list(rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))])
        lists_b[str(t)] = list(rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))])
    lists_a = {k: v for k, v in lists_a.items() if v}
    lists_b = {k: v for k, v in lists_b.items() if v}
    both = _union_ranks(_ranking(lists_a), _ranking(lists_b), None)
    fast = _kendall_rankings(both)
    assert fast is not None
    assert _matches_scipy(both, fast) > 100
