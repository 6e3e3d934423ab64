"""Effectiveness beside cost: the Pareto front of runs over a measure and a cost.

A run is on the front when no other run beats it on both axes: none is at least as good on the measure and on the
cost, and strictly better on one of them. Which direction is better on a cost is declared with its key
(core/formats/lineage.py `META_KEYS[key].better`: lower for latency, index size, money and energy). A run without
a value on either axis is not plotted but listed (`Pareto.missing`, `Pareto.unmeasured`), never dropped in silence.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


def dominated(x, y, *, x_better: str = "lower", y_better: str = "higher") -> np.ndarray:
    """For each point (x[i], y[i]), whether another point is at least as good on both axes and strictly better on
    one; NaN points are neither dominated nor dominate (mask them first). Compared all pairs at once (n x n)."""
    if x_better not in ("lower", "higher") or y_better not in ("lower", "higher"):
        raise ValueError(f"better must be 'lower' or 'higher', not {x_better!r} / {y_better!r}")
    x = np.asarray(x, dtype=float) * (1.0 if x_better == "lower" else -1.0)      # both axes: lower is better
    y = np.asarray(y, dtype=float) * (1.0 if y_better == "lower" else -1.0)
    no_worse = (x[:, None] <= x[None, :]) & (y[:, None] <= y[None, :])        # [j, i]: j no worse than i
    better = (x[:, None] < x[None, :]) | (y[:, None] < y[None, :])
    return (no_worse & better).any(axis=0)


@dataclass(frozen=True)
class Pareto:
    """`points`: the runs with both values (run, cost, measure, front), the front's runs first in order of cost
    (best first), then the others; `missing`: the runs without a cost value (no cost data), `unmeasured`: those with
    one but without a value of the measure, each in the order given."""
    cost: str
    measure: str
    cost_better: str
    points: pd.DataFrame
    missing: list[str]
    unmeasured: list[str]

    @property
    def front(self) -> list[str]:
        """The runs no other run beats on both axes, from the best cost to the worst."""
        return self.points.loc[self.points["front"], "run"].tolist()


def pareto(runs, cost_values, measure_values, *, cost: str, measure: str, cost_better: str = "lower") -> Pareto:
    """The Pareto front of `runs` (names) over a cost (lower or higher better) and a measure (higher better)."""
    frame = pd.DataFrame({"run": [str(r) for r in runs],
                          "cost": pd.to_numeric(pd.Series(list(cost_values), dtype=object), errors="coerce"),
                          "measure": pd.to_numeric(pd.Series(list(measure_values), dtype=object), errors="coerce")})
    ok = frame["cost"].notna() & frame["measure"].notna()
    points = frame[ok].reset_index(drop=True)
    points["front"] = ~dominated(points["cost"], points["measure"], x_better=cost_better)
    points = points.sort_values(["front", "cost", "measure"], ascending=[False, cost_better == "lower", False],
                                kind="stable").reset_index(drop=True)
    no_cost = frame["cost"].isna()
    return Pareto(cost, measure, cost_better, points, frame.loc[no_cost, "run"].tolist(),
                  frame.loc[~no_cost & ~ok, "run"].tolist())
