"""Several baselines, rank resolution and risk on top of core.stats.compare: the `Report` value.

`report()` compares every run with each baseline (core.stats.compare.compare once per baseline, the
same seeded draws each time), then corrects the p-values of all those tests together: one family
of every (baseline, other run, measure) test. It can add each run's rank, 95% rank interval and
letter group per measure (core.stats.resolution) and, against each baseline, URisk / TRisk / GeoRisk
(core.stats.riskeval). With one baseline and neither extra, the outputs are exactly the Comparison's.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from core.stats import reach
from core.stats.compare import ROW_FIELDS, Comparison, compare
from core.stats.comparison import corrected_together, num, text_table
from core.stats.compare import _resolve_measures as resolve_measures   # aliases such as 'map' -> AP, as compare does
from core.errors import EvalError
from core.stats.multisys import MULTI_TESTS
from core.stats.resolution import RANK_FIELDS, resolve
from core.stats.risk import RISKS
from core.stats.riskeval import risk_table


@dataclass(frozen=True)
class Report:
    comparisons: tuple[Comparison, ...]          # one per baseline, corrected together
    resolutions: dict | None = None              # measure -> Resolution (with ranks=True)
    risk: pd.DataFrame | None = None             # core.stats.riskeval.risk_table (with a risk option)
    risk_first: str = "urisk"
    alpha_risk: float = 1.0

    @property
    def baselines(self) -> tuple[str, ...]:
        return tuple(c.baseline for c in self.comparisons)

    def _plain(self) -> bool:
        return len(self.comparisons) == 1 and self.resolutions is None and self.risk is None

    def fields(self) -> list[str]:
        out = (["baseline"] if len(self.comparisons) > 1 else []) + list(ROW_FIELDS)
        if self.risk is not None:
            first = self.risk_first
            out += [first, *(k for k in RISKS if k != first), "georisk"]
        if self.resolutions is not None:
            out += list(RANK_FIELDS)
        return out

    def in_order(self, runs) -> "Report":
        """The same report with every comparison's runs in the order of `runs` (Comparison.in_order)."""
        return replace(self, comparisons=tuple(c.in_order(runs) for c in self.comparisons))

    def to_records(self) -> list[dict]:
        """One dict per (baseline, run, measure). Several baselines add a `baseline` key; risk adds
        urisk, trisk and georisk to every non-baseline object; ranks add rank, rank_low, rank_high, group."""
        if self._plain():
            return self.comparisons[0].to_records()
        risk = {} if self.risk is None else {
            (r.baseline, r.run, r.measure): r for r in self.risk.itertuples(index=False)}
        out = []
        for c in self.comparisons:
            for row in c.rows:
                rec = asdict(row)
                if len(self.comparisons) > 1:
                    rec = {"baseline": c.baseline, **rec}
                if self.risk is not None and row.run != c.baseline:
                    r = risk.get((c.baseline, row.run, row.measure))
                    for key in (*RISKS, "georisk"):
                        rec[key] = None if r is None else num(getattr(r, key))
                if self.resolutions is not None and row.measure in self.resolutions:
                    rec.update(self.resolutions[row.measure].of(row.run))
                out.append(rec)
        return out

    def to_dataframe(self) -> pd.DataFrame:
        if self._plain():
            return self.comparisons[0].to_dataframe()
        return pd.DataFrame(self.to_records(), columns=self.fields())

    def to_csv(self, path=None) -> str | None:
        return self.to_dataframe().to_csv(path, index=False)

    def legend(self) -> str:
        if len(self.comparisons) == 1:
            text = self.comparisons[0].legend()
        else:
            c = self.comparisons[0]
            corr = "no correction" if c.correction == "none" else f"{c.correction} correction"
            n = sum(len(x.runs) - 1 for x in self.comparisons) * len(c.measures)
            text = (f"Every run against each of {len(self.comparisons)} baselines ({', '.join(self.baselines)}), "
                    f"{corr} over all {n} tests, alpha {c.alpha:g}.")
        if self.risk is not None:
            text += (f" Risk against the baseline with alpha = {self.alpha_risk:g} (losses weigh {1 + self.alpha_risk:g}x); "
                     "TRisk below -2 / above +2: significantly hurts / helps. GeoRisk: against every run.")
        text += "" if unreachable(self.comparisons) is None else " " + unreachable(self.comparisons)
        if self.resolutions:
            text += " " + next(iter(self.resolutions.values())).legend()
            for warning in dict.fromkeys(r.warning() for r in self.resolutions.values() if r.warning()):
                text += " " + warning
        return text

    def to_text(self, digits: int = 4) -> str:
        if self._plain():
            warning = unreachable(self.comparisons)
            return self.comparisons[0].to_text(digits) + ("" if warning is None else warning + "\n")
        return (text_table(self.to_dataframe(), digits)
                + f"\n* significant: {self.legend()}\n{self.comparisons[0].missing_note}\n")

    def to_latex(self, digits: int = 4) -> str:
        """Each baseline's runs x measures table of means (core.stats.compare's LaTeX), one after another."""
        return "\n".join(c.to_latex(digits) for c in self.comparisons)


