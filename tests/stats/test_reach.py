"""Every pair of runs tested so that a difference can be significant (core.stats.reach and the rank resolution that
follows its plan): the max-statistic test against an exhaustive enumeration of every permutation (plain loops, and
scipy.stats.permutation_test's exact null distribution), its p-values' properties, the letters against the pairs'
decisions, the 17 TREC 2003 Robust runs, and the words said when no pair can be significant."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sp

from core.stats import multisys, reach
from core.stats.resolution import complete_matrix, resolve, resolve_matrix
from tests.oracle_stats import naive_max_statistic


def exhaustive_max_statistic(X) -> np.ndarray:
    """The exact p-values of the max-statistic test, plain loops: every one of the k!^n ways to permute each topic's
    values among the runs; a pair's p-value is the share of them whose largest difference of run means (over all
    pairs) reaches the pair's observed |difference|. The identity is one of them, so no p-value is 0."""
    n, k = X.shape
    means = [sum(X[t][j] for t in range(n)) / n for j in range(k)]
    maxima = []
    for perms in itertools.product(list(itertools.permutations(range(k))), repeat=n):
        sums = [sum(X[t][perms[t][j]] for t in range(n)) / n for j in range(k)]
        maxima.append(max(abs(sums[a] - sums[b]) for a, b in itertools.combinations(range(k), 2)))
    out = np.full((k, k), np.nan)
    for a, b in itertools.combinations(range(k), 2):
        d = abs(means[a] - means[b])
        out[a, b] = out[b, a] = sum(1 for m in maxima if m >= d - 1e-12) / len(maxima)
    return out


def _matrix(n, k, seed, spread=0.06):
    rng = np.random.default_rng(seed)
    return np.clip(rng.random(n)[:, None] + spread * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, k)), 0, 1)


def check_letters(letters, p, alpha):
    """Piepho's guarantee, both ways: two runs share a letter exactly when they are not significantly different."""
    for i, j in itertools.combinations(range(len(letters)), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        assert share == (not p[i, j] < alpha), (i, j, letters[i], letters[j], p[i, j])


@pytest.mark.parametrize("n,k,seed", [(4, 3, 0), (3, 4, 1), (5, 3, 2)])
def test_max_statistic_against_every_permutation(n, k, seed):
    """The Monte Carlo p-values converge on the exact ones: 40,000 seeded permutations, within 4.5 standard errors."""
    X = _matrix(n, k, seed)
    exact = exhaustive_max_statistic(X)
    B = 40_000
    got = multisys.randomization_all(X, B, seed)
    a, b = np.triu_indices(k, 1)
    se = np.sqrt(exact[a, b] * (1 - exact[a, b]) / B) + 1 / B
    assert (np.abs(got[a, b] - exact[a, b]) <= 4.5 * se).all(), (got[a, b], exact[a, b])


def test_exhaustive_oracle_agrees_with_scipy_permutation_test():
    """scipy permutes each observation's values among the k samples (permutation_type='samples') and enumerates all
    k!^n arrangements exactly: its null distribution of the range of means gives the same p-values."""
    X = _matrix(4, 3, 0)

    def spread(*cols, axis):
        m = np.stack([c.mean(axis=axis) for c in cols])
        return m.max(axis=0) - m.min(axis=0)
    res = sp.permutation_test([X[:, j] for j in range(3)], spread, permutation_type="samples", vectorized=True,
                              n_resamples=np.inf, alternative="greater")
    assert len(res.null_distribution) == math.factorial(3) ** 4
    means = X.mean(axis=0)
    exact = exhaustive_max_statistic(X)
    for a, b in itertools.combinations(range(3), 2):
        assert exact[a, b] == pytest.approx(np.mean(res.null_distribution >= abs(means[a] - means[b]) - 1e-12))
    assert np.nanmin(exact) == pytest.approx(res.pvalue)          # the pair with the largest difference


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 12), k=st.integers(2, 7), seed=st.integers(0, 10_000), B=st.integers(1, 400))
def test_max_statistic_p_values_are_in_range_and_monotone(n, k, seed, B):
    X = np.round(np.random.default_rng(seed).random((n, k)), 2)        # rounded: ties between pairs happen
    p = multisys.randomization_all(X, B, seed)
    a, b = np.triu_indices(k, 1)
    d = np.abs(X.mean(axis=0)[a] - X.mean(axis=0)[b])
    q = p[a, b]
    assert ((q > 0) & (q <= 1)).all() and (q >= 1 / (B + 1) - 1e-15).all()
    order = np.argsort(d, kind="stable")
    assert (np.diff(q[order]) <= 1e-12).all(), "a larger |difference| never has a larger p-value"
    assert q[np.argmax(d)] == q.min() and q[np.argmin(d)] == q.max()


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_randomisation_with_a_family_wise_correction_is_the_max_statistic(correction):
    """The letters' p-values are the max-statistic test's (the loop oracle on the same draws), with no correction
    on top; runs sorted by name first, as resolve_matrix does."""
    X = _matrix(9, 5, 4)
    res = resolve_matrix(X, ["r0", "r1", "r2", "r3", "r4"], "AP", test="randomization", correction=correction,
                         n_resamples=300, seed=3)
    assert res.plan.method == "randomization-all" and res.plan.applied == "none" and res.plan.n_resamples == 400
    np.testing.assert_allclose(res.p, naive_max_statistic(X, 400, 3))          # B = max(300, 20 / 0.05)
    check_letters(res.group, res.p, 0.05)
    assert f"controls the family-wise error over all 10 pairs by itself, so no {correction.title()} correction" \
        in res.legend()


