"""Every measure name that ir_measures and Rankboard share gives ir_measures' number: ir_measures itself (0.4.3,
with its pytrec_eval, cwl_eval, compat, judged, msmarco, gdeval and accuracy providers) is run on random qrels
and runs, and every per-query value is compared at 1e-4 (gdeval prints 5 decimals).

ir_measures averages over every qrels topic (trec_eval -c), so values are compared per query. Scores are
distinct within a topic: ir_measures' providers break score ties in different ways (pytrec_eval by docno
descending like Rankboard, the judged provider by docno ascending); on distinct scores every provider ranks
alike. Grades run from -1 to 3.
"""
from __future__ import annotations

import warnings

import ir_measures
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import EvalError
from core.engine.evaluate import EvalOptions, evaluate_frames
from core.measures import parse_measure

TOL = 1e-4

# every spelling shared with ir_measures that ir_measures can compute (family names, aliases, parameters)
SHARED = [
    "AP", "AP@5", "AP(rel=2)", "AP(judged_only=True)", "MAP", "AP(rel=2)@3",
    "P@1", "P@5", "P(rel=2)@3", "P(judged_only=True)@5", "Precision@5",
    "R@5", "R@10", "Recall@5", "R(judged_only=True)@5",
    "RR", "RR(rel=2)", "RR@3", "MRR", "RR(judged_only=True)",
    "Rprec", "RPrec", "Rprec(rel=2)", "Rprec(judged_only=True)",
    "Bpref", "BPref", "Bpref(rel=2)", "infAP", "infAP(rel=2)",
    "IPrec@0.0", "IPrec@0.3", "IPrec@1.0", "IPrec(judged_only=True)@0.5",
    "NumRel", "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRelRet", "NumRelRet(rel=2)",
    "nDCG", "nDCG@5", "NDCG@3", "nDCG(gains={0: 1, 1: 3})", "nDCG(gains={1: 2, 2: 5, 3: 9})@5",
    "nDCG(judged_only=True)@5",
    "SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP", "SetR", "SetR(rel=2)",
    "SetF", "SetF(beta=0.5)", "SetF(beta=2.0)", "SetF(rel=2)", "SetAP", "SetAP(rel=2)", "SetP(judged_only=True)",
    "Success@1", "Success@5", "Success(rel=2)@3",
    "Judged", "Judged@1", "Judged@5", "Judged@20",
]

# ir_measures reports 0 for every measure on a qrels topic absent from the run; Rankboard -c (like trec_eval -c)
# reports that topic's num_rel there. A documented difference: those topics are not compared for NumRel.
MISSING_TOPIC_DIFFERS = {"NumRel", "NumQ"}

# shared spellings ir_measures has no provider for (so nothing to compare with): the reason is checked below
NOT_COMPUTABLE = {
    "RBP": "ir_measures' only RBP provider (cwl_eval) needs rel=; Rankboard's bare RBP is trec_eval 10.0's rbp",
    "NumRel(rel=2)": "pytrec_eval's num_rel ignores rel; ir_measures refuses it",
}

QIDS = ["1", "2", "3", "q4"]
DOCS = [f"d{i}" for i in range(10)] + ["D1", "a"]


@st.composite
def collections(draw):
    qrels, run = [], []
    for qid in QIDS:
        if draw(st.booleans()) or qid == "1":
            for d in draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=9)):
                qrels.append((qid, d, draw(st.integers(-1, 3))))
        if draw(st.booleans()) or qid == "1":
            docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
            scores = draw(st.lists(st.integers(1, 99), unique=True, min_size=len(docs), max_size=len(docs)))
            run += [(qid, d, float(s)) for d, s in zip(docs, scores)]
    # trec_eval (so pytrec_eval, ir_measures' main provider) reads stale memory on a topic whose grades are all
    # negative (see test_differential): such a topic's first grade becomes 0
    negative = {q for q in QIDS if all(r < 0 for qq, _, r in qrels if qq == q)}
    fixed, seen = [], set()
    for q, d, r in qrels:
        fixed.append((q, d, 0 if q in negative and q not in seen else r))
        seen.add(q)
    return fixed, run


def theirs(name, qrels, run) -> dict[str, float]:
    iq = [ir_measures.Qrel(q, d, r) for q, d, r in qrels]
    ir = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m.query_id: float(m.value) for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], iq, ir)}


def ours(names, qrels, run) -> dict[str, dict[str, float]]:
    q = pd.DataFrame(qrels, columns=["qid", "docno", "rel"])
    r = pd.DataFrame(run, columns=["qid", "docno", "score"])
    pq = evaluate_frames(q, r, names, EvalOptions(complete=True)).per_query
    out: dict[str, dict[str, float]] = {}
    for row in pq.itertuples():
        out.setdefault(row.measure, {})[row.qid] = row.value
    return out


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_every_shared_name_gives_ir_measures_number(data):
    qrels, run = data
    got = ours(SHARED, qrels, run)
    run_topics = {q for q, _, _ in run}
    wrong = {}
    for name in SHARED:
        expected = theirs(name, qrels, run)
        mine = got[parse_measure(name).name]
        for qid, v in expected.items():
            if qid not in run_topics and name in MISSING_TOPIC_DIFFERS:
                continue
            if abs(mine.get(qid, float("nan")) - v) > TOL:
                wrong[(name, qid)] = (mine.get(qid), v)
    assert not wrong, f"(measure, qid): (rankboard, ir_measures) {wrong}\nqrels={qrels}\nrun={run}"


