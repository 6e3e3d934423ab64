"""How alike two runs score, measure by measure, as repro_eval defines it (Breuer et al., "How to measure the
reproducibility of system-oriented IR experiments", SIGIR 2020):

- RMSE: the root mean square of the per-topic differences, sqrt(mean((original - reproduced)^2)), on the topics
  both runs have (reproducibility only: the same topics).
- p-value: the paired two-sided t-test between the per-topic values (scipy's ttest_rel) when the topics are the same;
  Welch's unpaired t-test (scipy's ttest_ind with unequal variances) for replicability, on other topics. repro_eval
  uses Student's pooled-variance test there; Welch's does not assume the two collections' variances are equal.
  Identical per-topic values give p = 1, as repro_eval reports them (scipy gives no p-value for them).
- Effect ratio: ER = MI_reproduced / MI_original, where MI is a pair's mean improvement, the mean over its topics of
  (run - baseline). 1 when the improvement is reproduced in full, 0 when it vanished, negative when reversed.
- Delta RI: RI_original - RI_reproduced, where RI = (mean(run) - mean(baseline)) / mean(baseline), the relative
  improvement. 0 when the improvement is reproduced in full.

Each pair's means are over the topics both of its runs have. A ratio with a zero denominator is None.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.stats import paired
from core.stats.comparison import num


def values(per_query: pd.DataFrame, run: str, measure: str) -> pd.Series:
    """A run's per-topic values of one measure, indexed by qid."""
    rows = per_query[(per_query["run"] == run) & (per_query["measure"] == measure)]
    return pd.Series(rows["value"].to_numpy(dtype=float), index=rows["qid"].astype(str).to_numpy())


def aligned(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The values of two series on the topics both have, in topic order."""
    common = a.index.intersection(b.index).sort_values()
    return a.loc[common].to_numpy(), b.loc[common].to_numpy()


def rmse(original: np.ndarray, reproduced: np.ndarray) -> float | None:
    if len(original) == 0:
        return None
    return float(np.sqrt(np.mean(np.square(original - reproduced))))


def paired_p(original: np.ndarray, reproduced: np.ndarray) -> float | None:
    if len(original) and np.array_equal(original, reproduced):
        return 1.0
    return num(paired.paired_t(original, reproduced))


def welch_p(original: np.ndarray, reproduced: np.ndarray) -> float | None:
    return num(paired.welch_t(original, reproduced))


def mean_improvement(run: pd.Series, baseline: pd.Series) -> float | None:
    x, y = aligned(run, baseline)
    return float(np.mean(x - y)) if len(x) else None


def relative_improvement(run: pd.Series, baseline: pd.Series) -> float | None:
    x, y = aligned(run, baseline)
    if not len(x) or np.mean(y) == 0:
        return None
    return float((np.mean(x) - np.mean(y)) / np.mean(y))


def effect_ratio(original_run, original_baseline, reproduced_run, reproduced_baseline) -> float | None:
    """ER = MI_reproduced / MI_original (series of per-topic values, indexed by qid)."""
    mi_o = mean_improvement(original_run, original_baseline)
    mi_r = mean_improvement(reproduced_run, reproduced_baseline)
    if mi_o is None or mi_r is None or mi_o == 0:
        return None
    return mi_r / mi_o


def delta_ri(original_run, original_baseline, reproduced_run, reproduced_baseline) -> float | None:
    """Delta RI = RI_original - RI_reproduced (series of per-topic values, indexed by qid)."""
    ri_o = relative_improvement(original_run, original_baseline)
    ri_r = relative_improvement(reproduced_run, reproduced_baseline)
    return None if ri_o is None or ri_r is None else ri_o - ri_r


__all__ = ["values", "aligned", "rmse", "paired_p", "welch_p", "mean_improvement", "relative_improvement",
           "effect_ratio", "delta_ri"]
