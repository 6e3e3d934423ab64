"""Compare runs against a baseline: means, bootstrap CIs, deltas, wins/ties/losses, paired tests,
multiple-testing correction and effect sizes, returned as a frozen `Comparison` value.

This module is the computation; the value and its formatting (DataFrame, CSV, JSON records, LaTeX,
text) live in `core.stats.comparison`, in the style of ranx's Report. Both are importable from here.
Input is the long per-query table the measures engine produces: columns run, qid, measure, value.
"""
from __future__ import annotations

import difflib
from contextlib import suppress
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core.stats import multisys
from core.stats import paired as stats
from core.stats import reach
from core.stats.comparison import ROW_FIELDS, TEST_NAMES, Comparison, ComparisonRow, check_numbers, num
from core.errors import EvalError
from core.measures import parse_measure
from core.stats.resolution import topic_list, wide_tables

MISSING = ("skip", "zero")


def _suggest(name: str, choices, what: str) -> EvalError:
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=3)
    hint = f" Did you mean {' or '.join(close)}?" if close else f" Known {what}s: {', '.join(map(str, choices))}."
    return EvalError(f"Unknown {what} {name!r}.{hint}")


def _resolve_measures(measures, present: list[str]) -> list[str]:
    if measures is None:
        return present
    out = []
    for m in ([measures] if isinstance(measures, str) else measures):
        name = getattr(m, "name", m)
        if name not in present:
            with suppress(Exception):      # accept aliases such as 'map' or 'P_10' that the registry canonicalises
                name = parse_measure(name).name
        if name not in present:
            raise _suggest(name, present, "measure")
        out.append(name)
    return out


def _validate(per_query: pd.DataFrame, baseline, test, correction, missing):
    needed = {"run", "qid", "measure", "value"}
    if not needed.issubset(per_query.columns):
        raise EvalError(f"per-query table needs columns {sorted(needed)}, got {list(per_query.columns)}.")
    runs = [str(r) for r in pd.unique(per_query["run"].astype(str))]  # first-seen order, no Python loop over rows
    if baseline not in runs:
        raise _suggest(baseline, runs, "baseline run")
    for value, allowed, what in ((test, multisys.ALL_TESTS, "test"), (correction, stats.CORRECTIONS, "correction"),
                                 (missing, MISSING, "missing policy")):
        if value not in allowed:
            raise EvalError(f"Unknown {what} {value!r}. Choose one of: {', '.join(allowed)}.")
    return [baseline] + [r for r in runs if r != baseline]


def _matrix(wide: pd.DataFrame, base_rows: pd.DataFrame, measure: str, runs: list[str], all_qids):
    """values (n_qids x n_runs, NaN = missing) on the aligned query set, that qid list, and run -> its topics outside
    it. `wide` is the measure's topics x runs table from core.stats.resolution.wide_tables (its plain equivalent, a
    pivot_table per measure, and the figures: benchmarks/PROFILE.md). `base_rows`: the baseline's rows."""
    qids = topic_list(all_qids, base_rows.loc[base_rows["measure"] == measure, "qid"].unique().tolist())
    outside = wide.drop(index=[q for q in qids if q in wide.index]).notna().sum(axis=0)
    wide = wide.reindex(index=qids, columns=runs)
    # C order, as the pivot table gave it: numpy's sums run in memory order, so the means stay bit for bit the same
    return np.ascontiguousarray(wide.to_numpy(dtype=float)), qids, {r: int(k) for r, k in outside.items() if k}


def _missing_note(missing: str, gaps: dict[str, list[str]], extra: dict[str, int], n: int, baseline: str,
                  all_qids) -> str:
    basis = "the given topic list" if all_qids is not None else f"the baseline {baseline}'s topics"
    policy = ("Topics missing from a run are skipped: each test pairs only the topics both runs have."
              if missing == "skip" else "Topics missing from a run count as 0, as with trec_eval -c.")
    text = f"Topics are aligned on {basis} ({n} topics). {policy}"
    if not gaps:
        text += " Every run has a value for every one of them."
    for run, qids in gaps.items():
        shown = ", ".join(qids[:5]) + (f" and {len(qids) - 5} more" if len(qids) > 5 else "")
        text += f" {run} lacks {len(qids)} of them ({shown})."
    for run, k in extra.items():
        text += f" {run} has {k} topic(s) outside that set; they are ignored."
    return text


