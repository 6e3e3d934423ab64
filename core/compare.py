"""Compare runs against a baseline: means, bootstrap CIs, deltas, wins/ties/losses, paired tests,
multiple-testing correction and effect sizes, returned as a frozen `Comparison` value.

The computation lives in `compare()`; formatting (DataFrame, CSV, JSON records, LaTeX, text) lives
on the `Comparison` value, in the style of ranx's Report.
Input is the long per-query table the measures engine produces: columns run, qid, measure, value.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from core import stats
from core.errors import EvalError

MISSING = ("skip", "zero")
ROW_FIELDS = ("run", "measure", "n_queries", "mean", "ci_low", "ci_high", "delta", "rel_delta",
              "wins", "ties", "losses", "p_value", "p_corrected", "effect_size", "significant")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "Fisher randomisation test", "bootstrap": "paired bootstrap test"}


@dataclass(frozen=True)
class ComparisonRow:
    run: str
    measure: str
    n_queries: int            # queries this row's statistics use (paired with the baseline)
    mean: float               # mean over the run's own queries in the aligned query set
    ci_low: float             # 95% percentile bootstrap CI of that mean (seeded; resamples the aligned topics)
    ci_high: float
    delta: float | None       # mean of (run - baseline) over the paired queries; 0 for the baseline
    rel_delta: float | None   # delta / baseline mean over the same queries; None if that mean is 0
    wins: int | None
    ties: int | None
    losses: int | None
    p_value: float | None     # None on the baseline's rows
    p_corrected: float | None
    effect_size: float | None  # Cohen's d for paired samples (d_z)
    significant: bool | None


@dataclass(frozen=True)
class Comparison:
    rows: tuple[ComparisonRow, ...]
    baseline: str
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    missing: str
    missing_note: str
    tie_tol: float
    n_resamples: int
    seed: int

    def row(self, run: str, measure: str) -> ComparisonRow:
        for r in self.rows:
            if r.run == run and r.measure == measure:
                return r
        raise KeyError((run, measure))

    def with_correction(self, correction: str, alpha: float | None = None) -> "Comparison":
        """The same comparison under another multiple-testing correction and/or alpha, without
        resampling again: p_corrected and significant are recomputed from the stored raw p-values
        (over the same family, every non-baseline row, via statsmodels). Equals a fresh `compare`
        with that correction and alpha."""
        alpha = self.alpha if alpha is None else alpha
        if correction not in stats.CORRECTIONS:
            raise EvalError(f"Unknown correction {correction!r}. Choose one of: {', '.join(stats.CORRECTIONS)}.")
        _check_numbers(alpha, self.tie_tol, self.n_resamples)
        raw = [np.nan if r.p_value is None else r.p_value for r in self.rows if r.run != self.baseline]
        corrected = iter(stats.correct(raw, correction, alpha))   # in row order, as compare() builds it
        rows = tuple(r if r.run == self.baseline else _recorrected(r, _num(next(corrected)), alpha)
                     for r in self.rows)
        return replace(self, rows=rows, correction=correction, alpha=alpha)

    def to_records(self) -> list[dict]:
        """One dict per (run, measure); missing numbers are None (JSON null)."""
        return [asdict(r) for r in self.rows]

    def to_dataframe(self) -> pd.DataFrame:
        return pd.DataFrame(self.to_records(), columns=list(ROW_FIELDS))

    def to_csv(self, path=None) -> str | None:
        return self.to_dataframe().to_csv(path, index=False)

    def legend(self) -> str:
        corr = "no correction" if self.correction == "none" else f"{self.correction} correction"
        return (f"{TEST_NAMES[self.test]} against {self.baseline}, {corr} over "
                f"{len(self.runs) - 1} runs x {len(self.measures)} measures, alpha {self.alpha:g}.")

    def to_text(self, digits: int = 4) -> str:
        df = self.to_dataframe().drop(columns=["significant"])
        marks = ["" if r.significant is None else ("*" if r.significant else "") for r in self.rows]
        df["p_corrected"] = [_fmt(p, digits) + m for p, m in zip(df["p_corrected"], marks)]
        for col in ("mean", "ci_low", "ci_high", "delta", "rel_delta", "p_value", "effect_size"):
            df[col] = [_fmt(v, digits) for v in df[col]]
        for col in ("wins", "ties", "losses"):
            df[col] = ["-" if v is None or v != v else str(int(v)) for v in df[col]]
        return (df.to_string(index=False) + f"\n* significant: {self.legend()}\n{self.missing_note}\n")

    def to_latex(self, digits: int = 4, marker: str = r"\dagger") -> str:
        """Runs x measures table of means; marker = significant vs the baseline, bold = best per measure."""
        lines = [r"\begin{tabular}{l" + "r" * len(self.measures) + "}", r"\toprule",
                 " & ".join(["Run", *(_tex(m) for m in self.measures)]) + r" \\", r"\midrule"]
        best = {m: max((r.mean for r in self.rows if r.measure == m and r.mean is not None), default=None)
                for m in self.measures}
        for run in self.runs:
            cells = [_tex(run) + (" (baseline)" if run == self.baseline else "")]
            for m in self.measures:
                r = self.row(run, m)
                text = _fmt(r.mean, digits)
                if r.mean is not None and best[m] is not None and r.mean == best[m]:
                    text = r"\textbf{" + text + "}"
                if r.significant:
                    text += "$^{" + marker + "}$"
                cells.append(text)
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", "% $" + marker + "$: " + self.legend()]
        return "\n".join(lines) + "\n"


def _recorrected(row: "ComparisonRow", p_corr: float | None, alpha: float) -> "ComparisonRow":
    return replace(row, p_corrected=p_corr, significant=None if p_corr is None else bool(p_corr < alpha))


def _fmt(v, digits: int) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


_TEX = str.maketrans({**{ch: "\\" + ch for ch in "&%$#_{}"}, "\\": r"\textbackslash{}",
                      "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"})


def _tex(text: str) -> str:
    """Run and measure names as LaTeX text: every special character escaped, in one pass."""
    return str(text).translate(_TEX)


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
            try:  # accept aliases such as 'map' or 'P_10' once the registry can canonicalise them
                from core.measures import parse_measure
                name = parse_measure(name).name
            except Exception:
                pass
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
    for value, allowed, what in ((test, stats.TESTS, "test"), (correction, stats.CORRECTIONS, "correction"),
                                 (missing, MISSING, "missing policy")):
        if value not in allowed:
            raise EvalError(f"Unknown {what} {value!r}. Choose one of: {', '.join(allowed)}.")
    return [baseline] + [r for r in runs if r != baseline]


def _check_numbers(alpha, tie_tol, n_resamples) -> None:
    if not 0 < alpha < 1:
        raise EvalError(f"alpha must be between 0 and 1 (e.g. 0.05), not {alpha!r}.")
    if not tie_tol >= 0:
        raise EvalError(f"tie_tol must be 0 or more, not {tie_tol!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise EvalError(f"The number of resamples must be a whole number of at least 1 (e.g. 10000), "
                        f"not {n_resamples!r}.")


def _matrix(per_query: pd.DataFrame, measure: str, runs: list[str], baseline: str, all_qids):
    """values (n_qids x n_runs, NaN = missing) on the aligned query set, plus that qid list."""
    sub = per_query[per_query["measure"] == measure]
    wide = sub.pivot_table(index="qid", columns="run", values="value", aggfunc="first")
    if all_qids is not None:
        qids = list(dict.fromkeys(str(q) for q in all_qids))
    else:
        qids = sorted(sub.loc[sub["run"] == baseline, "qid"].unique().tolist())
    outside = wide.drop(index=[q for q in qids if q in wide.index]).notna().sum(axis=0)
    wide = wide.reindex(index=qids, columns=runs)
    return wide.to_numpy(dtype=float), qids, {r: int(k) for r, k in outside.items() if k}


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
            tie_tol: float = 1e-9, n_resamples: int = 10_000, seed: int = 0) -> Comparison:
    """Compare every run in `per_query` (run, qid, measure, value) with `baseline`, for each measure.

    Topics are aligned on the baseline's topics (or `all_qids`). missing='skip' pairs only the topics
    both runs have; 'zero' counts a missing topic as 0. Differences within `tie_tol` are ties (also
    for Wilcoxon, which drops them). Tests are two-sided; see core.stats for their definitions.
    The correction runs over every non-baseline (run, measure) row at once.
    """
    per_query = per_query.assign(run=per_query["run"].astype(str), qid=per_query["qid"].astype(str))
    runs = _validate(per_query, baseline, test, correction, missing)
    _check_numbers(alpha, tie_tol, n_resamples)
    measure_list = _resolve_measures(measures, list(pd.unique(per_query["measure"])))
    if not measure_list:
        raise EvalError("No measures to compare: the per-query table is empty or no measure was asked for.")
    cells, gaps, extra, n_universe = {}, {}, {}, 0
    for measure in measure_list:
        V, qids, outside = _matrix(per_query, measure, runs, baseline, all_qids)
        n_universe = max(n_universe, len(qids))
        present = ~np.isnan(V)
        for j, run in enumerate(runs):
            if not present[:, j].all():
                gaps.setdefault(run, [q for q, ok in zip(qids, present[:, j]) if not ok])
        for run, k in outside.items():
            extra.setdefault(run, k)
        if missing == "zero":
            V, present = np.nan_to_num(V, nan=0.0), np.ones_like(present)
        cells[measure] = _measure_stats(V, present, test, tie_tol)
        cells[measure]["qids"] = qids
    _resampled(cells, test, n_resamples, seed)
    flat = [(m, j) for j in range(1, len(runs)) for m in measure_list]
    p_corr = stats.correct([cells[m]["p"][j - 1] for m, j in flat], correction, alpha)
    corrected = {key: p for key, p in zip(flat, p_corr)}
    rows = []
    for j, run in enumerate(runs):
        for m in measure_list:
            rows.append(_row(run, m, j, cells[m], corrected.get((m, j)), alpha))
    note = _missing_note(missing, gaps, extra, n_universe, baseline, all_qids)
    return Comparison(rows=tuple(rows), baseline=baseline, runs=tuple(runs), measures=tuple(measure_list),
                      test=test, correction=correction, alpha=alpha, missing=missing, missing_note=note,
                      tie_tol=tie_tol, n_resamples=n_resamples, seed=seed)


def _measure_stats(V, present, test, tie_tol) -> dict:
    """The statistics of one measure that need no resampling: column 0 of V is the baseline.

    The bootstrap CIs and the resampling tests are filled in afterwards by `_resampled`, for
    every measure at once."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(present.any(axis=0), np.nansum(np.where(present, V, 0), axis=0) / present.sum(axis=0), np.nan)
    pair = present[:, 1:] & present[:, [0]]
    D = np.where(pair, V[:, 1:] - V[:, [0]], 0.0)
    n_pair = pair.sum(axis=0)
    p = None
    if test == "t":  # one vectorised scipy call per distinct pair mask
        p = stats.paired_t_columns(V[:, 1:], np.repeat(V[:, [0]], D.shape[1], axis=1), pair)
    elif test == "wilcoxon":  # scipy once per comparison (a loop over columns, never over resamples)
        p = np.array([stats.wilcoxon(_snap(D[pair[:, c], c], tie_tol)) for c in range(D.shape[1])])
    base_paired = np.array([V[pair[:, c], 0].mean() if n_pair[c] else np.nan for c in range(D.shape[1])])
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(n_pair > 0, D.sum(axis=0) / n_pair, np.nan)
    return {"mean": means, "n": present.sum(axis=0), "n_pair": n_pair, "p": p,
            "delta": delta, "base_paired": base_paired, "V": np.nan_to_num(V), "present": present,
            "D": D, "pair": pair,
            "wins": ((D > tie_tol) & pair).sum(axis=0), "losses": ((D < -tie_tol) & pair).sum(axis=0),
            "d": np.array([stats.cohens_d(D[pair[:, c], c]) for c in range(D.shape[1])])}