def test_every_ir_measures_name_rankboard_parses_is_compared():
    """Guard: a family of ir_measures' registry that Rankboard accepts must be in SHARED (or NOT_COMPUTABLE)."""
    from tests.cases.diversity import IR_MEASURES_NAMES      # compared with ir_measures in test_measures_diversity
    covered = {n.split("(")[0].split("@")[0] for n in SHARED + list(NOT_COMPUTABLE) + PEERS + GDEVAL + CWL
               + IR_MEASURES_NAMES}
    missing = []
    for name in ir_measures.measures.registry:
        for text in (name, name + "@5"):
            try:
                parse_measure(text)
            except EvalError:
                continue
            if name not in covered:
                missing.append(name)
            break
    assert not missing, f"shared with ir_measures but not compared: {missing}"


@pytest.mark.parametrize("name", sorted(NOT_COMPUTABLE))
def test_not_computable_really_is_not(name):
    parse_measure(name)                       # Rankboard accepts it ...
    qrels, run = [("1", "a", 1)], [("1", "a", 1.0)]
    with pytest.raises((ValueError, AssertionError)):   # ... and ir_measures cannot compute it
        theirs(name, qrels, run)


PEERS = ["NumQ", "Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Accuracy", "Accuracy@5", "Accuracy(rel=2)"]


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_new_ir_measures_families(data):
    qrels, run = data
    got = ours(PEERS, qrels, run)
    wrong = {}
    for name in PEERS:
        try:
            expected = theirs(name, qrels, run)
        except ZeroDivisionError:      # ir_measures' Accuracy divides by zero when the top k is all relevant
            continue
        mine = got[parse_measure(name).name]
        for qid, v in expected.items():
            if qid not in {q for q, _, _ in run} and name in MISSING_TOPIC_DIFFERS:
                continue
            if abs(mine.get(qid, float("nan")) - v) > TOL:
                wrong[(name, qid)] = (mine.get(qid), v)
    assert not wrong, f"(measure, qid): (rankboard, ir_measures) {wrong}\nqrels={qrels}\nrun={run}"


@st.composite
def gdeval_collections(draw):
    """gdeval reads numeric topics and grades up to 4 only."""
    qrels, run = [], []
    for qid in ("1", "2", "7"):
        for d in draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=9)):
            qrels.append((qid, d, draw(st.integers(-1, 4))))
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
        scores = draw(st.lists(st.integers(1, 99), unique=True, min_size=len(docs), max_size=len(docs)))
        run += [(qid, d, float(s)) for d, s in zip(docs, scores)]
    return qrels, run


GDEVAL = ["ERR@3", "ERR@10", "ERR@20", "nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@20"]


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(gdeval_collections())
def test_gdeval_measures(data):
    qrels, run = data
    got = ours(GDEVAL, qrels, run)
    wrong = {}
    for name in GDEVAL:
        mine = got[parse_measure(name).name]
        for qid, v in theirs(name, qrels, run).items():
            if abs(mine.get(qid, float("nan")) - v) > TOL:
                wrong[(name, qid)] = (mine.get(qid), v)
    assert not wrong, f"(measure, qid): (rankboard, ir_measures) {wrong}\nqrels={qrels}\nrun={run}"


CWL = ["INST(max_rel=3)", "INST(T=2.0,max_rel=3)", "INST(min_rel=1,max_rel=2)", "INSQ(max_rel=3)", "INSQ(T=3.0,max_rel=3)",
       "BPM(max_rel=3)@5", "BPM(T=2.0,max_rel=3)@10", "SDCG(max_rel=3)@5", "SDCG(max_rel=2)@20", "NERR8(max_rel=3)@5",
       "NERR9(max_rel=3)@10", "NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=3)", "NERR11(max_rel=3)",
       "NERR11(T=2.0,max_rel=3)", "RBP(rel=1)", "RBP(rel=2,p=0.5)"]


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_cwl_family_matches_cwl_eval(data):
    """The C/W/L family against cwl_eval, as ir_measures runs it."""
    qrels, run = data
    got = ours(CWL, qrels, run)
    wrong = {}
    for name in CWL:
        mine = got[parse_measure(name).name]
        for qid, v in theirs(name, qrels, run).items():
            if qid not in {q for q, _, _ in run}:
                continue                     # ir_measures' 0 for a topic missing from the run; ours is 0 too
            if abs(mine.get(qid, float("nan")) - v) > TOL:
                wrong[(name, qid)] = (mine.get(qid), v)
    assert not wrong, f"(measure, qid): (rankboard, ir_measures) {wrong}\nqrels={qrels}\nrun={run}"


def test_every_ir_measures_name_is_accepted():
    """Each name in ir_measures' registry parses in Rankboard (with @5 where it needs a cutoff, max_rel where the
    C/W/L family needs it)."""
    refused = {}
    for name in ir_measures.measures.registry:
        ok = False
        for text in (name, name + "@5", name + "(max_rel=3)", name + "(max_rel=3)@5"):
            try:
                parse_measure(text)
                ok = True
                break
            except EvalError:
                continue
        if not ok:
            refused[name] = text
    assert not refused, f"ir_measures names Rankboard does not accept: {refused}"