def compare(per_query: pd.DataFrame, *, baseline: str, measures=None, test: str = "t",
            correction: str = "none", alpha: float = 0.05, missing: str = "skip", all_qids=None,
            tie_tol: float = 1e-9, n_resamples: int = 10_000, seed: int = 0, pairs=None,
            intervals: bool = True) -> Comparison:
    """Compare every run in `per_query` (run, qid, measure, value) with `baseline`, for each measure.

    Topics are aligned on the baseline's topics (or `all_qids`). missing='skip' pairs only the topics
    both runs have; 'zero' counts a missing topic as 0. Differences within `tie_tol` are ties (also
    for Wilcoxon, which drops them). Tests are two-sided; see core.stats.paired for their definitions.
    The correction runs over every non-baseline (run, measure) row at once.
    test='tukey' or 'randomization-all' (core.stats.multisys) tests all runs together on the topics they all
    have: a row's p_value is the baseline-vs-run cell of that all-pairs matrix, already adjusted over
    every pair of runs (`pairs`: measure -> a core.stats.resolution.Resolution that has it already).
    intervals=False leaves the bootstrap CIs out (ci_low and ci_high None) unless the test draws the
    bootstrap anyway (test='bootstrap'): a view that shows means, deltas and p-values skips its costliest
    step. A measure's CIs do not depend on the other measures compared, so a one-measure call gives them.
    """
    given, per_query = per_query, per_query.assign(run=per_query["run"].astype(str), qid=per_query["qid"].astype(str))
    runs = _validate(per_query, baseline, test, correction, missing)
    check_numbers(alpha, tie_tol, n_resamples)
    measure_list = _resolve_measures(measures, list(pd.unique(per_query["measure"])))
    if not measure_list:
        raise EvalError("No measures to compare: the per-query table is empty or no measure was asked for.")
    aligned, gaps, extra, n_universe = {}, {}, {}, 0
    # the frame as given: a frame declared with resolution.share keeps its factorisation between calls
    tables, base_rows = wide_tables(given, measure_list, runs), per_query[per_query["run"] == baseline]
    for measure in measure_list:
        V, qids, outside = _matrix(tables[measure], base_rows, measure, runs, all_qids)
        n_universe = max(n_universe, len(qids))
        present = ~np.isnan(V)
        for j, run in enumerate(runs):
            if not present[:, j].all():
                gaps.setdefault(run, [q for q, ok in zip(qids, present[:, j]) if not ok])
        for run, k in outside.items():
            extra.setdefault(run, k)
        if missing == "zero":
            V, present = np.nan_to_num(V, nan=0.0), np.ones_like(present)
        aligned[measure] = Aligned.of(qids, V, present)
    resampled = _resampled(aligned, test, n_resamples, seed, intervals)
    measured = {m: _measure_stats(aligned[m], resampled[m], test, tie_tol) for m in measure_list}
    if test in multisys.MULTI_TESTS:
        seen = sorted(runs)
        measured = {m: replace(s, p=_all_pairs_p(aligned[m], runs, seen, test, n_resamples, seed, (pairs or {}).get(m),
                                                 alpha))
                    for m, s in measured.items()}
    flat = [(m, j) for j in range(1, len(runs)) for m in measure_list]
    corrected = dict(zip(flat, stats.correct([measured[m].p[j - 1] for m, j in flat], correction, alpha)))
    rows = tuple(_row(run, m, j, measured[m], corrected.get((m, j)), alpha)
                 for j, run in enumerate(runs) for m in measure_list)
    note = _missing_note(missing, gaps, extra, n_universe, baseline, all_qids)
    return Comparison(rows=rows, baseline=baseline, runs=tuple(runs), measures=tuple(measure_list),
                      test=test, correction=correction, alpha=alpha, missing=missing, missing_note=note,
                      tie_tol=tie_tol, n_resamples=n_resamples, seed=seed)


