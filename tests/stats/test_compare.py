"""compare(): the statistics against their oracles on real Robust 2003 per-query data.

Per-query values are computed here with pytrec_eval (trec_eval's C code) on four of the 17 runs,
so the oracles (scipy.stats, statsmodels) see exactly the numbers compare() sees.
"""
from __future__ import annotations

import itertools

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats as sp
from statsmodels.stats.multitest import multipletests

from core.stats.compare import ROW_FIELDS, compare
from core.errors import EvalError
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_run

RUNS = ["InexpC2", "MU03rob01", "SABIR03BASE", "humR03dc"]
MEASURES = {"map", "P_10", "ndcg_cut_20", "recip_rank", "bpref"}


def _read_run(path) -> pd.DataFrame:
    return pd.read_csv(path, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["qid", "docno", "score"],
                       dtype={"qid": str, "docno": str, "score": float})


@pytest.fixture(scope="module")
def robust() -> pd.DataFrame:
    qrels_df = pd.read_csv(reference_file(ROBUST_QRELS), sep=r"\s+", header=None, names=["qid", "it", "docno", "rel"],
                           dtype={"qid": str, "docno": str, "rel": int})
    qrels = {q: dict(zip(g["docno"], g["rel"])) for q, g in qrels_df.groupby("qid")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    frames = []
    for name in RUNS:
        run_df = _read_run(robust_run(name))
        run = {q: dict(zip(g["docno"], g["score"])) for q, g in run_df.groupby("qid")}
        res = evaluator.evaluate(run)
        frames.append(pd.DataFrame([(name, q, m, v) for q, ms in res.items() for m, v in ms.items()],
                                   columns=["run", "qid", "measure", "value"]))
    return pd.concat(frames, ignore_index=True)


def _pair(per_query, run, baseline, measure):
    wide = per_query[per_query["measure"] == measure].pivot(index="qid", columns="run", values="value")
    wide = wide.sort_index()
    return wide[run].to_numpy(), wide[baseline].to_numpy()


@pytest.mark.parametrize("test,oracle", [("t", lambda x, y: sp.ttest_rel(x, y).pvalue),
                                         ("wilcoxon", lambda x, y: sp.wilcoxon(x, y).pvalue)])
def test_parametric_and_rank_tests_match_scipy(robust, test, oracle):
    c = compare(robust, baseline="InexpC2", test=test)
    checked = 0
    for run, measure in itertools.product(RUNS[1:], sorted(MEASURES)):
        x, y = _pair(robust, run, "InexpC2", measure)
        row = c.row(run, measure)
        assert row.p_value == pytest.approx(oracle(x, y), abs=1e-12, rel=0)
        assert row.mean == pytest.approx(x.mean(), abs=1e-12)
        assert row.delta == pytest.approx((x - y).mean(), abs=1e-12)
        assert row.effect_size == pytest.approx((x - y).mean() / np.std(x - y, ddof=1), abs=1e-12)
        assert (row.wins, row.ties, row.losses) == ((x > y).sum(), (x == y).sum(), (x < y).sum())
        assert row.n_queries == 100
        checked += 1
    assert checked == 15
    assert all(r.p_value is None and r.p_corrected is None and r.significant is None
               for r in c.rows if r.run == "InexpC2")


@pytest.mark.parametrize("correction,method", [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels_over_all_runs_and_measures(robust, correction, method):
    c = compare(robust, baseline="MU03rob01", test="t", correction=correction, alpha=0.01)
    rows = [r for r in c.rows if r.run != "MU03rob01"]
    assert len(rows) == 15
    reject, expected, _, _ = multipletests([r.p_value for r in rows], alpha=0.01, method=method)
    np.testing.assert_allclose([r.p_corrected for r in rows], expected, rtol=0, atol=1e-15)
    assert [r.significant for r in rows] == [bool(x) for x in expected < 0.01]
    assert sum(r.significant for r in rows) > 0  # the family has real differences in it
    none = compare(robust, baseline="MU03rob01", test="t")
    assert [r.p_corrected for r in none.rows] == [r.p_value for r in none.rows]


def test_randomization_is_deterministic_and_agrees_with_t_on_clear_cases(robust):
    a = compare(robust, baseline="InexpC2", test="randomization", n_resamples=4000, seed=7)
    b = compare(robust, baseline="InexpC2", test="randomization", n_resamples=4000, seed=7)
    other = compare(robust, baseline="InexpC2", test="randomization", n_resamples=4000, seed=8)
    t = compare(robust, baseline="InexpC2", test="t")
    assert a == b and a.to_dataframe().equals(b.to_dataframe())
    assert [r.p_value for r in a.rows] != [r.p_value for r in other.rows]
    clear = 0
    for ra, rt in zip(a.rows, t.rows):
        if rt.p_value is None:
            continue
        assert 1 / 4001 <= ra.p_value <= 1
        if rt.p_value < 1e-4:
            assert ra.p_value < 0.01, (ra.run, ra.measure)
            clear += 1
        elif rt.p_value > 0.5:
            assert ra.p_value > 0.2, (ra.run, ra.measure)
            clear += 1
    assert clear >= 5


def test_bootstrap_test_agrees_with_t_on_clear_cases(robust):
    boot = compare(robust, baseline="SABIR03BASE", test="bootstrap", n_resamples=4000)
    t = compare(robust, baseline="SABIR03BASE", test="t")
    for rb, rt in zip(boot.rows, t.rows):
        if rt.p_value is not None and rt.p_value < 1e-4:
            assert rb.p_value < 0.01
        if rt.p_value is not None and rt.p_value > 0.5:
            assert rb.p_value > 0.2
    assert boot == compare(robust, baseline="SABIR03BASE", test="bootstrap", n_resamples=4000)


def test_bootstrap_ci_contains_the_mean_and_shrinks_with_more_queries(robust):
    c = compare(robust, baseline="InexpC2", n_resamples=4000)
    for r in c.rows:
        assert r.ci_low <= r.mean <= r.ci_high and r.ci_low < r.ci_high
    # the same queries four times over: same spread, four times the queries, half the width
    big = pd.concat([robust.assign(qid=robust["qid"] + f"-{k}") for k in range(4)], ignore_index=True)
    c4 = compare(big, baseline="InexpC2", n_resamples=4000)
    for r, r4 in zip(c.rows, c4.rows):
        assert r4.mean == pytest.approx(r.mean, abs=1e-12)
        width, width4 = r.ci_high - r.ci_low, r4.ci_high - r4.ci_low
        assert 0.4 * width < width4 < 0.6 * width
    # and the width is the normal approximation's 2 * 1.96 * sd / sqrt(n), to within 15%
    for r in c.rows:
        values = robust[(robust["run"] == r.run) & (robust["measure"] == r.measure)]["value"]
        expected = 2 * 1.959964 * values.std(ddof=0) / np.sqrt(len(values))
        assert r.ci_high - r.ci_low == pytest.approx(expected, rel=0.15)


def _frame(table: dict) -> pd.DataFrame:
    return pd.DataFrame([(run, q, "AP", v) for run, vals in table.items() for q, v in vals.items()],
                        columns=["run", "qid", "measure", "value"])


def test_missing_topics_skip_versus_zero_and_the_note():
    pq = _frame({"base": {"1": 0.5, "2": 0.25, "3": 0.0, "4": 1.0},
                 "new": {"1": 0.75, "2": 0.25, "4": 0.5, "9": 0.9}})
    skip = compare(pq, baseline="base", missing="skip")
    row = skip.row("new", "AP")
    assert row.n_queries == 3 and row.mean == pytest.approx((0.75 + 0.25 + 0.5) / 3)
    assert row.delta == pytest.approx((0.25 + 0 - 0.5) / 3)
    assert row.rel_delta == pytest.approx(row.delta / ((0.5 + 0.25 + 1.0) / 3))
    assert (row.wins, row.ties, row.losses) == (1, 1, 1)
    assert skip.missing == "skip"
    assert "new lacks 1 of them (3)" in skip.missing_note and "skipped" in skip.missing_note
    assert "1 topic(s) outside that set" in skip.missing_note
    zero = compare(pq, baseline="base", missing="zero")
    row = zero.row("new", "AP")
    assert row.n_queries == 4 and row.mean == pytest.approx(1.5 / 4)
    assert (row.wins, row.ties, row.losses) == (1, 2, 1)
    assert "count as 0" in zero.missing_note
    given = compare(pq, baseline="base", missing="zero", all_qids=["1", "2", "3", "4", "5"])
    assert given.row("base", "AP").n_queries == 5 and "given topic list (5 topics)" in given.missing_note


def test_tie_tolerance_and_input_errors():
    pq = _frame({"base": {"1": 0.3, "2": 0.5, "3": 0.1}, "new": {"1": 0.1 + 0.2, "2": 0.5 + 1e-6, "3": 0.0}})
    row = compare(pq, baseline="base", tie_tol=1e-9).row("new", "AP")
    assert (row.wins, row.ties, row.losses) == (1, 1, 1)  # 0.1 + 0.2 != 0.3 in floating point, yet a tie
    row = compare(pq, baseline="base", tie_tol=1e-3).row("new", "AP")
    assert (row.wins, row.ties, row.losses) == (0, 2, 1)
    with pytest.raises(EvalError, match="Did you mean base"):
        compare(pq, baseline="bse")
    with pytest.raises(EvalError, match="Unknown test"):
        compare(pq, baseline="base", test="z")
    with pytest.raises(EvalError, match="Unknown measure 'nDCG'"):
        compare(pq, baseline="base", measures=["nDCG"])


@pytest.mark.parametrize("kwargs,message", [
    ({"n_resamples": 0}, "The number of resamples must be a whole number of at least 1 (e.g. 10000), not 0."),
    ({"n_resamples": 2.5}, "The number of resamples must be a whole number of at least 1 (e.g. 10000), not 2.5."),
    ({"alpha": 5}, "alpha must be between 0 and 1 (e.g. 0.05), not 5."),
    ({"tie_tol": -1e-9}, "tie_tol must be 0 or more, not -1e-09."),
    ({"measures": []}, "No measures to compare: the per-query table is empty or no measure was asked for."),
])
def test_bad_numbers_are_eval_errors_not_crashes(kwargs, message):
    pq = _frame({"base": {"1": 0.3, "2": 0.5, "3": 0.1}, "new": {"1": 0.2, "2": 0.6, "3": 0.0}})
    with pytest.raises(EvalError) as info:
        compare(pq, baseline="base", **kwargs)
    assert str(info.value) == message


def test_formats_dataframe_csv_latex():
    pq = pd.concat([_frame({"base": dict(zip(map(str, range(30)), np.linspace(0, 0.5, 30))),
                            "good_run": dict(zip(map(str, range(30)), np.linspace(0, 0.5, 30) + 0.3 + 0.01 * np.sin(range(30))))}),
                    _frame({"base": dict(zip(map(str, range(30)), np.linspace(0, 0.5, 30))),
                            "good_run": dict(zip(map(str, range(30)), np.linspace(0, 0.5, 30)))}).assign(measure="P@10")])
    c = compare(pq, baseline="base", correction="holm")
    df = c.to_dataframe()
    assert list(df.columns) == list(ROW_FIELDS) and len(df) == 4
    back = pd.read_csv(__import__("io").StringIO(c.to_csv()))
    assert back["mean"].tolist() == pytest.approx(df["mean"].tolist())
    tex = c.to_latex()
    best = f"{c.row('good_run', 'AP').mean:.4f}"
    assert r"good\_run & \textbf{" + best + r"}$^{\dagger}$ &" in tex  # best AP and significant
    assert r"base (baseline) & 0.2500 & \textbf{0.2500}" in tex  # P@10 tie: both bold, no marker
    assert "Holm" in tex or "holm" in tex
    assert "good_run" in c.to_text() and c.missing_note in c.to_text()


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=3, max_size=25),
       st.sampled_from(["t", "wilcoxon", "randomization", "bootstrap"]))
def test_swapping_run_and_baseline_mirrors_the_row(pairs, test):
    pq = _frame({"a": {str(i): x for i, (x, _) in enumerate(pairs)}, "b": {str(i): y for i, (_, y) in enumerate(pairs)}})
    ab = compare(pq, baseline="a", test=test, n_resamples=500).row("b", "AP")
    ba = compare(pq, baseline="b", test=test, n_resamples=500).row("a", "AP")
    assert ab.delta == pytest.approx(-ba.delta, abs=1e-12)
    assert (ab.wins, ab.ties, ab.losses) == (ba.losses, ba.ties, ba.wins)
    # every test is two-sided and the resamples are seeded, so the p-value is the same both ways
    assert (ab.p_value is None) == (ba.p_value is None)
    if ab.p_value is not None:
        assert ab.p_value == pytest.approx(ba.p_value, abs=1e-9)
    assert ab.p_value is None or 0 <= ab.p_value <= 1  # scipy's t-test says 0 for a constant non-zero difference
    if test in ("randomization", "bootstrap"):
        assert ab.p_value >= 1 / 501  # (b + 1) / (n + 1): never 0


def test_compare_stored_equals_compare_on_the_engine_frames(tmp_path):
    from core.service.compare import compare_stored
    from core.engine.evaluate import evaluate_frames
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        ids, names = runs["run_id"].astype(int).tolist(), runs["name"].tolist()
        stored = compare_stored(store, SAMPLE_COLLECTION, ids[1:], ["AP", "P@10"], ids[0], test="wilcoxon")
        qrels = store.qrels(store.default_qrels_id(SAMPLE_COLLECTION))
        run_df = pd.concat([store.run_rows(i).assign(run=n) for i, n in zip(ids, names)], ignore_index=True)
        frames = compare(evaluate_frames(qrels, run_df, ["AP", "P@10"]).per_query, baseline=names[0],
                         test="wilcoxon")
        assert stored.baseline == names[0] and list(stored.runs) == names
        def by_run(c):  # the engine's frames come back in name order; the store's in the order asked
            return c.to_dataframe().sort_values(["run", "measure"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(by_run(stored), by_run(frames), check_exact=False, rtol=0, atol=1e-12)
        assert len(stored.rows) == 2 * len(ids)


def test_latex_escapes_every_special_character_in_names():
    """A run name is user text: in LaTeX it must stay text (no \\input, no stray ~ ^ or braces)."""
    name = r"bm25\input{/etc/passwd}_v2~^&%$#"
    pq = _frame({"base": {"1": 0.1, "2": 0.2, "3": 0.3}, name: {"1": 0.2, "2": 0.1, "3": 0.4}})
    tex = compare(pq, baseline="base").to_latex()
    escaped = r"bm25\textbackslash{}input\{/etc/passwd\}\_v2\textasciitilde{}\textasciicircum{}\&\%\$\#"
    assert escaped + " & " in tex
    assert r"\input{" not in tex and "~" not in tex


def test_17_runs_100_topics_10_measures_10000_permutations_full_size():
    """17 runs x 100 topics x 10 measures end to end: one seeded sign matrix per block for all 160 comparisons.
    (Its speed is measured by benchmarks/, never asserted here: tests do not time things.)"""
    rng = np.random.default_rng(0)
    runs, qids, measures = [f"r{i}" for i in range(17)], [str(q) for q in range(100)], [f"m{m}" for m in range(10)]
    idx = pd.MultiIndex.from_product([runs, qids, measures], names=["run", "qid", "measure"])
    pq = pd.DataFrame({"value": rng.random(len(idx))}, index=idx).reset_index()
    c = compare(pq, baseline="r0", test="randomization", correction="holm", n_resamples=10_000)
    assert len(c.rows) == 170 and all(r.p_value >= 1 / 10_001 for r in c.rows if r.run != "r0")
    again = compare(pq, baseline="r0", test="randomization", correction="holm", n_resamples=10_000)
    assert [r.p_value for r in again.rows] == [r.p_value for r in c.rows]


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_with_correction_equals_a_fresh_compare_with_that_correction_and_alpha(robust, test):
    first = compare(robust, baseline="MU03rob01", test=test, n_resamples=2000)
    for correction in ("bonferroni", "holm", "bh", "none"):
        for alpha in (0.01, 0.05, 0.1):
            fresh = compare(robust, baseline="MU03rob01", test=test, correction=correction, alpha=alpha,
                            n_resamples=2000)
            again = first.with_correction(correction, alpha)
            assert again == fresh, (correction, alpha)
            assert again.legend() == fresh.legend() and again.to_csv() == fresh.to_csv()
    holm = first.with_correction("holm", 0.01)
    assert sum(r.significant for r in holm.rows if r.significant is not None) < \
        sum(r.significant for r in first.rows if r.significant is not None)   # the change shows
    assert first.correction == "none" and first.alpha == 0.05   # the original is unchanged (a value)
    assert holm.with_correction("none", 0.05) == first


def test_with_correction_rejects_bad_options_with_the_compare_wording(robust):
    c = compare(robust, baseline="MU03rob01", test="t")
    with pytest.raises(EvalError, match=r"Unknown correction 'sidak'\. Choose one of: none, bonferroni, holm, bh\."):
        c.with_correction("sidak")
    with pytest.raises(EvalError, match="alpha must be between 0 and 1"):
        c.with_correction("holm", 1.5)


def _synthetic(n_runs=5, n_topics=60, measures=("A", "B", "C"), seed=2) -> pd.DataFrame:
    """Random per-query values; run r2 lacks every 4th topic, r3 lacks topics 0-9 for measure B only."""
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(n_runs):
        for m in measures:
            qids = [str(q) for q in range(n_topics)
                    if not (r == 2 and q % 4 == 0) and not (r == 3 and m == "B" and q < 10)]
            parts.append(pd.DataFrame({"run": f"r{r}", "qid": qids, "measure": m,
                                       "value": rng.random(len(qids))}))
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_resampling_of_one_measure_does_not_depend_on_the_other_measures(test, missing):
    """compare() draws the resamples once for all measures; each measure still gets exactly the
    seeded draws it would get alone, so its CIs and p-values equal a compare() of that measure only."""
    pq = _synthetic()
    together = compare(pq, baseline="r0", test=test, missing=missing, n_resamples=800, seed=5)
    for m in ("A", "B", "C"):
        alone = compare(pq[pq["measure"] == m], baseline="r0", test=test, missing=missing,
                        n_resamples=800, seed=5)
        for r in alone.rows:
            t = together.row(r.run, m)
            assert (t.n_queries, t.wins, t.losses) == (r.n_queries, r.wins, r.losses)
            for f in ("mean", "ci_low", "ci_high", "delta", "p_value", "effect_size"):
                a, b = getattr(t, f), getattr(r, f)
                assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12), (r.run, m, f)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap", "tukey"])
def test_without_intervals_only_the_cis_are_left_out(test):
    """intervals=False (the Leaderboard's table) gives every field of the full comparison but the CIs, which
    are None; under test='bootstrap' the CIs come with the test's own draws and stay. A one-measure compare
    (the Leaderboard's chart) gives the CIs of the full call."""
    pq = _synthetic()
    full = compare(pq, baseline="r0", test=test, correction="holm", n_resamples=600, seed=3)
    lean = compare(pq, baseline="r0", test=test, correction="holm", n_resamples=600, seed=3, intervals=False)
    assert [(r.run, r.measure) for r in lean.rows] == [(r.run, r.measure) for r in full.rows]
    for a, b in zip(lean.rows, full.rows):
        assert b.ci_low is not None and b.ci_high is not None
        if test == "bootstrap":
            assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
        else:
            assert a.ci_low is None and a.ci_high is None
        assert replace(a, ci_low=b.ci_low, ci_high=b.ci_high) == b, (a.run, a.measure)
    for m in ("A", "B", "C"):
        alone = compare(pq, baseline="r0", measures=[m], test="t", n_resamples=600, seed=3)
        for r in alone.rows:
            f = full.row(r.run, m)
            assert r.ci_low == pytest.approx(f.ci_low, abs=1e-12) and r.ci_high == pytest.approx(f.ci_high, abs=1e-12)


def test_compare_ci_is_the_percentile_bootstrap_of_each_runs_mean_over_the_aligned_topics():
    """Each row's CI resamples the aligned topic set (the baseline's topics, in sorted qid order,
    the order the draws index) with the seeded draws stats._count_blocks(n topics) makes, and takes
    the mean over the drawn topics the run has (skip). Written out here with np.repeat. A run with
    every topic therefore gets exactly stats.bootstrap_ci of its own values."""
    from core.stats import paired as stats
    pq = _synthetic()
    c = compare(pq, baseline="r0", n_resamples=600, seed=8)
    qids = sorted(pq.loc[pq["run"] == "r0", "qid"].unique())
    counts = np.vstack(list(stats._count_blocks(len(qids), 600, 8))).astype(int)
    partial = 0
    for r in c.rows:
        own = pq[(pq["run"] == r.run) & (pq["measure"] == r.measure)].set_index("qid")["value"]
        x = own.reindex(qids).to_numpy()
        keep = ~np.isnan(x)
        means = np.array([np.repeat(x[keep], k[keep]).mean() for k in counts])
        low, high = np.quantile(means, [0.025, 0.975])
        assert r.ci_low == pytest.approx(low, abs=1e-12) and r.ci_high == pytest.approx(high, abs=1e-12)
        assert r.ci_low <= r.mean <= r.ci_high
        if keep.all():
            vals = own.sort_index().to_numpy()[:, None]
            alone = stats.bootstrap_ci(vals, np.ones_like(vals, dtype=bool), 600, 8)
            assert (r.ci_low, r.ci_high) == (pytest.approx(alone[0][0], abs=1e-12), pytest.approx(alone[1][0], abs=1e-12))
        else:
            partial += 1
    assert partial == 3 + 1   # r2 (every 4th topic) for A, B, C; r3 for B
