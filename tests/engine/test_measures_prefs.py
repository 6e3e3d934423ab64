"""trec_eval -R prefs / -R qrels_prefs (the 14 prefs_* measures): trec_eval's own test outputs and outputs of
trec_eval 10.0 built from source, byte for byte; a worked example by hand; and the vectorised code against a
loop-for-loop port of the C code (tests/prefs_oracle.py) on random judgments, runs with ties, -c and -M."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine.prefs import counts as prefs_counts
from core.engine.prefs import levels as prefs_levels
from core.errors import EvalError
from core.engine.evaluate import evaluate_frames
from core.measures import EvalOptions, parse_measures
from core.measures.prefs import ALL_PREFS
from core.engine.prefs.evaluate import evaluate_prefs, evaluate_prefs_files
from tests.cases.prefs import PREFS_GOLDEN
from tests.cases.reference import reference_file, reference_text
from tests.prefs_oracle import reference

TE = "trec_eval_test"


def _cli(*args) -> str:
    return subprocess.run([sys.executable, "-m", "core", "evaluate", *map(str, args)], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("args,expected", PREFS_GOLDEN)
def test_golden_trec_eval_output(args, expected):
    *options, qrels, run = args
    want = f"{TE}/{expected[3:]}.gz" if expected.startswith("TE/") else f"{TE}/reference_trec_eval_10.0/{expected}.gz"
    assert _cli(*options, reference_file(f"{TE}/{qrels}.gz"), reference_file(f"{TE}/{run}.gz")) == reference_text(want)


def test_worked_example_by_hand():
    """One topic, one judgment group (EC): d1 (2) > d2 (1) > d3 (0), so 3 preferences: d1>d2, d1>d3, d2>d3.
    The run retrieves d2, d1, x (unjudged) in that order; d3 is not retrieved. d1>d2 fails (both retrieved),
    d1>d3 and d2>d3 are fulfilled by implication (only the preferred one retrieved)."""
    prefs = pd.DataFrame({"qid": "1", "jg": "a", "jsg": "s", "docno": ["d1", "d2", "d3"], "rel": [2.0, 1.0, 0.0]})
    run = pd.DataFrame({"run": "r", "qid": "1", "docno": ["d2", "d1", "x"], "score": [3.0, 2.0, 1.0]})
    got = evaluate_prefs(prefs, run, ["all_prefs"]).per_query.set_index("measure")["value"]
    assert got["prefs_num_prefs_poss"] == 3 and got["prefs_num_prefs_ful"] == 2
    assert got["prefs_num_prefs_ful_ret"] == 0
    assert got["prefs_simp"] == pytest.approx(2 / 3) and got["prefs_simp_imp"] == pytest.approx(2 / 3)
    assert got["prefs_simp_ret"] == 0 and got["prefs_pair_ret"] == 0
    assert got["prefs_pair"] == pytest.approx(2 / 3) and got["prefs_avgjg"] == pytest.approx(2 / 3)
    # Rnonrel: R = 2 relevant, N = 1 non-relevant: add R*(R-N) = 2 possible, R_ret*(R-N) = 2 fulfilled
    assert got["prefs_avgjg_Rnonrel"] == pytest.approx((2 + 2) / (3 + 2))
    # _ret: R_ret = 2, N_ret = 0: 0 fulfilled + 2*2, over 1 possible + R*2 = 5
    assert got["prefs_avgjg_Rnonrel_ret"] == pytest.approx(4 / 5)


def test_ties_are_broken_by_docno_ascending():
    """Unlike its other measures, trec_eval's prefs ranking puts the smaller docno first among equal scores."""
    prefs = pd.DataFrame({"qid": "1", "jg": "0", "jsg": "0", "docno": ["a", "b"], "rel": [1.0, 0.0]})
    run = pd.DataFrame({"run": "r", "qid": "1", "docno": ["b", "a"], "score": [1.0, 1.0]})
    got = evaluate_prefs(prefs, run, ["prefs_simp_ret"]).per_query["value"]
    assert list(got) == [1.0]                       # a (preferred) ranks above b
    run["docno"], prefs["rel"] = ["a", "b"], [0.0, 1.0]
    assert list(evaluate_prefs(prefs, run, ["prefs_simp_ret"]).per_query["value"]) == [0.0]