def _all_pairs_p(a: "Aligned", runs: list[str], seen: list[str], test: str, n_resamples: int, seed: int,
                 given, alpha: float) -> np.ndarray:
    """Baseline-vs-run adjusted p-values of a multi-system test on the topics every run has. The
    matrix is computed with the runs sorted by name (`seen`), so a resampling test draws the same
    whichever run is the baseline and in whatever order the table lists the runs, and equals
    core.stats.resolution's matrix (the same number of resamples: core.stats.reach.plan_pairs)."""
    rows = a.present.all(axis=1)
    if given is None or given.n_topics != int(rows.sum()) or not set(runs) <= set(given.runs):
        X = a.values[rows][:, [runs.index(r) for r in seen]]
        how = reach.plan_pairs(test, "none", n_runs=len(seen), n_topics=len(X), alpha=alpha,
                               n_resamples=n_resamples)
        given = multisys.PairMatrix(tuple(seen), multisys.all_pairs(X, test, n_resamples=how.n_resamples or n_resamples,
                                                                    seed=seed))
    order = [given.runs.index(r) for r in runs]
    return given.p[order[0], order[1:]]


@dataclass(frozen=True)
class Aligned:
    """One measure's values on the aligned topics (rows); column 0 is the baseline."""
    qids: tuple[str, ...]
    values: np.ndarray   # topics x runs, 0 where the run has no value
    present: np.ndarray  # topics x runs: the run has a value for the topic
    diffs: np.ndarray    # topics x other runs: run - baseline where both have a value, else 0
    paired: np.ndarray   # topics x other runs: both have a value

    @classmethod
    def of(cls, qids, V: np.ndarray, present: np.ndarray) -> "Aligned":
        paired = present[:, 1:] & present[:, [0]]
        diffs = np.where(paired, V[:, 1:] - V[:, [0]], 0.0)
        return cls(tuple(qids), np.nan_to_num(V), present, diffs, paired)


@dataclass(frozen=True)
class Resampled:
    """One measure's share of the seeded resampling: the bootstrap CI of every run's mean, and the
    randomisation or bootstrap p-value of every other run (None under the t and Wilcoxon tests)."""
    ci_low: np.ndarray
    ci_high: np.ndarray
    p: np.ndarray | None


@dataclass(frozen=True)
class MeasureStats:
    """One measure's statistics: mean, n, ci_* over all runs; the rest over the other runs."""
    mean: np.ndarray
    n: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_pair: np.ndarray
    delta: np.ndarray
    base_paired: np.ndarray  # the baseline's mean over the topics paired with each run
    wins: np.ndarray
    losses: np.ndarray
    effect_size: np.ndarray
    p: np.ndarray


def _measure_stats(a: Aligned, r: Resampled, test: str, tie_tol: float) -> MeasureStats:
    """Means, deltas, wins/losses, effect sizes, and the p-values of the tests that need no resampling."""
    V, present, D, pair = a.values, a.present, a.diffs, a.paired
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(present.any(axis=0), np.where(present, V, 0).sum(axis=0) / present.sum(axis=0), np.nan)
    n_pair = pair.sum(axis=0)
    p = r.p
    if test == "t":  # one vectorised scipy call per distinct pair mask
        p = stats.paired_t_columns(V[:, 1:], np.repeat(V[:, [0]], D.shape[1], axis=1), pair)
    elif test == "wilcoxon":  # scipy once per comparison (a loop over columns, never over resamples)
        p = np.array([stats.wilcoxon(D[pair[:, c], c], tie_tol) for c in range(D.shape[1])])
    base_paired = np.array([V[pair[:, c], 0].mean() if n_pair[c] else np.nan for c in range(D.shape[1])])
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(n_pair > 0, D.sum(axis=0) / n_pair, np.nan)
    return MeasureStats(mean=means, n=present.sum(axis=0), ci_low=r.ci_low, ci_high=r.ci_high, n_pair=n_pair,
                        delta=delta, base_paired=base_paired,
                        wins=((D > tie_tol) & pair).sum(axis=0), losses=((D < -tie_tol) & pair).sum(axis=0),
                        effect_size=np.array([stats.cohens_d(D[pair[:, c], c]) for c in range(D.shape[1])]),
                        p=p)


