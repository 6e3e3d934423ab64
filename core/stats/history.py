"""A system's measure over its versions: each version's mean with a 95% t interval over its topics, and each step
(a version against the one before it) tested on the topics both have, with one correction over every step shown
-> the frozen `History` value.

- Interval: mean ± t(0.975, n - 1) · sd / sqrt(n), over the version's topics (scipy.stats.t.interval); none below
  two topics; the mean itself when every topic scores the same (sd 0, where scipy gives NaN).
- Step test, two-sided, on the topics both versions have: the paired t-test (scipy's ttest_rel), the Wilcoxon
  signed-rank test (scipy's wilcoxon; zero differences dropped) or the seeded Fisher randomisation test
  (p = (b + 1) / (n + 1)), as core.stats.paired defines them for the Leaderboard.
- Correction: statsmodels' multipletests over the p-values of all the steps shown (every system's), through
  core.stats.paired.correct. A step is marked ▲ (better) or ▼ (worse) when its corrected p is below alpha.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from core.errors import EvalError
from core.stats import paired
from core.stats.comparison import TEST_NAMES, num

STEP_TESTS = ("t", "wilcoxon", "randomization")
CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni correction", "holm": "Holm correction",
                    "bh": "Benjamini-Hochberg correction"}
UP, DOWN = "▲", "▼"


@dataclass(frozen=True)
class Version:
    system: str
    version: str
    run: str
    n_topics: int
    mean: float | None
    ci_low: float | None          # 95% t interval of the mean over the version's topics
    ci_high: float | None


@dataclass(frozen=True)
class Step:
    system: str
    before: str                   # run names
    after: str
    before_version: str
    after_version: str
    n_topics: int                 # topics both versions have
    delta: float | None           # mean over those topics of (after - before)
    p_value: float | None
    p_corrected: float | None
    significant: bool

    @property
    def mark(self) -> str:
        if not self.significant or self.delta is None or self.delta == 0:
            return ""
        return UP if self.delta > 0 else DOWN


@dataclass(frozen=True)
class History:
    measure: str
    test: str
    correction: str
    alpha: float
    versions: tuple[Version, ...]
    steps: tuple[Step, ...]

    def with_correction(self, correction: str, alpha: float | None = None) -> "History":
        """The same p-values under another correction (or alpha), without testing again."""
        alpha = self.alpha if alpha is None else alpha
        corrected = paired.correct([_nan(s.p_value) for s in self.steps], correction, alpha)
        steps = tuple(replace(s, p_corrected=num(p), significant=num(p) is not None and p < alpha)
                      for s, p in zip(self.steps, corrected))
        return replace(self, correction=correction, alpha=alpha, steps=steps)

    def step_into(self, system: str, run: str) -> Step | None:
        return next((s for s in self.steps if s.system == system and s.after == run), None)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per version, in order, with the step into it from the version before (empty for the first)."""
        rows = []
        for v in self.versions:
            s = self.step_into(v.system, v.run)
            step = dict(delta=s.delta, n_common=s.n_topics, p_value=s.p_value, p_corrected=s.p_corrected,
                        mark=s.mark) if s else {"mark": ""}      # the first version: no step, its numbers NaN
            rows.append({**asdict(v), "measure": self.measure, **step})
        columns = ["system", "version", "run", "measure", "n_topics", "mean", "ci_low", "ci_high", "delta",
                   "n_common", "p_value", "p_corrected", "mark"]
        numbers = ["mean", "ci_low", "ci_high", "delta", "n_common", "p_value", "p_corrected"]
        return pd.DataFrame(rows, columns=columns).astype({c: float for c in numbers})   # None -> NaN: shown blank

    def to_csv(self) -> str:
        return self.to_dataframe().to_csv(index=False)

    def legend(self) -> str:
        return (f"{UP} / {DOWN}: significantly better / worse than the version before ({TEST_NAMES[self.test]} on "
                f"the topics both versions have, {CORRECTION_NAMES[self.correction]} over the {len(self.steps)} steps "
                f"shown, α = {self.alpha:g}). The band is each version's 95% t interval over its topics.")