def _frames(rows, run_rows):
    prefs = pd.DataFrame(rows, columns=["qid", "jg", "jsg", "docno", "rel"])
    run = pd.DataFrame([("r", q, d, s) for q, d, s in run_rows], columns=["run", "qid", "docno", "score"])
    return prefs, run


@st.composite
def _judgments(draw):
    docs = [f"d{i}" for i in range(draw(st.integers(2, 7)))]
    rows, run = [], []
    for q in draw(st.lists(st.sampled_from(["1", "2", "3"]), unique=True, min_size=1, max_size=3)):
        for jg in draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, min_size=1, max_size=3)):
            for jsg in draw(st.lists(st.sampled_from(["0", "1", "2"]), unique=True, min_size=1, max_size=3)):
                for d in draw(st.lists(st.sampled_from(docs), unique=True, min_size=1)):
                    rows.append((q, jg, jsg, d, draw(st.sampled_from([0.0, 0.0, 1.0, 2.0, 2.5, -1.0]))))
        for d in draw(st.lists(st.sampled_from(docs + ["u1", "u2"]), unique=True)):
            run.append((q, d, float(draw(st.integers(0, 3)))))
    return rows, run


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(_judgments(), st.booleans(), st.sampled_from([None, 1, 3]))
def test_matches_a_port_of_the_c_code(case, complete, depth):
    rows, run_rows = case
    if not run_rows:                                 # no run name to report values under
        return
    prefs, run = _frames(rows, run_rows)
    options = EvalOptions(complete=complete, max_depth=depth)
    try:
        want = reference(rows, run_rows, complete, depth)
    except ValueError:                               # contradicting preferences: trec_eval stops
        with pytest.raises(EvalError):
            evaluate_prefs(prefs, run, ["all_prefs"], options)
        return
    got = evaluate_prefs(prefs, run, ["all_prefs"], options).per_query
    got = got.set_index(["qid", "measure"])["value"]
    assert sorted(set(got.index.get_level_values(0))) == sorted(want)
    for q, values in want.items():
        for name, v in values.items():
            assert got[(q, name)] == pytest.approx(v, abs=1e-12), (q, name)


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(_judgments())
def test_counting_in_small_chunks_changes_nothing(monkeypatch_module, case):
    """Pairs are counted a chunk of whole topics at a time (bounded memory); one chunk per topic gives the same."""
    prefs, run = _frames(*case)
    try:
        whole = evaluate_prefs(prefs, run, ["all_prefs"], EvalOptions(complete=True)).per_query
    except EvalError:
        return
    monkeypatch_module.setattr(prefs_counts, "EDGES", 1)
    monkeypatch_module.setattr(prefs_levels, "ITEMS", 1)
    small = evaluate_prefs(prefs, run, ["all_prefs"], EvalOptions(complete=True)).per_query
    monkeypatch_module.setattr(prefs_counts, "EDGES", 1_000_000)
    monkeypatch_module.setattr(prefs_levels, "ITEMS", 2_000_000)
    pd.testing.assert_frame_equal(whole, small)


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(_judgments())
def test_pair_free_counting_of_single_group_topics_matches_the_plain_form(monkeypatch_module, case):
    prefs, run = _frames(*case)
    try:
        fast = evaluate_prefs(prefs, run, ["all_prefs"], EvalOptions(complete=True)).per_query
    except EvalError:
        return
    monkeypatch_module.setattr(prefs_counts, "PAIR_FREE", False)
    plain = evaluate_prefs(prefs, run, ["all_prefs"], EvalOptions(complete=True)).per_query
    monkeypatch_module.setattr(prefs_counts, "PAIR_FREE", True)
    pd.testing.assert_frame_equal(fast, plain)


def test_area_tally_matches_one_masked_bincount_per_area():
    rng = np.random.default_rng(1)
    g, a, b = np.sort(rng.integers(0, 7, 500)), rng.integers(0, 30, 500), rng.integers(0, 30, 500)
    b[a == b] += 1                                    # a pair never joins a document to itself
    njr = rng.integers(0, 30, 500)
    got = prefs_counts._tally(g, prefs_counts.AREA[(a < njr) * 4 + (b < njr) * 2 + (a < b)], 5, 7)
    masks = ((a < b) & (b < njr), (b < a) & (a < njr), (a < njr) & (b >= njr), (a >= njr) & (b < njr),
             (a >= njr) & (b >= njr))
    assert (got == np.stack([np.bincount(g[m], minlength=7) for m in masks], 1)).all()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(_judgments())
