"""Risk over a per-query table (run, qid, measure, value): URisk and TRisk of every run against
each baseline, GeoRisk across all runs, and one run's per-topic TRisk contributions.

Pairing follows core.stats.compare: a run is paired with the baseline on the topics both have
(missing='skip'), or on the baseline's topics (or `all_qids`) with a missing value counted as 0
(missing='zero'). GeoRisk needs every run on every topic: the topics all runs share, or zeros."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.stats import risk
from core.errors import EvalError
from core.stats.comparison import num
from core.stats.resolution import complete_from_wide, topic_list, wide_tables

RISK_FIELDS = ("urisk", "trisk", "georisk")


def _paired(wide: pd.DataFrame, baseline: str, missing: str, all_qids) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(differences topics x runs, pair mask, topics) against one baseline column."""
    index = topic_list(all_qids, wide.index[wide[baseline].notna().to_numpy()])   # the baseline's values' topics
    wide = wide.reindex(index=index)
    V = wide.to_numpy(dtype=float)
    if missing == "zero":
        V = np.nan_to_num(V, nan=0.0)
    base = V[:, [list(wide.columns).index(baseline)]]
    mask = ~np.isnan(V) & ~np.isnan(base)
    return np.where(mask, V - base, 0.0), mask, [str(q) for q in index]


def risk_table(per_query: pd.DataFrame, *, baselines, measures, runs=None, alpha: float = 1.0,
               missing: str = "skip", all_qids=None) -> pd.DataFrame:
    """One row per (baseline, run != baseline, measure): urisk, trisk, georisk, n_queries."""
    alpha = risk.check_alpha(alpha)
    runs = list(runs) if runs is not None else [str(r) for r in pd.unique(per_query["run"].astype(str))]
    for b in baselines:
        if b not in runs:
            raise EvalError(f"The baseline {b!r} is not one of the runs: {', '.join(runs)}.")
    rows = []
    for measure, wide in wide_tables(per_query, measures, runs).items():
        X = complete_from_wide(wide, missing=missing, all_qids=all_qids)[0]
        # GeoRisk models values as counts: none for a measure with negative values (none in the registry today)
        geo = dict(zip(runs, np.full(len(runs), np.nan) if X.size and X.min() < 0 else risk.georisk(X, alpha)))
        for b in baselines:
            D, mask, _ = _paired(wide, b, missing, all_qids)
            u, t = risk.urisk_trisk(D, mask, alpha)
            for j, run in enumerate(runs):
                if run != b:
                    rows.append({"baseline": b, "run": run, "measure": measure, "urisk": num(u[j]),
                                 "trisk": num(t[j]), "georisk": num(geo[run]), "n_queries": int(mask[:, j].sum())})
    return pd.DataFrame(rows, columns=["baseline", "run", "measure", *RISK_FIELDS, "n_queries"])


def contributions(per_query: pd.DataFrame, *, run: str, baseline: str, measure: str, alpha: float = 1.0,
                  missing: str = "skip", all_qids=None) -> pd.DataFrame:
    """Per topic: qid, delta, f (losses weighted 1 + alpha) and its share of TRisk, sorted by share."""
    if run == baseline:     # no risk against itself
        return pd.DataFrame({"qid": [], "delta": [], "f": [], "contribution": []})
    wide = wide_tables(per_query, [measure], [baseline, run])[measure]
    D, mask, topics = _paired(wide, baseline, missing, all_qids)
    keep = mask[:, 1]
    delta = D[keep, 1]
    out = pd.DataFrame({"qid": np.asarray(topics, dtype=object)[keep], "delta": delta,
                        "f": risk.weighted(delta, alpha), "contribution": risk.trisk_contributions(delta, alpha)})
    return out.sort_values(["contribution", "qid"], kind="stable").reset_index(drop=True)


__all__ = ["RISK_FIELDS", "risk_table", "contributions"]
