"""How every pair of runs is tested so that a difference can be significant: the all-pairs test that runs for a
chosen test and correction, its number of resamples, and the smallest adjusted p-value it can give (the table and
the examples are in docs/statistics.md, "Every pair can reach significance").

A resampling p-value is (b + 1) / (B + 1), never below 1 / (B + 1), and a correction over m pairs multiplies the
smallest one by up to m. So randomisation with Holm or Bonferroni runs as the max-statistic permutation test
(randomised Tukey HSD, core.stats.multisys.randomization_all), which controls the family-wise error over all pairs
by itself; any other resampling test draws B = max(asked, ceil(20·m / α)) resamples (m = the pairs the correction
spans, 1 with none; at most MAX_RESAMPLES), so that the smallest corrected p-value lies 20 times below α; the
max-statistic test asked for directly draws max(asked, ceil(20 / α)). Few topics keep a floor above α whatever B
(2 / 2^n for a sign-flip test over n topics, k! / k!^n for the max statistic): `PairPlan.floor` is the smallest
adjusted p-value a plan can give and `PairPlan.warning()` says in words why no pair can be significant;
`family_warning` says the same of the tests of every run against a baseline (their resamples are as asked).

References
- B. Carterette. "Multiple testing in statistical analysis of systems-based information retrieval
  experiments." ACM TOIS 30(1), 2012 (the randomised Tukey HSD).
- P. H. Westfall, S. S. Young. "Resampling-Based Multiple Testing", Wiley, 1993 (single-step max-T).
- B. Phipson, G. K. Smyth. "Permutation p-values should never be zero." SAGMB 9(1), 2010.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from core.errors import OptionError
from core.stats.comparison import TEST_NAMES

RESAMPLES_PER_TEST = 20      # B >= 20 m / α: the smallest corrected p-value sits 20 times below α
MAX_RESAMPLES = 100_000      # no all-pairs resampling test draws more (50 runs x 5,000 topics: a few seconds)
FAMILY_WISE = ("bonferroni", "holm")
_CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni", "holm": "Holm", "bh": "Benjamini-Hochberg"}
_TEST_NAMES = {**TEST_NAMES,           # the paired tests as compare names them; the all-pairs tests said plainly here
               "tukey": "Tukey's HSD (two-way run x topic ANOVA)",
               "randomization-all": "max-statistic randomisation test (randomised Tukey HSD)"}


@dataclass(frozen=True)
class PairPlan:
    """How every pair of k runs over n topics is tested for a chosen `test` and `correction`."""
    test: str           # as chosen
    correction: str     # as chosen
    method: str         # the all-pairs test that runs (core.stats.multisys.all_pairs's `test`)
    applied: str        # the correction applied to its p-values ('none' after a multi-system test)
    n_resamples: int    # resamples of the method (0: not a resampling test)
    n_runs: int
    n_topics: int
    alpha: float
    floor: float        # the smallest adjusted p-value the method can give on k runs x n topics

    @property
    def n_pairs(self) -> int:
        return self.n_runs * (self.n_runs - 1) // 2

    @property
    def reachable(self) -> bool:
        """Whether any pair can be significantly different at α."""
        return self.floor < self.alpha

    def label(self) -> str:
        """How the matrix's p-values were computed and adjusted, for legends."""
        if self.method == "tukey":
            return _TEST_NAMES["tukey"]
        if self.method == "randomization-all":
            text = f"max-statistic randomisation test (randomised Tukey HSD, {self.n_resamples:,} permutations)"
            if self.test != self.method:
                text += (f", which controls the family-wise error over all {self.n_pairs:,} pairs by itself, so no "
                         f"{_CORRECTION_NAMES[self.correction]} correction is applied")
            return text
        corr = _CORRECTION_NAMES[self.applied]
        text = f"{_TEST_NAMES[self.method]} on every pair, {corr if self.applied == 'none' else corr + ' correction'}"
        text += "" if self.applied == "none" else f" over all {self.n_pairs:,} pairs"
        return text + (f", {self.n_resamples:,} resamples" if self.n_resamples else "")

    def warning(self) -> str | None:
        """Why no pair can be significant, or None when one can."""
        if self.reachable or self.n_runs < 2:
            return None
        raw = _raw_floor(self.method, self.n_runs, self.n_topics, self.n_resamples)
        if self.n_resamples and raw == 1.0 / (self.n_resamples + 1):
            fix = ("Choose randomisation with Holm or Bonferroni (one max-statistic test over all pairs), Tukey HSD or "
                   "the t-test, or compare fewer runs.")
        else:
            fix = "Compare the runs on more topics, or choose Tukey HSD or the t-test."
        return _say("No pair of runs", self.method, self.alpha, self.n_topics, self.n_resamples, raw, self.floor,
                    self.applied, f"the {self.n_pairs:,} pairs",
                    "The runs share one letter for that reason, not because they perform alike.", fix)