def _resampled(aligned: dict[str, Aligned], test: str, n_resamples: int, seed: int,
               intervals: bool = True) -> dict[str, Resampled]:
    """Bootstrap CIs (and the randomisation / bootstrap p-values) for every measure in one pass.

    Measures aligned on the same query list are stacked column-wise (runs x measures, plus the
    paired differences) and share one seeded draw of resamples of that list, whatever topics the
    runs miss: each column's statistic is its mean over the drawn topics it has (see
    stats.bootstrap_ci_and_test). So a call draws once per aligned query list, not once per
    measure, statistic or missing-topic pattern. The draws depend only on (number of aligned
    topics, n_resamples, seed), so a measure's numbers do not depend on which others are compared."""
    by_qids: dict[tuple, list[str]] = {}
    for m, a in aligned.items():
        by_qids.setdefault(a.qids, []).append(m)
    out = {}
    for group in by_qids.values():
        parts = [aligned[m] for m in group]
        V, vmask = np.hstack([a.values for a in parts]), np.hstack([a.present for a in parts])
        D, dmask = np.hstack([a.diffs for a in parts]), np.hstack([a.paired for a in parts])
        if test == "bootstrap":
            low, high, p = stats.bootstrap_ci_and_test(V, vmask, D, dmask, n_resamples, seed)
        else:
            low, high = (stats.bootstrap_ci(V, vmask, n_resamples, seed) if intervals
                         else (np.full(V.shape[1], np.nan), np.full(V.shape[1], np.nan)))
            p = stats.randomization_test(D, dmask, n_resamples, seed) if test == "randomization" else None
        ov = np.cumsum([0] + [a.values.shape[1] for a in parts])
        od = np.cumsum([0] + [a.diffs.shape[1] for a in parts])
        for i, m in enumerate(group):
            out[m] = Resampled(low[ov[i]:ov[i + 1]], high[ov[i]:ov[i + 1]],
                               None if p is None else p[od[i]:od[i + 1]])
    return out


def _row(run: str, measure: str, j: int, s: MeasureStats, p_corr, alpha: float) -> ComparisonRow:
    common = dict(run=run, measure=measure, mean=num(s.mean[j]), ci_low=num(s.ci_low[j]), ci_high=num(s.ci_high[j]))
    if j == 0:
        return ComparisonRow(**common, n_queries=int(s.n[0]), delta=0.0, rel_delta=0.0, wins=None,
                             ties=None, losses=None, p_value=None, p_corrected=None, effect_size=None,
                             significant=None)
    c = j - 1
    delta, base = num(s.delta[c]), num(s.base_paired[c])
    n = int(s.n_pair[c])
    wins, losses = int(s.wins[c]), int(s.losses[c])
    p_corr = num(p_corr)
    return ComparisonRow(**common, n_queries=n, delta=delta,
                         rel_delta=None if delta is None or not base else delta / base,
                         wins=wins, ties=n - wins - losses, losses=losses, p_value=num(s.p[c]),
                         p_corrected=p_corr, effect_size=num(s.effect_size[c]),
                         significant=None if p_corr is None else bool(p_corr < alpha))


__all__ = ["compare", "Comparison", "ComparisonRow", "ROW_FIELDS", "TEST_NAMES"]