@pytest.mark.parametrize("test,correction,alpha,want", [
    ("randomization", "bh", 0.05, 20 * 10 / 0.05), ("randomization", "none", 0.01, 2000),
    ("bootstrap", "holm", 0.05, 4000), ("bootstrap", "none", 0.05, 1000), ("randomization-all", "none", 0.01, 2000),
    ("randomization", "holm", 0.05, 1000), ("t", "holm", 0.05, 0), ("tukey", "bh", 0.05, 0)])
def test_resamples_follow_the_rule(test, correction, alpha, want):
    plan = reach.plan_pairs(test, correction, n_runs=5, n_topics=50, alpha=alpha, n_resamples=1000)
    assert plan.n_resamples == want and plan.reachable and plan.warning() is None
    if not plan.n_resamples:
        assert plan.floor == 0.0                    # a parametric p-value has no floor
    if plan.applied in reach.FAMILY_WISE and plan.n_resamples:
        assert plan.floor == pytest.approx(plan.n_pairs / (plan.n_resamples + 1))
        assert plan.floor * RESAMPLE_MARGIN <= alpha


RESAMPLE_MARGIN = 19.9        # B >= 20 m / alpha puts the smallest corrected p-value ~20 times below alpha


def test_resamples_are_capped_and_the_cap_is_said():
    plan = reach.plan_pairs("bootstrap", "holm", n_runs=60, n_topics=200, alpha=0.01, n_resamples=1000)
    assert plan.n_resamples == reach.MAX_RESAMPLES and not plan.reachable
    assert plan.warning() == (
        "No pair of runs can be significantly different at α = 0.01 with this test: the smallest p-value the paired "
        "bootstrap test can give over 200 topics and 100,000 resamples is 1e-05, and Holm over the 1,770 pairs "
        "raises it to 0.0177. The runs share one letter for that reason, not because they perform alike. Choose "
        "randomisation with Holm or Bonferroni (one max-statistic test over all pairs), Tukey HSD or the t-test, or "
        "compare fewer runs.")


def test_few_topics_cannot_reach_alpha_and_the_resolution_says_so():
    """3 topics: a sign-flip p-value is never below 2 / 2^3 = 0.25, so no letter can split the runs; the max
    statistic over 3 runs can go down to 3!^-2 = 1/36."""
    X = np.array([[0.1, 0.5, 0.9], [0.2, 0.6, 1.0], [0.0, 0.4, 0.8]])
    res = resolve_matrix(X, ["a", "b", "c"], "AP", test="randomization", correction="none")
    assert res.group == ("a", "a", "a") and np.nanmin(res.p) >= 0.25 - 0.02
    assert res.plan.floor == 0.25 and res.warning() == (
        "No pair of runs can be significantly different at α = 0.05 with this test: the smallest p-value the Fisher "
        "randomisation test can give over 3 topics and 1,000 resamples is 0.25. The runs share one letter for that "
        "reason, not because they perform alike. Compare the runs on more topics, or choose Tukey HSD or the t-test.")
    joined = resolve_matrix(X, ["a", "b", "c"], "AP", test="randomization", correction="holm")
    assert joined.warning() is None and joined.plan.floor == pytest.approx(1 / 36)
    assert joined.p[0, 2] < 0.05 and joined.group[0] != joined.group[2]


@pytest.fixture(scope="module")
def robust_ap():
    """AP (and the Leaderboard's other default measures) of the 17 TREC 2003 Robust runs over the 100 topics of the
    NIST qrels."""
    from core.engine.evaluate import evaluate_files
    from tests.cases.reference import ROBUST_QRELS, reference_file, robust_runs
    result = evaluate_files(str(reference_file(ROBUST_QRELS)), [str(p) for p in robust_runs()],
                            ["AP", "nDCG@10", "P@10", "R@1000", "RR"])
    return result.per_query


