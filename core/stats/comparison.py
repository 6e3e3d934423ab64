"""The frozen `Comparison` value that `core.stats.compare.compare` returns, and its formatting.

One `ComparisonRow` per (run, measure): mean, bootstrap CI, delta against the baseline,
wins/ties/losses, p-values and effect size. Formatting (DataFrame, CSV, JSON records, LaTeX,
text) lives here, on the value, in the style of ranx's Report; `with_correction` re-corrects the
stored p-values without resampling.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from core.stats import paired as stats
from core.errors import EvalError

ROW_FIELDS = ("run", "measure", "n_queries", "mean", "ci_low", "ci_high", "delta", "rel_delta",
              "wins", "ties", "losses", "p_value", "p_corrected", "effect_size", "significant")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "Fisher randomisation test", "bootstrap": "paired bootstrap test",
              "tukey": "Tukey's HSD over all runs (two-way run x topic ANOVA, adjusted over every pair)",
              "randomization-all": "all-pairs randomisation test (max statistic, adjusted over every pair)"}


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
        check_numbers(alpha, self.tie_tol, self.n_resamples)
        return corrected_together((self,), correction, alpha)[0]

    def in_order(self, runs) -> "Comparison":
        """The same comparison with its runs (and rows) listed in the order of `runs` (e.g. a table's rank order),
        for the exports; runs not named keep their order after those named. No number changes."""
        first = [r for r in dict.fromkeys(map(str, runs)) if r in self.runs]
        order = first + [r for r in self.runs if r not in first]
        place = {r: i for i, r in enumerate(order)}
        rows = tuple(sorted(self.rows, key=lambda r: place[r.run]))   # stable: measures keep their order
        return replace(self, runs=tuple(order), rows=rows)

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
        return text_table(self.to_dataframe(), digits) + f"\n* significant: {self.legend()}\n{self.missing_note}\n"

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
                text = fmt(r.mean, digits)
                if r.mean is not None and best[m] is not None and r.mean == best[m]:
                    text = r"\textbf{" + text + "}"
                if r.significant:
                    text += "$^{" + marker + "}$"
                cells.append(text)
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", "% $" + marker + "$: " + self.legend()]
        return "\n".join(lines) + "\n"


def corrected_together(comparisons, correction: str, alpha: float) -> tuple[Comparison, ...]:
    """The comparisons with p_corrected / significant recomputed from their raw p-values over one family: every
    non-baseline row of every comparison (via statsmodels), in row order, as compare() builds it."""
    if correction not in stats.CORRECTIONS:
        raise EvalError(f"Unknown correction {correction!r}. Choose one of: {', '.join(stats.CORRECTIONS)}.")
    raw = [np.nan if r.p_value is None else r.p_value for c in comparisons for r in c.rows if r.run != c.baseline]
    adjusted = iter(stats.correct(raw, correction, alpha))
    return tuple(replace(c, rows=tuple(r if r.run == c.baseline else _recorrected(r, num(next(adjusted)), alpha)
                                       for r in c.rows), correction=correction, alpha=alpha)
                 for c in comparisons)


def _recorrected(row: ComparisonRow, p_corr: float | None, alpha: float) -> ComparisonRow:
    return replace(row, p_corrected=p_corr, significant=None if p_corr is None else bool(p_corr < alpha))


_DECIMALS = ("mean", "ci_low", "ci_high", "delta", "rel_delta", "p_value", "effect_size", "urisk", "georisk")
_WHOLE = ("wins", "ties", "losses", "rank", "rank_low", "rank_high")


def text_table(df: pd.DataFrame, digits: int) -> str:
    """A table of comparison records as text: `digits` decimals (TRisk: 2), whole numbers, - for a missing value,
    and * after a significant corrected p-value."""
    marks = ["*" if s is True else "" for s in df["significant"]]
    df = df.drop(columns=["significant"])
    df["p_corrected"] = [fmt(p, digits) + m for p, m in zip(df["p_corrected"], marks)]
    for col in df.columns:
        if col in _DECIMALS or col == "trisk":
            df[col] = [fmt(v, 2 if col == "trisk" else digits) for v in df[col]]
        elif col in _WHOLE:
            df[col] = ["-" if v is None or v != v else str(int(v)) for v in df[col]]
    return df.to_string(index=False)


def aligned(header: list[str], labels: int, rows: list[list[str]]) -> list[str]:
    """A text table's lines: columns padded to their widths, the first `labels` to the left, the others (numbers)
    to the right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(w) if i < labels else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [header, *rows]]


def fmt(v, digits: int) -> str:
    """A number with `digits` decimals; - for a missing one (None or NaN)."""
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


_TEX = str.maketrans({**{ch: "\\" + ch for ch in "&%$#_{}"}, "\\": r"\textbackslash{}",
                      "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"})


def _tex(text: str) -> str:
    """Run and measure names as LaTeX text: every special character escaped, in one pass."""
    return str(text).translate(_TEX)


def check_numbers(alpha, tie_tol, n_resamples) -> None:
    """The numeric parameters of a comparison, checked where `compare` and `with_correction` take them."""
    if not 0 < alpha < 1:
        raise EvalError(f"alpha must be between 0 and 1 (e.g. 0.05), not {alpha!r}.")
    if not tie_tol >= 0:
        raise EvalError(f"tie_tol must be 0 or more, not {tie_tol!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise EvalError(f"The number of resamples must be a whole number of at least 1 (e.g. 10000), "
                        f"not {n_resamples!r}.")


def num(x) -> float | None:
    """A finite number as a float; None for a missing or non-finite one (JSON null, shown as -)."""
    return None if x is None or not np.isfinite(x) else float(x)
