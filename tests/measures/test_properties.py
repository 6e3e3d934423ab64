"""Properties of the measures engine (hypothesis), with tests/oracle.py as the reference.

* normalised measures stay in [0, 1];
* a perfect ranking scores 1 (AP, nDCG@k in all three DCG forms, RR, Rprec, P@k when R >= k);
* swapping the scores of two documents with the same label changes nothing;
* the input's row order and rank column are ignored (frames and files);
* ties are broken by docno descending, byte-wise, as trec_eval does.
"""
from __future__ import annotations

import random

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from core.engine.evaluate import EvalOptions, evaluate_files, evaluate_frames
from core.measures import parse_measure

# the same profile as tests/golden/test_differential.py (load_profile is global to the session)
settings.register_profile(
    "rankboard", deadline=None, max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("rankboard")

NORMALISED = [
    "AP", "AP@5", "AP(norm='found')@5", "P@1", "P@5", "R@5", "Rcap@5", "nDCG", "nDCG@5",
    "nDCG(dcg='jk')@5", "nDCG(dcg='exp-log2')@5", "RR", "RR@3", "Rprec", "Bpref", "IPrec@0.0",
    "IPrec@0.5", "IPrec@1.0", "Success@3", "SetP", "SetR", "SetF", "SetF(beta=2)", "SetFbeta(beta=2)",
    "F@5", "F(beta=0.5)@5", "E(beta=2)@5", "Judged@5", "Judged", "JudgedK@5", "AUC", "infAP",
]
ALL = NORMALISED + ["DCG@5", "DCG(dcg='jk')@5", "NumRet", "NumRel", "NumRelRet"]
DOCS = [f"d{i}" for i in range(14)] + ["D3", "a", "d1x"]


@st.composite
def one_query(draw, min_rel=0):
    """(qrels {docno: grade}, run {docno: score}) for one topic, grades -1..4, tied scores."""
    judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
    qrels = {d: draw(st.integers(-1, 4)) for d in judged}
    if sum(1 for g in qrels.values() if g >= 1) < min_rel:
        qrels[judged[0]] = draw(st.integers(1, 4))
    if all(g < 0 for g in qrels.values()):
        qrels[judged[0]] = 0          # trec_eval's undefined case; see test_differential
    docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=14))
    run = {d: draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5])) for d in docs}
    return qrels, run


def frames(qrels: dict, run: dict, qid="q1", rank=None):
    q = pd.DataFrame([(qid, d, g) for d, g in qrels.items()], columns=["qid", "docno", "rel"])
    rows = [("sys", qid, d, s) for d, s in run.items()]
    r = pd.DataFrame(rows, columns=["run", "qid", "docno", "score"])
    if rank is not None:
        r["rank"] = rank
    return q, r


def engine(qrels, run, measures, rel_level=1, rank=None, shuffle_seed=None):
    q, r = frames(qrels, run, rank=rank)
    if shuffle_seed is not None:
        r = r.sample(frac=1.0, random_state=shuffle_seed).reset_index(drop=True)
    res = evaluate_frames(q, r, list(measures), EvalOptions(rel_level=rel_level))
    canon = {parse_measure(m).name: m for m in measures}
    return {canon[row.measure]: row.value for row in res.per_query.itertuples() if row.qid == "q1"}


@given(data=one_query(), rel_level=st.sampled_from([1, 2]))
def test_normalised_measures_stay_in_unit_interval(data, rel_level):
    qrels, run = data
    got = engine(qrels, run, NORMALISED, rel_level)
    out = {m: v for m, v in got.items() if not (-1e-12 <= v <= 1 + 1e-12)}
    assert out == {}, f"qrels={qrels!r} run={run!r} rel_level={rel_level}"


@given(data=one_query(min_rel=1), k=st.integers(1, 6), rel_level=st.sampled_from([1, 2]))
def test_perfect_ranking_scores_one(data, k, rel_level):
    """Judged documents sorted by grade (best first), then the unjudged: a perfect ranking."""
    qrels, _ = data
    if not any(g >= rel_level for g in qrels.values()):
        qrels = {**qrels, "zz": rel_level}
    ordered = sorted(qrels, key=lambda d: -qrels[d])
    run = {d: float(100 - i) for i, d in enumerate(ordered)}
    run |= {"x1": 0.0, "x2": -1.0}                     # unjudged documents at the bottom
    n_rel = sum(1 for g in qrels.values() if g >= rel_level)
    measures = ["AP", "RR", "Rprec", f"nDCG@{k}", f"nDCG(dcg='jk')@{k}", f"nDCG(dcg='exp-log2')@{k}", "nDCG"]
    if n_rel >= k:
        measures.append(f"P@{k}")
    got = engine(qrels, run, measures, rel_level)
    assert got == pytest.approx({m: 1.0 for m in measures}, abs=1e-12), f"qrels={qrels!r} rel_level={rel_level}"