def _resampled(cells: dict, test: str, n_resamples: int, seed: int) -> None:
    """Bootstrap CIs (and the randomisation / bootstrap p-values) for every measure in one pass.

    Measures aligned on the same query list are stacked column-wise (runs x measures, plus the
    paired differences) and share one seeded draw of resamples of that list, whatever topics the
    runs miss: each column's statistic is its mean over the drawn topics it has (see
    stats.bootstrap_ci_and_test). So a call draws once per aligned query list, not once per
    measure, statistic or missing-topic pattern. The draws depend only on (number of aligned
    topics, n_resamples, seed), so a measure's numbers do not depend on which others are compared."""
    by_qids: dict[tuple, list[str]] = {}
    for m, cell in cells.items():
        by_qids.setdefault(tuple(cell["qids"]), []).append(m)
    for group in by_qids.values():
        kv = [cells[m]["V"].shape[1] for m in group]
        kd = [cells[m]["D"].shape[1] for m in group]
        V = np.hstack([cells[m]["V"] for m in group])
        vmask = np.hstack([cells[m]["present"] for m in group])
        D = np.hstack([cells[m]["D"] for m in group])
        dmask = np.hstack([cells[m]["pair"] for m in group])
        if test == "bootstrap":
            low, high, p = stats.bootstrap_ci_and_test(V, vmask, D, dmask, n_resamples, seed)
        else:
            low, high = stats.bootstrap_ci(V, vmask, n_resamples, seed)
            p = stats.randomization_test(D, dmask, n_resamples, seed) if test == "randomization" else None
        ov, od = np.cumsum([0] + kv), np.cumsum([0] + kd)
        for i, m in enumerate(group):
            cell = cells[m]
            cell["ci"] = (low[ov[i]:ov[i + 1]], high[ov[i]:ov[i + 1]])
            if p is not None:
                cell["p"] = p[od[i]:od[i + 1]]
            for key in ("V", "present", "D", "pair", "qids"):
                del cell[key]


