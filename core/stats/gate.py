"""The regression gate: is a new run worse than its baseline, measure by measure? -> the `Gate` value
(core.stats.gatereport), behind `python -m core check`.

The statistics are `core.stats.compare.compare`'s, on a table of two runs: the means, the delta over the paired
topics, the two-sided p-value of the chosen paired test and its correction over the measures. The gate adds the
95% confidence interval of the delta (the t interval of scipy's ttest_rel under the t-test; a seeded percentile
bootstrap of the mean difference under the Wilcoxon and randomisation tests) and a verdict:

- FAIL when the new run is significantly worse (corrected p < alpha and delta < 0) and its drop, -delta, is larger
  than the measure's max drop (default 0);
- FAIL when an expected value is given and the new mean is more than the tolerance away from it (as Anserini's
  regressions check);
- OK otherwise.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.errors import EvalError
from core.measures import parse_measure
from core.stats import paired as stats
from core.stats.compare import _matrix, _resolve_measures, compare
from core.stats.comparison import num
from core.stats.gatereport import Gate, GateRow
from core.stats.resolution import wide_tables

GATE_TESTS = ("t", "wilcoxon", "randomization")
CI_METHODS = {"t": "t interval (scipy ttest_rel)", "wilcoxon": "percentile bootstrap of the mean difference",
              "randomization": "percentile bootstrap of the mean difference"}


def canonical(name: str, present: list[str], what: str) -> str:
    """The measure's name in the per-query table (aliases such as map -> AP), or an EvalError."""
    try:
        return _resolve_measures([name], present)[0]
    except EvalError as exc:
        try:
            known = parse_measure(name).name
        except EvalError:
            raise EvalError(f"{what} {name!r}: {exc}") from None
        raise EvalError(f"{what} {name!r}: {known} is not among the measures evaluated. Add it with -m "
                        f"{known}.") from None


def gate(per_query: pd.DataFrame, *, new: str, baseline: str, measures=None, test: str = "t",
         correction: str = "none", alpha: float = 0.05, max_drop: dict | None = None, expected: dict | None = None,
         tolerance: float | None = None, missing: str = "skip", all_qids=None, n_resamples: int = 10_000,
         seed: int = 0) -> Gate:
    """Check `new` against `baseline` on every measure of `per_query` (run, qid, measure, value) or of `measures`.
    `max_drop`: measure -> the drop a significant loss must exceed to fail; `expected`: measure -> the mean the new
    run should have, within `tolerance`. Measure names may be aliases (map, P_10, ndcg_cut_10)."""
    if test not in GATE_TESTS:
        raise EvalError(f"Unknown test {test!r}. Choose one of: {', '.join(GATE_TESTS)}.")
    if new == baseline:
        raise EvalError(f"The new run and the baseline are both {new!r}: give two different runs.")
    table = per_query[per_query["run"].astype(str).isin([new, baseline])]
    if new not in set(table["run"].astype(str)):
        raise EvalError(f"The new run {new!r} has no per-query values: is it empty, or on other topics?")
    present = list(pd.unique(table["measure"]))
    order = list(dict.fromkeys(canonical(m, present, "measure") for m in (measures or present)))
    exp = {canonical(k, present, "expected measure"): float(v) for k, v in (expected or {}).items()}
    order += [m for m in exp if m not in order]
    drops = {canonical(k, present, "--max-drop measure"): float(v) for k, v in (max_drop or {}).items()}
    unchecked = [m for m in drops if m not in order]
    if unchecked:
        raise EvalError(f"--max-drop names {', '.join(unchecked)}, which is not checked. Add it with -m.")
    if any(not np.isfinite(v) or v < 0 for v in drops.values()):
        raise EvalError("A --max-drop must be a number of 0 or more, e.g. --max-drop AP=0.01.")
    comparison = compare(table, baseline=baseline, measures=order, test=test, correction=correction, alpha=alpha,
                         missing=missing, all_qids=all_qids, n_resamples=n_resamples, seed=seed, intervals=False)
    intervals = _intervals(table, comparison, new, baseline, all_qids, test, n_resamples, seed)
    rows = tuple(_verdict(comparison.row(baseline, m), comparison.row(new, m), intervals[m], drops.get(m, 0.0),
                          exp.get(m), tolerance, alpha) for m in comparison.measures)
    return Gate(rows=rows, new=new, baseline=baseline, test=test, correction=correction, alpha=alpha,
                tolerance=tolerance if exp else None, ci_method=CI_METHODS[test],
                missing_note=comparison.missing_note)



def gate_result(result, measures, *, complete: bool = False, **kwargs) -> Gate:
    """`gate` of an evaluation of two runs (an EvalResult, its runs the new one then the baseline): the topics either
    run has, or with `complete` (-c) every topic of the table, a missing one 0; `kwargs` are gate's options."""
    new, baseline = result.runs
    return gate(result.per_query, new=new, baseline=baseline, measures=measures,
                missing="zero" if complete else "skip",
                all_qids=sorted(result.per_query["qid"].astype(str).unique()), **kwargs)


def _intervals(table, comparison, new, baseline, all_qids, test, n_resamples, seed) -> dict[str, tuple]:
    """measure -> the 95% CI of its delta, on the topics compare paired (its alignment: the given list, else the
    baseline's topics; with missing='zero' a missing value counts as 0)."""
    table = table.assign(run=table["run"].astype(str), qid=table["qid"].astype(str))
    wide, base = wide_tables(table, comparison.measures, [new, baseline]), table[table["run"] == baseline]
    out = {}
    for m in comparison.measures:
        V = _matrix(wide[m], base, m, [new, baseline], all_qids)[0]
        if comparison.missing == "zero":
            V = np.nan_to_num(V, nan=0.0)
        x, y = V[~np.isnan(V).any(axis=1)].T
        if test == "t":
            out[m] = stats.paired_t_interval(x, y)
        elif len(x):
            d = (x - y)[:, None]
            low, high = stats.bootstrap_ci(d, np.ones_like(d, dtype=bool), n_resamples, seed)
            out[m] = (float(low[0]), float(high[0]))
        else:
            out[m] = (float("nan"), float("nan"))
    return out


def _verdict(base, new, ci, max_drop: float, expected, tolerance, alpha: float) -> GateRow:
    reasons = []
    if new.significant and new.delta is not None and new.delta < 0 and -new.delta > max_drop:
        reasons.append(f"significantly worse: delta {new.delta:+.4f} (p corrected {new.p_corrected:.4g} < alpha "
                       f"{alpha:g}), a drop larger than the max drop {max_drop:g}")
    if expected is not None and (new.mean is None or abs(new.mean - expected) > (tolerance or 0.0) + 1e-12):
        shown = "no mean" if new.mean is None else f"mean {new.mean:.4f}"
        reasons.append(f"{shown} is outside the expected {expected:g} ± {tolerance or 0:g}")
    return GateRow(measure=new.measure, n_queries=new.n_queries, baseline_mean=base.mean, new_mean=new.mean,
                   delta=new.delta, ci_low=num(ci[0]), ci_high=num(ci[1]), p_value=new.p_value,
                   p_corrected=new.p_corrected, max_drop=max_drop, expected=expected,
                   verdict="FAIL" if reasons else "OK", reasons=tuple(reasons))


__all__ = ["gate", "gate_result", "Gate", "GateRow", "GATE_TESTS", "canonical"]
