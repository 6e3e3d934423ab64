"""trec_eval's order (core.engine.stage1.order): the numpy form against a plain Python sort, and against its SQL form."""
import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.stage1.order import canonical_ranks, rank_sql, topic_codes


def naive_ranks(qids, docnos, scores, ties="desc"):
    """trec_eval's order per topic: score descending, then docno descending by bytes (ascending with ties="asc")."""
    ranks = [0] * len(qids)
    for q in set(qids):
        rows = [i for i in range(len(qids)) if qids[i] == q]
        rows.sort(key=lambda i: docnos[i].encode(), reverse=ties == "desc")
        rows.sort(key=lambda i: -scores[i])                     # stable: ties keep docno descending
        for k, i in enumerate(rows):
            ranks[i] = k + 1
    return ranks


@st.composite
def runs(draw):
    n_topics = draw(st.integers(1, 4))
    rows = draw(st.lists(st.tuples(st.integers(0, n_topics - 1), st.sampled_from(["d1", "d2", "d10", "D3", "é", "a b", "z", "d02"]),
                                   st.sampled_from([0.0, -1.5, 1.0, 1.0, 2.5, 1e-300, 3.0])), min_size=0, max_size=40,
                         unique_by=lambda r: (r[0], r[1])))
    if draw(st.booleans()):                                      # the usual file layout: topic blocks, best first
        rows.sort(key=lambda r: (r[0], -r[2]))
    return [str(r[0]) for r in rows], [r[1] for r in rows], [r[2] for r in rows]


@settings(max_examples=300, deadline=None)
@given(runs(), st.data(), st.sampled_from(["desc", "asc"]))
def test_ranks_equal_a_plain_sort(run, data, ties):
    qids, docnos, scores = run
    codes, _ = topic_codes(pa.array(qids, pa.string()))
    expected = naive_ranks(qids, docnos, scores, ties)
    got = canonical_ranks(codes, np.array(scores, dtype=np.float64), pa.array(docnos, pa.string()), ties=ties)
    assert got.tolist() == expected
    rows = data.draw(st.lists(st.integers(0, max(len(qids) - 1, 0)), unique=True, max_size=len(qids)))
    some = canonical_ranks(codes, np.array(scores, dtype=np.float64), pa.array(docnos, pa.string()),
                           rows=np.array(rows, dtype=np.int64), ties=ties)
    assert some.tolist() == [expected[i] for i in rows]