def _snap(d: np.ndarray, tie_tol: float) -> np.ndarray:
    """Differences within the tie tolerance are ties (exactly 0) for the rank-based test too."""
    return np.where(np.abs(d) <= tie_tol, 0.0, d)


def _num(x) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _row(run: str, measure: str, j: int, s: dict, p_corr, alpha: float) -> ComparisonRow:
    common = dict(run=run, measure=measure, mean=_num(s["mean"][j]),
                  ci_low=_num(s["ci"][0][j]), ci_high=_num(s["ci"][1][j]))
    if j == 0:
        return ComparisonRow(**common, n_queries=int(s["n"][0]), delta=0.0, rel_delta=0.0, wins=None,
                             ties=None, losses=None, p_value=None, p_corrected=None, effect_size=None,
                             significant=None)
    c = j - 1
    delta, base = _num(s["delta"][c]), _num(s["base_paired"][c])
    n = int(s["n_pair"][c])
    wins, losses = int(s["wins"][c]), int(s["losses"][c])
    p_corr = _num(p_corr)
    return ComparisonRow(**common, n_queries=n, delta=delta,
                         rel_delta=None if delta is None or not base else delta / base,
                         wins=wins, ties=n - wins - losses, losses=losses, p_value=_num(s["p"][c]),
                         p_corrected=p_corr, effect_size=_num(s["d"][c]),
                         significant=None if p_corr is None else bool(p_corr < alpha))