def history(per_query: pd.DataFrame, lines: dict[str, list[tuple[str, str]]], measure: str, *, test: str = "t",
            correction: str = "none", alpha: float = 0.05, n_resamples: int = 10_000, seed: int = 0) -> History:
    """`per_query`: (run, qid, measure, value); `lines`: system -> its (version, run name) in version order."""
    if test not in STEP_TESTS:
        raise EvalError(f"Unknown test {test!r} for the steps between versions; choose one of "
                        f"{', '.join(STEP_TESTS)}.")
    if not 0 < alpha < 1:
        raise EvalError(f"alpha must be between 0 and 1 (e.g. 0.05), not {alpha!r}.")
    runs = list(dict.fromkeys(r for line in lines.values() for _, r in line))
    rows = per_query[(per_query["measure"] == measure) & per_query["run"].astype(str).isin(runs)]
    wide = rows.pivot_table(index=rows["qid"].astype(str), columns=rows["run"].astype(str), values="value",
                            aggfunc="first").reindex(columns=runs)
    V = wide.to_numpy(dtype=float)
    col = {r: j for j, r in enumerate(runs)}
    versions = tuple(_version(system, version, run, V[:, col[run]]) for system, line in lines.items()
                     for version, run in line)
    pairs = [(system, a, b) for system, line in lines.items() for a, b in zip(line, line[1:])]
    before, after = (V[:, [col[p[i][1]] for p in pairs]] for i in (1, 2))
    mask = ~np.isnan(before) & ~np.isnan(after)
    p = _step_p(before, after, mask, test, n_resamples, seed)
    with np.errstate(invalid="ignore"):
        deltas = np.where(mask, after - before, 0.0).sum(axis=0) / mask.sum(axis=0)
    steps = tuple(Step(system, a[1], b[1], a[0], b[0], int(mask[:, j].sum()), num(deltas[j]), num(p[j]), None, False)
                  for j, (system, a, b) in enumerate(pairs))
    return History(measure, test, "none", alpha, versions, steps).with_correction(correction, alpha)


def moved_topics(per_query: pd.DataFrame, before: str, after: str, measure: str) -> pd.DataFrame:
    """The topics both runs have: qid, before, after, delta (after - before), largest |delta| first (then qid)."""
    rows = per_query[per_query["measure"] == measure]
    rows = rows.assign(qid=rows["qid"].astype(str), run=rows["run"].astype(str))
    a, b = (rows[rows["run"] == r].drop_duplicates("qid").set_index("qid")["value"] for r in (before, after))
    both = pd.DataFrame({"before": a, "after": b}).dropna()
    both = both.assign(delta=both["after"] - both["before"]).rename_axis("qid").reset_index()
    both["qid"] = both["qid"].astype(str)
    order = np.lexsort((both["qid"].to_numpy(), -np.abs(both["delta"].to_numpy())))
    return both.iloc[order].reset_index(drop=True)[["qid", "before", "after", "delta"]]


def _version(system: str, version: str, run: str, values: np.ndarray) -> Version:
    x = values[~np.isnan(values)]
    if not len(x):
        return Version(system, version, run, 0, None, None, None)
    mean = float(np.mean(x))
    if len(x) < 2:
        return Version(system, version, run, 1, mean, None, None)
    from scipy import stats
    sem = stats.sem(x)
    if not sem > 0:               # every topic scores the same: the interval is that value (scipy gives NaN)
        return Version(system, version, run, len(x), mean, mean, mean)
    low, high = stats.t.interval(0.95, len(x) - 1, loc=mean, scale=sem)
    return Version(system, version, run, len(x), mean, num(low), num(high))


def _step_p(before: np.ndarray, after: np.ndarray, mask: np.ndarray, test: str, n_resamples: int,
            seed: int) -> np.ndarray:
    if before.shape[1] == 0:
        return np.zeros(0)
    if test == "t":
        return paired.paired_t_columns(np.nan_to_num(after), np.nan_to_num(before), mask)
    if test == "randomization":
        return paired.randomization_test(np.where(mask, after - before, 0.0), mask, n_resamples, seed)
    return np.array([paired.wilcoxon((after - before)[mask[:, j], j]) for j in range(before.shape[1])])


def _nan(x) -> float:
    return float("nan") if x is None else float(x)


__all__ = ["history", "moved_topics", "History", "Version", "Step", "STEP_TESTS", "UP", "DOWN"]