def test_ratios_stay_in_unit_interval_and_a_perfect_ranking_scores_one(case):
    rows, _ = case
    rows = [r for r in rows if r[2] == "0" and r[1] == "a"]          # one judgment group, one subgroup (EC)
    if not rows:
        return
    prefs = pd.DataFrame(rows, columns=["qid", "jg", "jsg", "docno", "rel"])
    run = prefs.assign(run="r", score=prefs["rel"])[["run", "qid", "docno", "score"]]
    got = evaluate_prefs(prefs, run, ["all_prefs"]).per_query
    ratios = got[~got["measure"].str.startswith("prefs_num")]
    assert ratios["value"].between(0, 1).all()
    wide = got.pivot(index="qid", columns="measure", values="value")
    has = wide["prefs_num_prefs_poss"] > 0
    assert (wide.loc[has, ["prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_simp_ret"]] == 1).all().all()


def test_contradicting_preferences_are_an_error():
    rows = [("1", "a", "0", "x", 2.0), ("1", "a", "0", "y", 1.0), ("1", "a", "1", "y", 2.0), ("1", "a", "1", "x", 1.0)]
    prefs, run = _frames(rows, [("1", "x", 1.0)])
    with pytest.raises(EvalError, match="Topic '1', judgment group 'a': the preferences contradict each other"):
        evaluate_prefs(prefs, run, ["prefs_simp"])


def test_zero_and_positive_level_in_one_group_is_an_error():
    rows = [("1", "a", "0", "x", 0.0), ("1", "a", "0", "y", 1.0), ("1", "a", "1", "x", 2.0), ("1", "a", "1", "z", 1.0)]
    prefs, run = _frames(rows, [("1", "x", 1.0)])
    with pytest.raises(EvalError, match="a document has rel_level 0 \\(non-relevant\\) in one subgroup"):
        evaluate_prefs(prefs, run, ["prefs_simp"])


def test_prefs_measures_need_prefs_and_other_measures_are_refused():
    with pytest.raises(EvalError, match="compute the preference measures only .* not AP"):
        evaluate_prefs_files(reference_file(f"{TE}/prefs.test.gz"), [reference_file(f"{TE}/prefs.results.test.gz")],
                             ["prefs_simp", "AP"])
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1]})
    run = pd.DataFrame({"run": ["r"], "qid": ["1"], "docno": ["d"], "score": [1.0]})
    with pytest.raises(EvalError, match="prefs_simp needs preference judgments: evaluate with -R prefs"):
        evaluate_frames(qrels, run, ["prefs_simp"])


def test_nicknames_and_summary():
    assert [m.name for m in parse_measures(["all_prefs"])] == ALL_PREFS
    assert [m.name for m in parse_measures(["prefs"])] == ALL_PREFS[:6]
    assert [m.family.agg for m in parse_measures(["prefs"])][:3] == ["sum"] * 3


def test_topics_missing_from_the_run_are_skipped_with_a_warning_or_counted_with_c():
    prefs = pd.DataFrame({"qid": ["1", "1", "2", "2"], "jg": "0", "jsg": "0", "docno": ["a", "b", "a", "b"],
                          "rel": [1.0, 0.0, 1.0, 0.0]})
    run = pd.DataFrame({"run": "r", "qid": ["1", "9"], "docno": ["a", "z"], "score": [1.0, 1.0]})
    res = evaluate_prefs(prefs, run, ["prefs_simp"])
    assert res.num_q == {"r": 1} and res.missing_topics == {"r": ["2"]}
    assert "1 judged topic(s) not in the run were skipped" in res.warnings[0]
    res = evaluate_prefs(prefs, run, ["prefs_simp", "prefs_num_prefs_poss"], EvalOptions(complete=True))
    assert res.num_q == {"r": 2}
    assert res.summary.set_index("measure")["value"].to_dict() == {"prefs_simp": 0.5, "prefs_num_prefs_poss": 2}


def test_a_document_twice_in_one_subgroup_is_refused_in_the_api():
    prefs = pd.DataFrame({"qid": "1", "jg": "0", "jsg": "0", "docno": ["a", "a"], "rel": [1.0, 0.0]})
    run = pd.DataFrame({"run": ["r"], "qid": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(EvalError, match="A document appears twice in one \\(topic, jg, jsg\\)"):
        evaluate_prefs(prefs, run, ["prefs_simp"])
