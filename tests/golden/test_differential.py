"""Differential tests: the measures engine against pytrec_eval (trec_eval 9.0.8's C code).

hypothesis draws small random qrels and runs with tied scores, graded and negative labels
(-1..4), topics only in the run, topics only in the qrels and one-document runs, and checks
every per-query value and every summary value at 1e-9, for rel_level 1 and 2.

Measures compared:
* a fixed table of ir_measures names with their trec_eval equivalents, written here
  independently of the registry (cutoffs small enough to matter on short rankings);
* every measure that ``parse_measures(["all_trec"])`` expands to and that has a trec name,
  asked of pytrec_eval under that trec name.
Measures pytrec_eval cannot compute, so not compared against it here:
  runid and relstring (strings, not numbers), the prefs_* / *_avgjg measures (need a preference
  or judgment-group qrels), and the textbook variants (nDCG(dcg='jk'), nDCG(dcg='exp-log2'),
  DCG, AP(norm='found'), F, E, SetFbeta, Judged, JudgedK, AUC), which are checked against
  tests/oracle.py instead (test_textbook_variants_match_oracle).

pytrec_eval quirks found by experiment (probes in the test module history):
* it evaluates only the topics present in both the run and the qrels;
* gm_map's per-query value is log(max(AP, 1e-5)); the summary is exp(mean) of those;
* asking for one family with two parameters in one evaluator ({'set_F.0.25', 'set_F'}) returns
  one value only, so every measure gets its own evaluator here;
* set_F's parameter is beta squared.
* with judged_docs_only_flag (-J) a topic left with no retrieved document gets NaN for
  iprec_at_recall (0/0 in m_iprec_at_recall.c); we accept 0 or NaN there (see ``same``).
* -M is not exposed by pytrec_eval; the run is cut to its canonical top M instead.
* a qrels topic whose labels are all negative makes trec_eval read a stale num_rel_levels (static
  saved_res_rels in form_res_rels.c); pytrec_eval's ndcg then loops forever. Such topics are
  compared against the oracle instead (test_all_negative_topic).
"""
from __future__ import annotations

import math

import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle

