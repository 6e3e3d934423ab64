"""core.repro against repro_eval's definitions: hand-computed cases (RMSE, ER and delta RI exactly, KTU and RBO to
1e-6), a plain loop of Webber's RBO_ext, and repro_eval 0.5.0 itself (KTU, RMSE, ER, delta RI and the paired t-test)
on two Robust 2003 runs."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from core.errors import EvalError
from core.formats import read_run
from core.repro import delta_ri, effect_ratio, ktu, ranked, rbo, reproduce, rmse
from core.repro.effects import paired_p
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_run


def _ranked(lists: dict[str, list[str]]) -> pd.DataFrame:
    """{qid: documents best first} -> a ranked table (scores falling, so trec_eval's order is the list's)."""
    rows = [(q, d, float(len(docs) - i)) for q, docs in lists.items() for i, d in enumerate(docs)]
    return ranked(pd.DataFrame(rows, columns=["qid", "docno", "score"]))


def _series(values) -> pd.Series:
    return pd.Series([float(v) for v in values], index=[f"q{i}" for i in range(len(values))])


def test_rmse_exactly():
    # differences 0.5, 0.5, -0.5, 0.5: mean square 0.25, root 0.5
    assert rmse(np.array([1.0, 0.75, 0.0, 0.5]), np.array([0.5, 0.25, 0.5, 0.0])) == 0.5
    assert rmse(np.array([0.3, 0.4]), np.array([0.3, 0.4])) == 0.0


def test_effect_ratio_and_delta_ri_exactly():
    # original: run 0.5, 0.75 over baseline 0.25, 0.25 -> MI 0.375, RI (0.625 - 0.25) / 0.25 = 1.5
    # reproduced: run 0.5, 0.5 over baseline 0.25, 0.5 -> MI 0.125, RI (0.5 - 0.375) / 0.375 = 1/3
    runs = _series([0.5, 0.75]), _series([0.25, 0.25]), _series([0.5, 0.5]), _series([0.25, 0.5])
    assert effect_ratio(*runs) == 1 / 3
    assert delta_ri(*runs) == 1.5 - 1 / 3
    same = _series([0.5, 0.75]), _series([0.25, 0.25]), _series([0.5, 0.75]), _series([0.25, 0.25])
    assert effect_ratio(*same) == 1.0 and delta_ri(*same) == 0.0
    flat = _series([0.25, 0.25]), _series([0.25, 0.25]), _series([0.5, 0.5]), _series([0.25, 0.5])
    assert effect_ratio(*flat) is None          # no original improvement to reproduce: no ratio


def test_ktu_by_hand():
    # union a..e; original positions 0 1 2 3, reproduced 1 0 2 4: of 6 pairs only the first is discordant
    o, r = _ranked({"1": ["a", "b", "c", "d"], "2": ["x", "y"]}), _ranked({"1": ["b", "a", "c", "e"], "2": ["x", "y"]})
    tau = ktu(o, r)
    assert tau["1"] == pytest.approx(4 / 6, abs=1e-6) and tau["2"] == pytest.approx(1.0, abs=1e-6)
    # reversed lists: every pair discordant
    assert ktu(_ranked({"1": list("abcd")}), _ranked({"1": list("dcba")}))["1"] == pytest.approx(-1.0, abs=1e-6)


def test_rbo_by_hand():
    # equal lengths, p = 0.8: X = 0, 2, 2 -> 0.25 (0 + 1 * 0.64 + 2/3 * 0.512) + 2/3 * 0.512 = 0.586667
    assert rbo(_ranked({"1": list("abc")}), _ranked({"1": list("bad")}), 0.8)["1"] == pytest.approx(0.586667, abs=1e-6)
    # S = a b, L = b c a: X = 0, 1, 2 -> 0.25 (0.32 + 0.341333 + 1 * 1/6 * 0.512) + (1/3 + 1/2) 0.512 = 0.613333
    assert rbo(_ranked({"1": list("ab")}), _ranked({"1": list("bca")}), 0.8)["1"] == pytest.approx(0.613333, abs=1e-6)
    assert rbo(_ranked({"1": list("bca")}), _ranked({"1": list("ab")}), 0.8)["1"] == pytest.approx(0.613333, abs=1e-6)
    same = _ranked({"1": list("abcdefg")})
    assert rbo(same, same, 0.9)["1"] == pytest.approx(1.0, abs=1e-12)
    assert rbo(_ranked({"1": list("abc")}), _ranked({"1": list("xyz")}), 0.8)["1"] == 0.0


def _rbo_ext_loop(S: list[str], L: list[str], p: float) -> float:
    """Webber et al. 2010, equation 32, one depth at a time (the test's reference)."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    X = [len(set(S[:d]) & set(L[:d])) for d in range(1, l + 1)]
    first = sum(X[d - 1] / d * p ** d for d in range(1, l + 1))
    second = sum(X[s - 1] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    return (1 - p) / p * (first + second) + ((X[l - 1] - X[s - 1]) / l + X[s - 1] / s) * p ** l


def test_rbo_equals_the_loop_on_random_lists():
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(60)]
    o, r = {}, {}
    for q in range(30):
        o[str(q)] = list(rng.choice(docs, size=rng.integers(1, 40), replace=False))
        r[str(q)] = list(rng.choice(docs, size=rng.integers(1, 40), replace=False))
    for p in (0.5, 0.8, 0.95):
        got = rbo(_ranked(o), _ranked(r), p)
        for q in o:
            assert got[q] == pytest.approx(_rbo_ext_loop(o[q], r[q], p), abs=1e-9)


@pytest.fixture(scope="module")
def robust():
    """Per-topic values and rankings of two Robust 2003 runs, and their files."""
    from core.engine.evaluate import evaluate_files
    files = {role: robust_run(name) for role, name in
             (("original", "pircRBa1"), ("reproduced", "aplrob03a"), ("original_baseline", "humR03dc"),
              ("reproduced_baseline", "UIUC03Rd1"))}
    result = evaluate_files(reference_file(ROBUST_QRELS), list(files.values()), ["AP", "nDCG@10"])
    return files, result.per_query, dict(zip(files, result.runs))


def _nested(per_query: pd.DataFrame, run: str) -> dict:
    sub = per_query[per_query["run"] == run]
    out: dict = {}
    for q, m, v in zip(sub["qid"], sub["measure"], sub["value"]):
        out.setdefault(str(q), {})[m] = float(v)
    return {q: out[q] for q in sorted(out)}


def test_repro_eval_050_gives_the_same_numbers(robust):
    """repro_eval 0.5.0's own functions on the same per-topic values and run files."""
    warnings.simplefilter("ignore", DeprecationWarning)      # repro_eval imports scipy.stats.stats
    from repro_eval.measure.document_order import KTU
    from repro_eval.measure.effectiveness import RMSE
    from repro_eval.measure.overall_effects import DRI, ER
    from repro_eval.measure.statistics import ttest
    from repro_eval.util import break_ties, load_run
    files, per_query, names = robust
    result = reproduce(per_query, per_query, names, ["AP", "nDCG@10"],
                       rankings={role: ranked(read_run(path).table) for role, path in files.items()})
    nested = {role: _nested(per_query, name) for role, name in names.items()}
    for pair, o, r in (("run", "original", "reproduced"), ("baseline", "original_baseline", "reproduced_baseline")):
        want_rmse, want_p = RMSE(nested[o], nested[r]), ttest(nested[o], nested[r])
        for row in (m for m in result.measures if m.pair == pair):
            assert row.rmse == pytest.approx(want_rmse[row.measure], abs=1e-12)
            assert row.p_value == pytest.approx(want_p[row.measure], abs=1e-12)
        agreement = next(a for a in result.agreement if a.pair == pair)
        run_o, run_r = break_ties(load_run(str(files[o]))), break_ties(load_run(str(files[r])))
        # repro_eval needs lists of equal length: both cut to the shorter one's, as core.repro.ordering compares them
        cut = {q: min(len(run_o[q]), len(run_r[q])) for q in run_o if q in run_r}
        want = KTU({q: dict(list(run_o[q].items())[:n]) for q, n in cut.items()},
                   {q: dict(list(run_r[q].items())[:n]) for q, n in cut.items()}, trim_thresh=1000, per_topic=True)
        assert {q: k for q, k, _ in agreement.per_topic} == pytest.approx(want, abs=1e-12)
        assert agreement.ktu == pytest.approx(np.mean(list(want.values())), abs=1e-12)
    args = dict(orig_score_a=nested["original"], orig_score_b=nested["original_baseline"],
                rep_score_a=nested["reproduced"], rep_score_b=nested["reproduced_baseline"])
    er, dri = ER(**args), DRI(**args)
    for e in result.effects:
        assert e.effect_ratio == pytest.approx(er[e.measure], abs=1e-12)
        assert e.delta_ri == pytest.approx(dri[e.measure], abs=1e-12)


def test_identical_runs_reproduce_perfectly(robust):
    files, per_query, names = robust
    ranking = ranked(read_run(files["original"]).table)
    same = {"original": names["original"], "reproduced": names["original"]}
    result = reproduce(per_query, per_query, same, ["AP"], rankings={"original": ranking, "reproduced": ranking})
    (a,), (m,) = result.agreement, result.measures
    assert a.ktu == pytest.approx(1.0) and a.rbo == pytest.approx(1.0) and m.rmse == 0.0 and m.p_value == 1.0
    assert paired_p(np.array([0.1, 0.2]), np.array([0.1, 0.2])) == 1.0 and not result.effects


def test_replicability_uses_welchs_test_and_no_orderings(robust):
    from scipy import stats
    _, per_query, names = robust
    result = reproduce(per_query, per_query, names, ["AP"], replicability=True)
    assert result.kind == "replicability" and not result.agreement and all(m.rmse is None for m in result.measures)
    x = per_query.query(f"run == '{names['original']}' and measure == 'AP'")["value"]
    y = per_query.query(f"run == '{names['reproduced']}' and measure == 'AP'")["value"]
    run_row = next(m for m in result.measures if m.pair == "run")
    assert run_row.p_value == pytest.approx(stats.ttest_ind(x, y, equal_var=False).pvalue, abs=1e-12)
    assert len(result.effects) == 1 and math.isfinite(result.effects[0].effect_ratio)


def test_one_baseline_alone_and_a_bad_p_are_refused(robust):
    _, per_query, names = robust
    with pytest.raises(EvalError, match="Give both baselines"):
        reproduce(per_query, per_query, {k: v for k, v in names.items() if k != "reproduced_baseline"}, ["AP"])
    with pytest.raises(EvalError, match="--rbo-p must be between 0 and 1"):
        reproduce(per_query, per_query, names, ["AP"], rbo_p=1.0)
    with pytest.raises(EvalError, match="RBO's p must be between 0 and 1"):
        rbo(_ranked({"1": ["a"]}), _ranked({"1": ["a"]}), 0.0)
