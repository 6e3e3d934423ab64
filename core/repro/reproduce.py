"""Reproducibility and replicability of a run (and of its baseline) from its per-topic values and its document
orderings -> the `Reproduction` value (core.repro.report). The measures are defined in core.repro.ordering and
core.repro.effects."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.errors import EvalError
from core.repro import effects, ordering
from core.stats.comparison import num
from core.repro.report import Agreement, EffectRow, MeasureRow, Reproduction

ROLES = ("original", "reproduced", "original_baseline", "reproduced_baseline")


def reproduce(original: pd.DataFrame, reproduced: pd.DataFrame, names: dict[str, str], measures: list[str], *,
              rankings: dict[str, pd.DataFrame] | None = None, replicability: bool = False,
              rbo_p: float = ordering.RBO_P, depth: int = ordering.DEPTH) -> Reproduction:
    """`original`: the per-query table (run, qid, measure, value) of the original run and, if given, its baseline;
    `reproduced`: the same of the reproduced ones (the same table will do). `names`: role -> run name in those
    tables, for the roles of ROLES given (both baselines or neither). `rankings`: role -> core.repro.ordering.ranked
    table, for KTU and RBO (reproducibility only). `replicability`: the reproduced runs are on other topics."""
    if ("original_baseline" in names) != ("reproduced_baseline" in names):
        raise EvalError("Give both baselines (--original-baseline and --reproduced-baseline) or neither.")
    if not 0 < rbo_p < 1:
        raise EvalError(f"--rbo-p must be between 0 and 1 (e.g. 0.8), not {rbo_p!r}.")
    pairs = [("run", "original", "reproduced")]
    if "original_baseline" in names:
        pairs.append(("baseline", "original_baseline", "reproduced_baseline"))
    tables = {"original": original, "original_baseline": original, "reproduced": reproduced,
              "reproduced_baseline": reproduced}
    series = {(role, m): effects.values(tables[role], names[role], m) for role in names for m in measures}
    rows = [_measure_row(m, pair, series[(o, m)], series[(r, m)], replicability)
            for m in measures for pair, o, r in pairs]
    effect_rows = [EffectRow(m, effects.effect_ratio(*(series[(role, m)] for role in _EFFECT_ORDER)),
                             effects.delta_ri(*(series[(role, m)] for role in _EFFECT_ORDER)))
                   for m in measures] if len(pairs) == 2 else []
    agreement = [] if replicability or not rankings else [
        _agreement(pair, names[o], names[r], rankings[o], rankings[r], rbo_p) for pair, o, r in pairs]
    return Reproduction(kind="replicability" if replicability else "reproducibility",
                        runs=tuple((role, names[role]) for role in ROLES if role in names), depth=depth, rbo_p=rbo_p,
                        test="Welch's unpaired t-test" if replicability else "paired t-test",
                        agreement=tuple(agreement), measures=tuple(rows), effects=tuple(effect_rows))


_EFFECT_ORDER = ("original", "original_baseline", "reproduced", "reproduced_baseline")


def _measure_row(measure: str, pair: str, original: pd.Series, reproduced: pd.Series,
                 replicability: bool) -> MeasureRow:
    if replicability:
        x, y = original.to_numpy(), reproduced.to_numpy()
        return MeasureRow(measure, pair, _mean(x), _mean(y), len(x), None, effects.welch_p(x, y))
    x, y = effects.aligned(original, reproduced)
    return MeasureRow(measure, pair, _mean(x), _mean(y), len(x), effects.rmse(x, y), effects.paired_p(x, y))


def _agreement(pair: str, original: str, reproduced: str, ranked_o: pd.DataFrame, ranked_r: pd.DataFrame,
               rbo_p: float) -> Agreement:
    k, r = ordering.ktu(ranked_o, ranked_r), ordering.rbo(ranked_o, ranked_r, rbo_p)
    per_topic = tuple((str(q), num(k.loc[q]), num(r.loc[q])) for q in k.index)
    return Agreement(pair, original, reproduced, len(k), _mean(k.dropna().to_numpy()), _mean(r.to_numpy()),
                     per_topic)


def _mean(x: np.ndarray) -> float | None:
    return float(np.mean(x)) if len(x) else None


__all__ = ["reproduce", "ROLES"]