@pytest.mark.parametrize("ties", ["desc", "asc"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_ranks_equal_the_sql_window_on_a_real_run(shuffle, ties):
    import gzip
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "runs" / "input.pircRBa1.gz"
    lines = [line.split() for line in gzip.decompress(path.read_bytes()).decode().splitlines() if line.strip()]
    if shuffle:
        lines = [lines[i] for i in np.random.default_rng(7).permutation(len(lines))]
    table = pa.table({"qid": [f[0] for f in lines], "docno": [f[2] for f in lines],
                      "score": np.array([float(f[4]) for f in lines]), "i": np.arange(len(lines))})
    con = duckdb.connect()
    con.register("t", table)
    sql = con.execute("SELECT " + rank_sql("qid", ties) + " AS r, i FROM t ORDER BY i").fetchnumpy()["r"]
    codes, _ = topic_codes(table["qid"])
    assert canonical_ranks(codes, table["score"].to_numpy(), table["docno"], ties=ties).tolist() == sql.tolist()


def test_topic_codes_are_first_seen_order_over_chunks():
    qid = pa.chunked_array([pa.array(["3", "1"]), pa.array(["1", "2", "3"])])
    codes, distinct = topic_codes(qid)
    assert codes.tolist() == [0, 1, 1, 2, 0]
    assert distinct.to_pylist() == ["3", "1", "2"]


DOC_CHARS = st.sampled_from(["a", "b", "z", "A", "0", "9", " ", "é", "ü", "\x7f", "€", "😀"])   # byte order != code order


@st.composite
def tied_runs(draw):
    """Runs made of tied runs of chosen lengths (pairs, the usual tie, up to 12 rows), each topic's docnos distinct; in file order or shuffled; docno in one or several chunks."""
    qids, docnos, scores = [], [], []
    for topic in range(draw(st.integers(1, 3))):
        sizes = draw(st.lists(st.sampled_from([1, 2, 2, 2, 3, 4, 5, 8, 9, 12]), min_size=1, max_size=6))
        names = draw(st.lists(st.text(DOC_CHARS, min_size=1, max_size=4), min_size=sum(sizes), max_size=sum(sizes),
                              unique=True))
        for k, size in enumerate(sizes):
            qids += [f"q{topic}"] * size
            scores += [float(len(sizes) - k) / 4] * size
        docnos += names
    order = np.arange(len(qids))
    if draw(st.booleans()):
        order = np.array(draw(st.permutations(list(range(len(qids))))), dtype=np.int64)
    qids, docnos, scores = [qids[i] for i in order], [docnos[i] for i in order], [scores[i] for i in order]
    cuts = sorted(draw(st.lists(st.integers(0, len(docnos)), max_size=3)))
    bounds = [0] + cuts + [len(docnos)]
    chunked = pa.chunked_array([pa.array(docnos[a:b], pa.string()) for a, b in zip(bounds, bounds[1:])], pa.string())
    return qids, docnos, scores, chunked


@settings(max_examples=300, deadline=None)
@given(tied_runs(), st.data())
def test_tied_runs_of_every_length_rank_like_a_plain_sort(run, data):
    qids, docnos, scores, chunked = run
    codes, _ = topic_codes(pa.array(qids, pa.string()))
    score = np.array(scores, dtype=np.float64)
    expected = naive_ranks(qids, docnos, scores)
    assert canonical_ranks(codes, score, chunked).tolist() == expected
    # any rows, in any order, repeated or not
    rows = data.draw(st.lists(st.integers(0, len(qids) - 1), max_size=2 * len(qids)))
    got = canonical_ranks(codes, score, chunked, rows=np.array(rows, dtype=np.int64))
    assert got.tolist() == [expected[i] for i in rows]


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_arrow_provider_equals_the_sql_provider(shuffle):
    """Stage 1 in Arrow (DuckDB join, numpy ranks of the judged rows only) against the plain SQL stage (rank every
    row with rank_sql, then join): the same rankings, hence the same values."""
    import gzip
    from pathlib import Path

    import pandas as pd

    from core.engine.stage2 import evaluate_rankings
    from core.engine.stage1 import ArrowRun, Tables, rankings

    data = Path(__file__).resolve().parents[2] / "data"
    lines = [line.split() for line in gzip.decompress((data / "runs" / "input.pircRBa1.gz").read_bytes()).decode().splitlines()]
    if shuffle:
        lines = [lines[i] for i in np.random.default_rng(5).permutation(len(lines))]
    run = pa.table({"qid": [f[0] for f in lines], "docno": [f[2] for f in lines], "score": np.array([float(f[4]) for f in lines])})
    q = [line.split() for line in gzip.decompress((data / "qrels.robust03.txt.gz").read_bytes()).decode().splitlines()]
    qrels = pa.table({"qid": [f[0] for f in q], "docno": [f[2] for f in q], "rel": np.array([int(f[3]) for f in q])})
    con = duckdb.connect()
    con.register("q", qrels)
    con.register("r", run)
    measures = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Rprec", "Bpref", "num_rel_ret"]
    a = evaluate_rankings(rankings(ArrowRun(run, qrels, "r")), measures)
    b = evaluate_rankings(rankings(Tables(con, "r", "q", run_name="r")), measures)
    pd.testing.assert_frame_equal(a.per_query, b.per_query)
    assert len(a.per_query) > 0


def _orders_like_lexsort(rows):
    from core.engine.stage1.order import by_topic_and_score

    codes = np.array([c for c, _ in rows], dtype=np.int32)
    score = np.array([s for _, s in rows], dtype=np.float64)
    got, plain = by_topic_and_score(codes, score), np.lexsort((-score, codes))
    assert sorted(got.tolist()) == list(range(len(rows)))
    assert codes[got].tolist() == codes[plain].tolist()
    assert np.array_equal(score[got], score[plain], equal_nan=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, -0.0, -1.5, 1.0, 2.5, 1e-300, -1e300])), max_size=60))
def test_the_topic_and_score_sort_orders_like_lexsort(rows):
    """by_topic_and_score (DuckDB's sort) puts rows in the order np.lexsort((-score, codes)) does, up to equal
    scores."""
    _orders_like_lexsort(rows)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1.0, -2.0, float("inf"), float("-inf"), float("nan")])),
                max_size=30))
def test_the_topic_and_score_sort_of_scores_not_all_finite_orders_like_lexsort(rows):
    """With an infinite or NaN score, pyarrow's sort: NaN last in its topic, as lexsort puts it."""
    _orders_like_lexsort(rows)


@pytest.mark.parametrize("shuffle", [False, True])
def test_ranking_beside_the_join_equals_ranking_the_judged_rows_after_it(shuffle):
    """arrow_rankings ranks every row on a second thread while DuckDB joins, then takes the judged rows' ranks; its
    plain equivalent ranks only the judged rows after the join (overlap=False). The same Rankings."""
    import gzip
    from pathlib import Path

    from core.engine.stage1.arrow import arrow_rankings

    data = Path(__file__).resolve().parents[2] / "data"
    lines = [line.split() for line in gzip.decompress((data / "runs" / "input.pircRBa1.gz").read_bytes()).decode()
             .splitlines() if line.strip()]
    if shuffle:
        lines = [lines[i] for i in np.random.default_rng(11).permutation(len(lines))]
    run = pa.table({"qid": [f[0] for f in lines], "docno": [f[2] for f in lines],
                    "score": np.array([float(f[4]) for f in lines])})
    qrels = [line.split() for line in gzip.decompress((data / "qrels.robust03.txt.gz").read_bytes()).decode()
             .splitlines() if line.strip()]
    con = duckdb.connect()
    con.register("q", pa.table({"qid": [f[0] for f in qrels], "docno": [f[2] for f in qrels],
                                "rel": pa.array([int(f[3]) for f in qrels], pa.int32())}))
    a, b = (arrow_rankings(con, run, "q", "r", overlap=o) for o in (True, False))
    assert a.groups.equals(b.groups) and len(a.g) > 1000
    for field in ("num_ret", "g", "rank", "rel"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