def _say(subject, method, alpha, n_topics, n_resamples, raw, floor, correction, family, consequence, fix) -> str:
    topics = f"{n_topics} topic" + ("s" if n_topics != 1 else "")
    text = (f"{subject} can be significantly different at α = {alpha:g} with this test: the smallest p-value the "
            f"{_TEST_NAMES[method]} can give over {topics}"
            + (f" and {n_resamples:,} resamples" if n_resamples else "") + f" is {raw:.3g}")
    if floor > raw:
        text += f", and {_CORRECTION_NAMES[correction]} over {family} raises it to {floor:.3g}"
    return f"{text}. {consequence} {fix}"


def family_warning(test: str, correction: str, *, n_tests: int, n_runs: int, n_topics: int, n_resamples: int,
                   alpha: float) -> str | None:
    """Why none of `n_tests` tests of `test` against a baseline, corrected together by `correction`, can be
    significant at α (n_topics: the most topics any of them pairs), or None when one can. A multi-system test's
    p-values are already adjusted over every pair of runs, with the resamples plan_pairs draws; the correction
    comes on top of them."""
    B = 0 if test in ("t", "wilcoxon", "tukey") else int(n_resamples)
    if test == "randomization-all":
        B = plan_pairs(test, "none", n_runs=n_runs, n_topics=n_topics, alpha=alpha, n_resamples=B).n_resamples
    raw = _raw_floor(test, n_runs, n_topics, B)
    floor = min(1.0, raw * n_tests) if correction in FAMILY_WISE else raw
    if floor < alpha or n_tests < 1:
        return None
    if test in ("tukey", "randomization-all") and correction != "none":
        fix = "Its p-values are already adjusted over every pair of runs: choose no correction."
    elif B and raw == 1.0 / (B + 1):
        fix = "Choose the t-test, or compare fewer runs or measures."
    else:
        fix = "Compare the runs on more topics, or choose the t-test."
    return _say("No run", test, alpha, n_topics, B, raw, floor, correction, f"the {n_tests:,} tests",
                "No cell is marked significant for that reason, not because the runs perform alike.", fix)


def needed_resamples(n_tests: int, alpha: float, asked: int = 0) -> int:
    """max(asked, ceil(RESAMPLES_PER_TEST · n_tests / α)), at most MAX_RESAMPLES (and never below `asked`)."""
    want = math.ceil(RESAMPLES_PER_TEST * max(n_tests, 1) / alpha - 1e-9)
    return max(int(asked), min(want, MAX_RESAMPLES))


def _raw_floor(method: str, k: int, n: int, n_resamples: int) -> float:
    """The smallest unadjusted p-value of `method` on any k runs x n topics (0: none)."""
    if n < 2:                                # no test compares runs over fewer than 2 topics
        return 1.0
    if method not in ("randomization", "bootstrap", "randomization-all"):
        return 0.0
    floor = 1.0 / (n_resamples + 1)
    if method == "randomization":            # a sign pattern and its mirror give the same |sum|
        floor = max(floor, 2.0 ** (1 - n))
    elif method == "randomization-all" and k >= 2:      # the k! relabellings of the runs keep the range
        floor = max(floor, math.exp((1 - n) * math.lgamma(k + 1)))
    return min(floor, 1.0)


def plan_pairs(test: str, correction: str, *, n_runs: int, n_topics: int, alpha: float,
               n_resamples: int = 1000) -> PairPlan:
    """The all-pairs test, resamples and smallest adjusted p-value for `test` and `correction` (module docstring)."""
    if correction not in _CORRECTION_NAMES:
        raise OptionError(f"unknown correction {correction!r}; choose one of {', '.join(_CORRECTION_NAMES)}")
    if test not in _TEST_NAMES:
        raise OptionError(f"unknown test {test!r}; choose one of {', '.join(_TEST_NAMES)}")
    if not 0 < alpha < 1:
        raise OptionError(f"alpha must lie between 0 and 1, not {alpha!r}")
    k, n = int(n_runs), int(n_topics)
    pairs = k * (k - 1) // 2
    method, applied = test, correction
    if test == "randomization" and correction in FAMILY_WISE:
        method = "randomization-all"
    if method in ("tukey", "randomization-all"):
        applied = "none"
    if method in ("t", "wilcoxon", "tukey"):
        B = 0
    elif method == "randomization-all":
        B = needed_resamples(1, alpha, n_resamples)
    else:
        B = needed_resamples(pairs if applied != "none" else 1, alpha, n_resamples)
    raw = _raw_floor(method, k, n, B)
    floor = min(1.0, raw * pairs) if applied in FAMILY_WISE else raw   # BH: raw, when every pair is that small
    return PairPlan(test=test, correction=correction, method=method, applied=applied, n_resamples=B, n_runs=k,
                    n_topics=n, alpha=float(alpha), floor=floor)


__all__ = ["PairPlan", "plan_pairs", "family_warning", "needed_resamples",
           "RESAMPLES_PER_TEST", "MAX_RESAMPLES", "FAMILY_WISE"]