def compare_stored(store, collection, run_ids, measures, baseline_run_id, *, qrels_id=None, options=None,
                   **kwargs) -> Comparison:
    """Evaluate stored runs (through the engine's results cache) and compare them with the baseline run.

    Runs are named by their store names. With options.complete (-c) missing topics count as 0.
    """
    from core.evaluate import EvalOptions, evaluate_stored
    options = options or EvalOptions()
    run_ids = list(dict.fromkeys([int(baseline_run_id), *map(int, run_ids)]))
    result = evaluate_stored(store, collection, run_ids, measures, qrels_id=qrels_id, options=options)
    runs = store.runs(collection)
    names = dict(zip(runs["run_id"].astype(int), runs["name"].astype(str)))
    kwargs.setdefault("missing", "zero" if options.complete else "skip")
    order = {names[i]: k for k, i in enumerate(run_ids)}  # rows in the order the runs were asked for
    per_query = result.per_query.sort_values("run", key=lambda s: s.map(order), kind="stable")
    return compare(per_query, baseline=names[int(baseline_run_id)],
                   measures=[getattr(m, "name", m) for m in measures] if measures else None, **kwargs)


__all__ = ["compare", "compare_stored", "Comparison", "ComparisonRow", "ROW_FIELDS", "TEST_NAMES"]