@given(data=one_query(), seed=st.integers(0, 10_000), rel_level=st.sampled_from([1, 2]))
def test_swapping_two_documents_with_the_same_label_changes_nothing(data, seed, rel_level):
    """Exchange the ranks of two documents with the same label. (Exchanging their *scores*
    would not do: inside a tie group the docno decides, so others could move too.)"""
    qrels, run = data
    order = oracle.canonical_order(run)
    run = {d: float(len(order) - i) for i, d in enumerate(order)}   # same order, no ties
    by_label: dict = {}
    for d in order:
        by_label.setdefault(qrels.get(d, "unjudged"), []).append(d)
    pairs = [docs for docs in by_label.values() if len(docs) >= 2]
    if not pairs:
        run = {**run, "x1": 100.0, "x2": -100.0}        # two unjudged documents to swap
        pairs = [["x1", "x2"]]
    rnd = random.Random(seed)
    a, b = rnd.sample(rnd.choice(pairs), 2)
    swapped = {**run, a: run[b], b: run[a]}
    before = engine(qrels, run, ALL, rel_level)
    after = engine(qrels, swapped, ALL, rel_level)
    assert after == pytest.approx(before, abs=1e-12), f"swap {a}<->{b} qrels={qrels!r} run={run!r}"


@given(data=one_query(), seed=st.integers(0, 10_000))
def test_row_order_is_ignored(data, seed):
    qrels, run = data
    assert engine(qrels, run, ALL, shuffle_seed=seed) == pytest.approx(engine(qrels, run, ALL), abs=1e-12)


@given(data=one_query(), seed=st.integers(0, 10_000))
def test_rank_column_of_a_frame_is_ignored(data, seed):
    """A run frame straight from a TREC file carries the file's rank column; it must not
    change anything (trec_eval ignores it and sorts by score, docno)."""
    qrels, run = data
    ranks = list(range(1, len(run) + 1))
    random.Random(seed).shuffle(ranks)
    with_rank = engine(qrels, run, ALL, rank=ranks)
    assert with_rank == pytest.approx(engine(qrels, run, ALL), abs=1e-12), (
        f"file ranks {ranks} changed the result; qrels={qrels!r} run={run!r}")


def test_rank_column_of_a_file_is_ignored(tmp_path):
    """The same run written twice, with the honest ranks and with reversed ranks."""
    qrels = {"d1": 1, "d2": 0, "d3": 2, "d4": 1}
    run = {"d1": 0.5, "d2": 3.0, "d3": 1.0, "d4": 1.0, "d5": 2.0}
    (tmp_path / "qrels").write_text("".join(f"q1 0 {d} {g}\n" for d, g in qrels.items()))
    order = oracle.canonical_order(run)
    honest = "".join(f"q1 Q0 {d} {i} {run[d]} sys\n" for i, d in enumerate(order, start=1))
    reverse = "".join(f"q1 Q0 {d} {len(order) - i + 1} {run[d]} sys\n" for i, d in enumerate(order, start=1))
    (tmp_path / "honest.run").write_text(honest)
    (tmp_path / "reverse.run").write_text(reverse)
    measures = ["AP", "P@1", "RR", "nDCG@3"]
    res = [evaluate_files(str(tmp_path / "qrels"), [str(tmp_path / f)], measures, EvalOptions())
           for f in ("honest.run", "reverse.run")]
    vals = [{(r.measure): r.value for r in x.per_query.itertuples()} for x in res]
    assert vals[0] == pytest.approx(vals[1], abs=1e-12)
    # and they are the oracle's values: d2 (0), d5 (unjudged), then d4 before d3 (tie, docno desc), d1
    q = oracle.Query([qrels.get(d) for d in order], list(qrels.values()))
    assert order == ["d2", "d5", "d4", "d3", "d1"]
    assert vals[0] == pytest.approx({parse_measure(m).name: oracle.measure(m, q) for m in measures}, abs=1e-12)