settings.register_profile(
    "rankboard", deadline=None, max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("rankboard")

TOL = 1e-9

# canonical (ir_measures) name -> trec_eval name as pytrec_eval is asked for it, and the key it
# answers under (they differ only for set_F's parameter)
TREC_EQUIV: dict[str, tuple[str, str]] = {
    "AP": ("map", "map"),
    "AP@3": ("map_cut_3", "map_cut_3"),
    "AP@10": ("map_cut_10", "map_cut_10"),
    "P@1": ("P_1", "P_1"),
    "P@3": ("P_3", "P_3"),
    "P@5": ("P_5", "P_5"),
    "P@10": ("P_10", "P_10"),
    "R@3": ("recall_3", "recall_3"),
    "R@10": ("recall_10", "recall_10"),
    "nDCG": ("ndcg", "ndcg"),
    "nDCG@3": ("ndcg_cut_3", "ndcg_cut_3"),
    "nDCG@10": ("ndcg_cut_10", "ndcg_cut_10"),
    "RR": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "Bpref": ("bpref", "bpref"),
    "infAP": ("infAP", "infAP"),
    "Success@1": ("success_1", "success_1"),
    "Success@5": ("success_5", "success_5"),
    "SetP": ("set_P", "set_P"),
    "SetR": ("set_recall", "set_recall"),
    "SetF": ("set_F", "set_F"),
    "SetF(beta=0.25)": ("set_F.0.25", "set_F"),   # trec_eval's parameter (beta squared), as in ir_measures
    "SetF(beta=4)": ("set_F.4", "set_F"),
    "Rcap@3": ("relative_P_3", "relative_P_3"),  # #rel in top k / min(R, k) == relative_P
    "Rcap@10": ("relative_P_10", "relative_P_10"),
    "NumRet": ("num_ret", "num_ret"),
    "NumRel": ("num_rel", "num_rel"),
    "NumRelRet": ("num_rel_ret", "num_rel_ret"),
    **{f"IPrec@{r / 10:.1f}": (f"iprec_at_recall_{r / 10:.2f}", f"iprec_at_recall_{r / 10:.2f}")
       for r in range(11)},
}
SUMMARY_ONLY = {"gm_map": ("gm_map", "gm_map")}  # per-query value is a log in pytrec_eval
NON_NUMERIC_TREC = {"runid", "relstring"}

# the oracle implements these from the definitions; they are checked against pytrec_eval too
ORACLE_CHECKED = sorted(set(TREC_EQUIV) | {"gm_map"})

TEXTBOOK = [
    "DCG@3", "DCG@10", "DCG(dcg='jk')@3", "DCG(dcg='jk')@10",
    "nDCG(dcg='jk')@3", "nDCG(dcg='jk')@10", "nDCG(dcg='exp-log2')@3", "nDCG(dcg='exp-log2')@10",
    "AP(norm='found')@3", "AP(norm='found')@10", "F@3", "F@10", "F(beta=2)@5", "E(beta=0.5)@5",
    "Judged@3", "Judged@10", "Judged", "JudgedK@3", "JudgedK@10", "SetFbeta(beta=2)", "AUC", "RR@3", "AP@5",
]

# ------------------------------------------------------------------ data

QIDS = ["q1", "q2", "q3", "10", "9"]
DOCS = [f"d{i}" for i in range(12)] + ["D1", "d1x", "a"]
SCORES = st.sampled_from([-2.0, 0.0, 0.5, 1.0, 1.0, 2.5, 3.0])


@st.composite
def collections(draw, grades=st.integers(min_value=-1, max_value=4)):
    """(qrels, run) as nested dicts; qrels topics and run topics overlap only in part."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid in QIDS:
        in_qrels = draw(st.booleans()) or qid == "q1"
        in_run = draw(st.booleans()) or qid == "q1"
        if in_qrels:
            judged = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=10))
            qrels[qid] = {d: draw(grades) for d in judged}
            if not qrels[qid]:
                qrels[qid] = {"d0": draw(grades)}
            if all(g < 0 for g in qrels[qid].values()):
                # trec_eval reads stale memory (and can loop forever in ndcg) on a topic whose
                # labels are all negative: form_res_rels leaves num_rel_levels from the previous
                # topic. Keep one label >= 0; test_all_negative_topic covers the case.
                first = next(iter(qrels[qid]))
                qrels[qid][first] = 0
        if in_run:
            docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
            run[qid] = {d: draw(SCORES) for d in docs}
    return qrels, run


def to_frames(qrels, run, name="sys"):
    q = pd.DataFrame(
        [(qid, d, int(g)) for qid, docs in qrels.items() for d, g in docs.items()],
        columns=["qid", "docno", "rel"],
    ).astype({"qid": "string", "docno": "string", "rel": "int64"})
    r = pd.DataFrame(
        [(name, qid, d, float(s)) for qid, docs in run.items() for d, s in docs.items()],
        columns=["run", "qid", "docno", "score"],
    ).astype({"run": "string", "qid": "string", "docno": "string", "score": "float64"})
    return q, r


def pytrec(qrels, run, trec_request: str, rel_level: int = 1, judged_only: bool = False
           ) -> dict[str, dict[str, float]]:
    ev = pytrec_eval.RelevanceEvaluator(qrels, {trec_request}, relevance_level=rel_level,
                                        judged_docs_only_flag=judged_only)
    return ev.evaluate(run)


def truncate(run, depth):
    """trec_eval -M depth: keep the top `depth` documents of each topic in canonical order."""
    return {qid: {d: docs[d] for d in oracle.canonical_order(docs)[:depth]} for qid, docs in run.items()}


def pytrec_summary(key: str, per_query: dict[str, dict[str, float]]) -> float:
    vals = [v[key] for v in per_query.values()]
    if not vals:
        return 0.0
    if key.startswith("num_"):
        return float(sum(vals))
    if key.startswith("gm_"):
        return math.exp(sum(vals) / len(vals))
    return sum(vals) / len(vals)


def same(got, expected) -> bool:
    """Equal at TOL. Where trec_eval divides 0 by 0 (iprec_at_recall when -J leaves a topic with
    no retrieved document) it yields NaN; the engine may give NaN or 0 there."""
    if got is None:
        return False
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(got) or got == 0.0
    return got == pytest.approx(expected, abs=TOL)


def reproducer(qrels, run, measure, rel_level):
    return f"\nqrels={qrels!r}\nrun={run!r}\nmeasure={measure!r} rel_level={rel_level}"


# ------------------------------------------------------------------ the oracle itself

@given(data=collections(), rel_level=st.sampled_from([1, 2]))
def test_oracle_agrees_with_pytrec_eval(data, rel_level):
    """The oracle is only useful if it is right: check it against trec_eval's C code."""
    qrels, run = data
    per_query, summary = oracle.evaluate(qrels, run, ORACLE_CHECKED, rel_level=rel_level)
    for name in ORACLE_CHECKED:
        request, key = TREC_EQUIV.get(name) or SUMMARY_ONLY[name]
        ref = pytrec(qrels, run, request, rel_level)
        assert set(ref) == {qid for qid, _ in per_query if _ == name}
        if name not in SUMMARY_ONLY:
            for qid, vals in ref.items():
                assert per_query[(qid, name)] == pytest.approx(vals[key], abs=TOL), reproducer(
                    qrels, run, name, rel_level)
        assert summary[name] == pytest.approx(pytrec_summary(key, ref), abs=TOL), reproducer(
            qrels, run, name, rel_level)


# ------------------------------------------------------------------ the engine

def _engine():
    from core.engine.evaluate import EvalOptions, evaluate_frames
    from core.measures import parse_measure, parse_measures
    return evaluate_frames, EvalOptions, parse_measure, parse_measures


def _registry_trec_measures() -> dict[str, str]:
    """canonical name -> trec name, for everything all_trec expands to."""
    _, _, _, parse_measures = _engine()
    out = {}
    for m in parse_measures(["all_trec"]):
        if m.trec_name and m.trec_name not in NON_NUMERIC_TREC:
            out[m.name] = m.trec_name
    return out


def _run_engine(qrels, run, names, rel_level=1, **opts):
    evaluate_frames, EvalOptions, _, _ = _engine()
    q, r = to_frames(qrels, run)
    res = evaluate_frames(q, r, list(names), EvalOptions(rel_level=rel_level, **opts))
    per_query = {(row.qid, row.measure): row.value for row in res.per_query.itertuples()}
    summary = {row.measure: row.value for row in res.summary.itertuples()}
    return per_query, summary


def test_registry_trec_names_match_our_table():
    """The registry maps each ir_measures name to the trec_eval name we expect."""
    _, _, parse_measure, _ = _engine()
    wrong = {}
    for name, (request, key) in {**TREC_EQUIV, **SUMMARY_ONLY}.items():
        got = parse_measure(name).trec_name
        expected = request
        if name in ("SetF(beta=0.25)", "SetF(beta=4)"):
            expected = request.replace(".", "_", 1)  # trec_eval -m set_F.4 is named set_F_4 here
        if got != expected:
            wrong[name] = (got, expected)
    assert not wrong, f"registry trec names differ (got, expected): {wrong}"


def _compare(qrels, run, names_to_trec: dict[str, tuple[str, str]], rel_level: int,
             max_depth: int | None = None, judged_only: bool = False):
    _, _, parse_measure, _ = _engine()
    canon = {name: parse_measure(name).name for name in names_to_trec}
    per_query, summary = _run_engine(qrels, run, list(names_to_trec), rel_level,
                                     max_depth=max_depth, judged_only=judged_only)
    ref_run = truncate(run, max_depth) if max_depth else run
    problems = []
    for name, (request, key) in names_to_trec.items():
        ref = pytrec(qrels, ref_run, request, rel_level, judged_only)
        c = canon[name]
        got_qids = {qid for (qid, m) in per_query if m == c}
        if got_qids != set(ref):
            problems.append(f"{name}: evaluated topics {sorted(got_qids)} != trec_eval's {sorted(ref)}")
            continue
        if not key.startswith("gm_"):  # pytrec_eval gives log(max(v, 1e-5)) per query
            for qid, vals in ref.items():
                got = per_query[(qid, c)]
                if not same(got, vals[key]):
                    problems.append(f"{name} [{qid}]: engine {got!r} != trec_eval {vals[key]!r}")
        if ref:
            exp = pytrec_summary(key, ref)
            exp0 = pytrec_summary(key, {q: {key: 0.0 if math.isnan(v[key]) else v[key]} for q, v in ref.items()})
            got = summary.get(c)
            if not (same(got, exp) or same(got, exp0)):
                problems.append(f"{name} [all]: engine {got!r} != trec_eval {exp!r}")
    assert not problems, "\n".join(problems[:25]) + reproducer(qrels, run, "see above", rel_level) + (
        f" max_depth={max_depth} judged_only={judged_only}")


@given(data=collections(), rel_level=st.sampled_from([1, 2]))
def test_engine_matches_pytrec_eval_table(data, rel_level):
    qrels, run = data
    _compare(qrels, run, {**TREC_EQUIV, **SUMMARY_ONLY}, rel_level)


@settings(max_examples=40)
@given(data=collections(), rel_level=st.sampled_from([1, 2]))
def test_engine_matches_pytrec_eval_all_trec(data, rel_level):
    """Every measure of -m all_trec, asked of pytrec_eval by the registry's trec name."""
    qrels, run = data
    table = {name: (trec, trec) for name, trec in _registry_trec_measures().items()}
    assert table, "parse_measures(['all_trec']) expanded to no measure with a trec name"
    _compare(qrels, run, table, rel_level)


@settings(max_examples=30)
@given(data=collections(), rel_level=st.sampled_from([1, 2]), depth=st.integers(1, 6))
def test_engine_max_depth_matches_pytrec_eval(data, rel_level, depth):
    """-M depth == evaluating the run cut to its top `depth` documents."""
    qrels, run = data
    _compare(qrels, run, {**TREC_EQUIV, **SUMMARY_ONLY}, rel_level, max_depth=depth)


@settings(max_examples=30)
@given(data=collections(), rel_level=st.sampled_from([1, 2]))
def test_engine_judged_only_matches_pytrec_eval(data, rel_level):
    """-J: unjudged documents are removed from the ranking before anything is measured."""
    qrels, run = data
    _compare(qrels, run, {**TREC_EQUIV, **SUMMARY_ONLY}, rel_level, judged_only=True)


@settings(max_examples=40)
@given(data=collections())
def test_engine_p_rel_param_matches_relevance_level(data):
    """P(rel=2)@k at the default level equals trec_eval's P_k at -l 2."""
    qrels, run = data
    _, _, parse_measure, _ = _engine()
    per_query, _ = _run_engine(qrels, run, ["P(rel=2)@5", "P(rel=2)@1"], 1)
    for name, trec in (("P(rel=2)@5", "P_5"), ("P(rel=2)@1", "P_1")):
        c = parse_measure(name).name
        ref = pytrec(qrels, run, trec, rel_level=2)
        for qid, vals in ref.items():
            assert per_query[(qid, c)] == pytest.approx(vals[trec], abs=TOL), reproducer(
                qrels, run, name, 1)


@settings(max_examples=40)
@given(data=collections(grades=st.integers(min_value=-1, max_value=4)),
       rel_level=st.sampled_from([1, 2]))
def test_textbook_variants_match_oracle(data, rel_level):
    """Measures pytrec_eval lacks, against the oracle (same topic set as trec_eval)."""
    qrels, run = data
    _, _, parse_measure, _ = _engine()
    per_query, summary = _run_engine(qrels, run, TEXTBOOK, rel_level)
    exp_pq, exp_sum = oracle.evaluate(qrels, run, TEXTBOOK, rel_level=rel_level)
    problems = []
    for name in TEXTBOOK:
        c = parse_measure(name).name
        for (qid, m), v in exp_pq.items():
            if m != name:
                continue
            got = per_query.get((qid, c))
            if got is None or not got == pytest.approx(v, abs=1e-9):
                problems.append(f"{name} [{qid}]: engine {got!r} != oracle {v!r}")
        if any(m == name for _, m in exp_pq):
            got = summary.get(c)
            if got is None or not got == pytest.approx(exp_sum[name], abs=1e-9):
                problems.append(f"{name} [all]: engine {got!r} != oracle {exp_sum[name]!r}")
    assert not problems, "\n".join(problems[:25]) + reproducer(qrels, run, "see above", rel_level)


# ------------------------------------------------------------------ fixed edge cases

EDGE_CASES = {
    # every score tied: the order is docno descending (d9 > d10 > d1 as strings)
    "all_tied": ({"q1": {"d1": 1, "d10": 0, "d9": 2}}, {"q1": {"d1": 1.0, "d10": 1.0, "d9": 1.0}}),
    # labels -1 (in pool, unjudged) and 0..3, one unjudged retrieved doc
    "graded": ({"q1": {"a": -1, "b": 0, "c": 1, "d": 2, "e": 3}},
               {"q1": {"a": 5.0, "x": 4.0, "b": 3.0, "e": 2.0, "c": 1.0, "d": 0.5}}),
    # topic q2 only in the qrels, q3 only in the run
    "missing_topics": ({"q1": {"a": 1}, "q2": {"a": 1}}, {"q1": {"a": 1.0, "b": 0.0}, "q3": {"a": 1.0}}),
    # one retrieved document, nothing relevant in the qrels
    "no_relevant": ({"q1": {"a": 0, "b": -1}}, {"q1": {"a": 1.0}}),
    # a single unjudged document retrieved
    "empty_ish": ({"q1": {"a": 1, "b": 1}}, {"q1": {"zz": 0.0}}),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
@pytest.mark.parametrize("rel_level", [1, 2])
def test_engine_edge_cases(case, rel_level):
    qrels, run = EDGE_CASES[case]
    _compare(qrels, run, {**TREC_EQUIV, **SUMMARY_ONLY}, rel_level)


def test_all_negative_topic():
    """A topic judged only with negative labels: nothing relevant, nothing judged (oracle)."""
    qrels = {"q1": {"a": -1, "b": -2}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"a": 2.0, "b": 1.0, "c": 0.5}, "q2": {"a": 1.0, "b": 2.0}}
    names = ORACLE_CHECKED + TEXTBOOK
    _, _, parse_measure, _ = _engine()
    per_query, summary = _run_engine(qrels, run, names)
    exp_pq, exp_sum = oracle.evaluate(qrels, run, names)
    problems = []
    for (qid, name), v in exp_pq.items():
        got = per_query.get((qid, parse_measure(name).name))
        if got is None or not got == pytest.approx(v, abs=TOL):
            problems.append(f"{name} [{qid}]: engine {got!r} != oracle {v!r}")
    for name, v in exp_sum.items():
        got = summary.get(parse_measure(name).name)
        if got is None or not got == pytest.approx(v, abs=TOL):
            problems.append(f"{name} [all]: engine {got!r} != oracle {v!r}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ switches pytrec_eval lacks

COMPLETE_MEASURES = ["AP", "P@5", "nDCG@5", "RR", "Rprec", "Bpref", "SetF", "NumRel", "NumRet",
                     "NumRelRet", "gm_map", "IPrec@0.5"]


@settings(max_examples=30)
@given(data=collections())
def test_complete_counts_missing_topics_as_zero(data):
    """-c: a qrels topic absent from the run is evaluated on an empty ranking (0 for every
    measure, but NumRel still counts its relevant documents), and enters the mean."""
    qrels, run = data
    _, _, parse_measure, _ = _engine()
    _, summary = _run_engine(qrels, run, COMPLETE_MEASURES, 1, complete=True)
    for name in COMPLETE_MEASURES:
        vals = []
        for qid in sorted(qrels):
            ranked = [qrels[qid].get(d) for d in oracle.canonical_order(run.get(qid, {}))]
            vals.append(oracle.measure(name, oracle.Query(ranked, list(qrels[qid].values()))))
        expected = oracle.aggregate(name, vals)
        got = summary.get(parse_measure(name).name)
        assert got is not None and got == pytest.approx(expected, abs=TOL), (
            f"{name}: engine {got!r} != {expected!r}" + reproducer(qrels, run, name, 1))


@settings(max_examples=30)
@given(data=collections())
def test_compat_10_interpolation_matches_oracle(data):
    """--compat 10: trec_eval 10.0 turns recall cutoffs into lround(x * R) relevant documents."""
    qrels, run = data
    names = [f"IPrec@{r / 10:.1f}" for r in range(11)]
    _, _, parse_measure, _ = _engine()
    per_query, _ = _run_engine(qrels, run, names, 1, compat=10)
    exp, _ = oracle.evaluate(qrels, run, names, compat=10)
    bad = {k: (per_query.get((k[0], parse_measure(k[1]).name)), v) for k, v in exp.items()
           if not same(per_query.get((k[0], parse_measure(k[1]).name)), v)}
    assert not bad, f"(engine, oracle) {bad}" + reproducer(qrels, run, "IPrec", 1)


def test_every_pytrec_eval_measure_is_in_all_trec():
    """Each measure family pytrec_eval computes has a registry measure under its trec name, so
    test_engine_matches_pytrec_eval_all_trec compares it. Left out: runid and num_q (the run's
    name and the topic count, printed only in the summary), relstring (a string)."""
    trec_names = set(_registry_trec_measures().values())
    missing = {fam for fam in pytrec_eval.supported_measures - {"runid", "num_q", "relstring"}
               if not any(t == fam or t.startswith(fam + "_") for t in trec_names)}
    assert missing == set()
