"""The frozen `Reproduction` value that core.repro.reproduce returns, and its formats (text and JSON)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import pandas as pd

from core.stats.comparison import aligned, fmt

PAIRS = ("run", "baseline")   # the improved run (repro_eval's "advanced") and its baseline


@dataclass(frozen=True)
class Agreement:
    """How alike one pair of runs orders its documents (reproducibility only)."""
    pair: str                                   # "run" or "baseline"
    original: str
    reproduced: str
    n_topics: int                               # topics both runs have
    ktu: float | None                           # mean over those topics
    rbo: float | None
    per_topic: tuple[tuple[str, float | None, float | None], ...]   # (qid, ktu, rbo)


@dataclass(frozen=True)
class MeasureRow:
    """One measure of one pair: the two means, the RMSE of the per-topic values and a t-test's p-value."""
    measure: str
    pair: str
    original_mean: float | None
    reproduced_mean: float | None
    n_topics: int                               # topics paired (reproducibility) or the original's (replicability)
    rmse: float | None                          # None for replicability (other topics)
    p_value: float | None


@dataclass(frozen=True)
class EffectRow:
    """One measure's effect of the run over its baseline, original against reproduced."""
    measure: str
    effect_ratio: float | None
    delta_ri: float | None


@dataclass(frozen=True)
class Reproduction:
    kind: str                                   # "reproducibility" (same topics) or "replicability" (other topics)
    runs: tuple[tuple[str, str], ...]           # (role, run name): original, reproduced, original_baseline, ...
    depth: int
    rbo_p: float
    test: str                                   # the t-test's name
    agreement: tuple[Agreement, ...]
    measures: tuple[MeasureRow, ...]
    effects: tuple[EffectRow, ...]

    def to_dict(self) -> dict:
        return {"kind": self.kind, "runs": dict(self.runs), "depth": self.depth, "rbo_p": self.rbo_p,
                "test": self.test,
                "agreement": [{**asdict(a), "per_topic": [{"qid": q, "ktu": k, "rbo": r} for q, k, r in a.per_topic]}
                              for a in self.agreement],
                "measures": [asdict(m) for m in self.measures], "effects": [asdict(e) for e in self.effects]}

    def per_topic_frame(self) -> pd.DataFrame:
        """One row per pair and topic: pair, qid, ktu, rbo (NaN where a value is undefined)."""
        rows = [(a.pair, q, k, r) for a in self.agreement for q, k, r in a.per_topic]
        return pd.DataFrame(rows, columns=["pair", "qid", "ktu", "rbo"]).astype({"ktu": float, "rbo": float})

    def measures_frame(self) -> pd.DataFrame:
        """One row per measure and pair: the two means, topics, RMSE and p-value."""
        return pd.DataFrame([asdict(m) for m in self.measures], columns=list(MeasureRow.__dataclass_fields__))

    def effects_frame(self) -> pd.DataFrame:
        """One row per measure: effect ratio and delta RI (no rows without baselines)."""
        return pd.DataFrame([asdict(e) for e in self.effects], columns=list(EffectRow.__dataclass_fields__))

    def to_csv(self) -> str:
        """Everything as one long CSV: section, pair, measure, qid, statistic, value (the means of the orderings
        with qid "all")."""
        rows = [("ordering", a.pair, "", "all", name, value) for a in self.agreement
                for name, value in (("ktu", a.ktu), ("rbo", a.rbo))]
        rows += [("ordering", a.pair, "", q, name, value) for a in self.agreement for q, k, r in a.per_topic
                 for name, value in (("ktu", k), ("rbo", r))]
        rows += [("measure", m.pair, m.measure, "all", name, getattr(m, name)) for m in self.measures
                 for name in ("original_mean", "reproduced_mean", "n_topics", "rmse", "p_value")]
        rows += [("effect", "", e.measure, "all", name, getattr(e, name)) for e in self.effects
                 for name in ("effect_ratio", "delta_ri")]
        return pd.DataFrame(rows, columns=["section", "pair", "measure", "qid", "statistic", "value"]).to_csv(
            index=False)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_text(self, digits: int = 4) -> str:
        runs = dict(self.runs)
        head = f"{self.kind.capitalize()}: {runs['reproduced']} against the original {runs['original']}"
        if "original_baseline" in runs:
            head += f"; baselines {runs['reproduced_baseline']} against {runs['original_baseline']}"
        out = [head + "."]
        if self.agreement:
            out += ["", f"Document orderings (top {self.depth}, per topic, then averaged over the topics both runs "
                        f"have; RBO extrapolated, p = {self.rbo_p:g}):"]
            out += aligned(["pair", "topics", "KTU", "RBO"], 1,
                          [[a.pair, str(a.n_topics), fmt(a.ktu, digits), fmt(a.rbo, digits)] for a in self.agreement])
        rmse = self.kind == "reproducibility"
        out += ["", f"Per measure ({self.test}, original against reproduced):"]
        out += aligned(["measure", "pair", "original", "reproduced", "topics"] + (["RMSE"] if rmse else []) + ["p"], 2,
                      [[m.measure, m.pair, fmt(m.original_mean, digits), fmt(m.reproduced_mean, digits),
                        str(m.n_topics)] + ([fmt(m.rmse, digits)] if rmse else []) + [fmt(m.p_value, digits)]
                       for m in self.measures])
        if self.effects:
            out += ["", "Effects of the run over its baseline (ER: 1 = the improvement reproduced in full; "
                        "delta RI: 0 = the same relative improvement):"]
            out += aligned(["measure", "ER", "delta RI"], 1,
                          [[e.measure, fmt(e.effect_ratio, digits), fmt(e.delta_ri, digits)] for e in self.effects])
        return "\n".join(out) + "\n"


__all__ = ["Reproduction", "Agreement", "MeasureRow", "EffectRow", "PAIRS"]