TIE_CASES = [
    # (qrels, run, measure, expected, why)
    ({"d1": 1, "d2": 0}, {"d1": 1.0, "d2": 1.0}, "P@1", 0.0, "d2 > d1: the non-relevant d2 comes first"),
    ({"d1": 1, "d2": 0}, {"d1": 1.0, "d2": 1.0}, "RR", 1 / 2, "relevant d1 at rank 2"),
    ({"d10": 1, "d9": 0}, {"d10": 2.0, "d9": 2.0}, "RR", 1 / 2, "'d9' > 'd10' byte-wise, not numerically"),
    ({"10": 1, "9": 0}, {"10": 0.0, "9": 0.0}, "P@1", 0.0, "numeric-looking docnos stay strings: '9' > '10'"),
    ({"a": 1, "B": 0}, {"a": 1.0, "B": 1.0}, "P@1", 1.0, "byte order: 'a' (0x61) > 'B' (0x42)"),
    ({"x": 1, "y": 2, "z": 0}, {"x": 5.0, "y": 5.0, "z": 5.0}, "AP", (1 / 2 + 2 / 3) / 2,
     "all tied: z, y, x"),
    ({"x": 1, "y": 2, "z": 0}, {"x": 5.0, "y": 5.0, "z": 5.0}, "nDCG@2",
     (2 / oracle.math.log2(3)) / (2 + 1 / oracle.math.log2(3)), "z (0), y (2) in the top 2"),
    ({"d1": 1, "d2": 0, "d3": 0}, {"d1": 3.0, "d2": 1.0, "d3": 1.0}, "P@2", 1 / 2,
     "the score decides first, the docno only within a tie"),
]


@pytest.mark.parametrize("qrels,run,measure,expected,why", TIE_CASES, ids=[c[4] for c in TIE_CASES])
def test_ties_broken_by_docno_descending(qrels, run, measure, expected, why):
    q = oracle.Query([qrels.get(d) for d in oracle.canonical_order(run)], list(qrels.values()))
    assert oracle.measure(measure, q) == pytest.approx(expected, abs=1e-12), why
    assert engine(qrels, run, [measure])[measure] == pytest.approx(expected, abs=1e-12), why


@given(data=one_query(), rel_level=st.sampled_from([1, 2]))
def test_engine_equals_oracle_on_one_query(data, rel_level):
    """Everything at once, on a single topic, against the oracle."""
    qrels, run = data
    got = engine(qrels, run, ALL, rel_level)
    q = oracle.Query([qrels.get(d) for d in oracle.canonical_order(run)], list(qrels.values()), rel_level)
    exp = {m: oracle.measure(m, q) for m in ALL}
    bad = {m: (got.get(m), exp[m]) for m in ALL if not got.get(m) == pytest.approx(exp[m], abs=1e-9)}
    assert bad == {}, f"(engine, oracle) qrels={qrels!r} run={run!r} rel_level={rel_level}"


@given(a=one_query(), b=one_query())
def test_runs_in_one_frame_are_evaluated_independently(a, b):
    """Two systems in one run frame give what each gives alone (partition by run, qid)."""
    qrels, run_a = a
    _, run_b = b
    q, ra = frames(qrels, run_a)
    _, rb = frames(qrels, run_b)
    rb["run"] = "other"
    both = evaluate_frames(q, pd.concat([ra, rb], ignore_index=True), ALL, EvalOptions())
    got = {(r.run, r.measure): r.value for r in both.per_query.itertuples()}
    for name, alone in (("sys", run_a), ("other", run_b)):
        for m, v in engine(qrels, alone, ALL).items():
            assert got[(name, parse_measure(m).name)] == pytest.approx(v, abs=1e-12), (name, m)


def test_auc_by_hand():
    """ROC area over judged documents; with -N the unjudged documents of the collection are
    negatives. Ranking a(1) x(unjudged) b(0) c(2) y(unjudged); unretrieved d(0), e(1)."""
    qrels = {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1}
    run = {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0, "y": 1.0}
    q, r = frames(qrels, run)
    # positives a, c, e; negatives b, d. a>b, a>d, c<b, c>d, e<b, e~d (tie, 1/2)
    plain = (1 + 1 + 0 + 1 + 0 + 0.5) / (3 * 2)
    # -N 20: 17 negatives: x, b, y retrieved, 14 unretrieved; a beats 17, c beats y and the 14,
    # e ties with the 14 unretrieved
    with_n = (17 + 15 + 14 * 0.5) / (3 * 17)
    for num_docs, expected in ((None, plain), (20, with_n)):
        res = evaluate_frames(q, r, ["AUC"], EvalOptions(num_docs=num_docs)).per_query
        assert res["value"].tolist() == pytest.approx([expected], abs=1e-12), num_docs
        oq = oracle.Query([qrels.get(d) for d in oracle.canonical_order(run)], list(qrels.values()),
                          num_docs=num_docs)
        assert oracle.auc(oq) == pytest.approx(expected, abs=1e-12)