def test_robust_runs_cannot_separate_with_1000_resamples_and_holm(robust_ap):
    """What the plan avoids: 1,000 sign flips per pair and Holm over 136 pairs cannot go below 136 / 1,001."""
    X, _ = complete_matrix(robust_ap, "AP", sorted(set(robust_ap["run"])))
    assert X.shape == (100, 17)
    p = multisys.all_pairs(X, "randomization", "holm", n_resamples=1000)
    assert np.nanmin(p) == pytest.approx(136 / 1001)


@pytest.mark.parametrize("test,correction", [("randomization", "holm"), ("randomization", "bonferroni"),
                                             ("randomization", "bh"), ("randomization-all", "none"),
                                             ("bootstrap", "holm")])
def test_robust_runs_every_pair_finds_differences(robust_ap, test, correction):
    res = resolve(robust_ap, measures=["AP"], test=test, correction=correction, n_resamples=1000)["AP"]
    assert len(res.runs) == 17 and res.n_topics == 100
    means = np.array(res.means)
    best, worst = int(np.argmax(means)), int(np.argmin(means))
    assert (res.runs[best], res.runs[worst]) == ("pircRBa1", "rutcor03100") and means[best] - means[worst] > 0.2
    assert res.p[best, worst] < 0.05 and set(res.group[best]).isdisjoint(res.group[worst])
    assert len(set(res.group)) > 1 and res.warning() is None
    check_letters(res.group, res.p, 0.05)
    if (test, correction) == ("randomization", "holm"):                      # as docs/statistics.md says
        assert (round(means[best], 3), round(means[worst], 3)) == (0.310, 0.074)
        assert int((res.p < 0.05).sum()) // 2 == 68 and set("".join(res.group)) == set("abcdef")


def test_the_report_legend_says_it_too():
    """The command line's `compare --ranks` prints Report.legend(): the same words as the dashboard."""
    import pandas as pd
    from core.stats.baselines import report
    X = np.array([[0.1, 0.5, 0.9], [0.2, 0.6, 1.0], [0.0, 0.4, 0.8]])
    pq = pd.DataFrame([(run, f"q{t}", "AP", X[t, j]) for t in range(3) for j, run in enumerate("abc")],
                      columns=["run", "qid", "measure", "value"])
    legend = report(pq, baselines="a", test="randomization", correction="none", ranks=True).legend()
    assert legend.endswith("The runs share one letter for that reason, not because they perform alike. Compare the "
                           "runs on more topics, or choose Tukey HSD or the t-test.")
    assert "No pair of runs" not in report(pq, baselines="a", test="t", ranks=True).legend()


def test_robust_baseline_marks_that_cannot_appear_are_said(robust_ap):
    """The max-statistic p-values against a baseline, with Holm on top over 16 runs x 5 measures: 1,000 permutations
    give no adjusted p-value below 80 / 1,001, so no cell can be marked; the legend says so. With no correction on
    top, cells are marked and nothing is said."""
    from core.stats.baselines import report, unreachable
    held = report(robust_ap, baselines="aplrob03a", test="randomization-all", correction="holm", n_resamples=1000)
    c = held.comparisons[0]
    assert len([r for r in c.rows if r.p_value is not None]) == 80
    assert min(r.p_corrected for r in c.rows if r.p_corrected is not None) >= 80 / 1001 - 1e-12
    assert not any(r.significant for r in c.rows)
    said = unreachable(held.comparisons)
    assert said == (
        "No run can be significantly different at α = 0.05 with this test: the smallest p-value the max-statistic "
        "randomisation test (randomised Tukey HSD) can give over 100 topics and 1,000 resamples is 0.000999, and "
        "Holm over the 80 tests raises it to 0.0799. No cell is marked significant for that reason, not because "
        "the runs perform alike. Its p-values are already adjusted over every pair of runs: choose no correction.")
    assert said in held.legend() and said in held.to_text()
    free = report(robust_ap, baselines="aplrob03a", test="randomization-all", correction="none", n_resamples=1000)
    assert any(r.significant for r in free.comparisons[0].rows) and unreachable(free.comparisons) is None


@pytest.mark.parametrize("test,correction,n_tests,alpha,fix", [
    ("randomization", "holm", 80, 0.05, None), ("randomization", "holm", 294, 0.01, "fewer runs or measures"),
    ("bootstrap", "bh", 10_000, 0.01, None), ("t", "bonferroni", 10_000, 0.01, None),
    ("tukey", "holm", 10_000, 0.01, None)])
def test_family_warning(test, correction, n_tests, alpha, fix):
    said = reach.family_warning(test, correction, n_tests=n_tests, n_runs=50, n_topics=100, n_resamples=10_000,
                                alpha=alpha)
    assert (said is None) == (fix is None)
    if fix:
        assert said.startswith("No run can be significantly different") and fix in said
        assert f"over the {n_tests} tests raises it to {n_tests / 10_001:.3g}" in said