def unreachable(comparisons) -> str | None:
    """Why no run can be significantly different from its baseline in comparisons corrected together
    (corrected_together: one family of every (baseline, run, measure) test with a p-value), or None when one can
    (core.stats.reach.family_warning)."""
    rows = [r for c in comparisons for r in c.rows if r.p_value is not None and np.isfinite(r.p_value)]
    if not rows:
        return None
    c = comparisons[0]
    return reach.family_warning(c.test, c.correction, n_tests=len(rows), n_runs=len(c.runs),
                                n_topics=max(r.n_queries for r in rows), n_resamples=c.n_resamples, alpha=c.alpha)


def report(per_query: pd.DataFrame, *, baselines, measures=None, test: str = "t", correction: str = "none",
           alpha: float = 0.05, missing: str = "skip", all_qids=None, n_resamples: int = 10_000, seed: int = 0,
           ranks: bool = False, risk: str | None = None, alpha_risk: float = 1.0,
           tie_tol: float = 1e-9) -> Report:
    """Compare every run with each of `baselines`; optionally add ranks and risk (see the module doc)."""
    baselines = list(dict.fromkeys([baselines] if isinstance(baselines, str) else baselines))
    if not baselines:
        raise EvalError("Name at least one baseline run.")
    if risk not in (None, *RISKS):
        raise EvalError(f"Unknown risk measure {risk!r}. Choose urisk or trisk.")
    common = dict(measures=measures, test=test, alpha=alpha, missing=missing, all_qids=all_qids,
                  n_resamples=n_resamples, seed=seed, tie_tol=tie_tol)
    first = None
    if not (ranks or test in MULTI_TESTS):
        first = compare(per_query, baseline=baselines[0], correction="none", **common)
    resolutions = None
    if ranks or test in MULTI_TESTS:    # a multi-system test's matrix is computed once, for every baseline
        present = [str(m) for m in pd.unique(per_query["measure"])]
        order = [str(x) for x in pd.unique(per_query["run"].astype(str))]
        resolutions = resolve(per_query, measures=resolve_measures(common.pop("measures"), present), runs=order,
                              test=test, correction=correction, alpha=alpha, missing=missing, all_qids=all_qids,
                              n_resamples=n_resamples, seed=seed, tie_tol=tie_tol)
        common["measures"] = list(resolutions)
    comparisons = [first or compare(per_query, baseline=baselines[0], correction="none", pairs=resolutions, **common)]
    comparisons += [compare(per_query, baseline=b, correction="none", pairs=resolutions, **common) for b in baselines[1:]]
    comparisons = corrected_together(comparisons, correction, alpha)
    measures, runs = list(comparisons[0].measures), list(comparisons[0].runs)
    resolutions = resolutions if ranks else None
    table = None
    if risk is not None:
        table = risk_table(per_query, baselines=baselines, measures=measures, runs=runs, alpha=alpha_risk,
                           missing=missing, all_qids=all_qids)
    return Report(comparisons=comparisons, resolutions=resolutions, risk=table, risk_first=risk or "urisk",
                  alpha_risk=alpha_risk)


__all__ = ["Report", "report", "corrected_together", "unreachable"]
