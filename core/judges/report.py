"""Many judges (human or LLM) against one reference qrels set: label agreement, system-ranking stability, the
score shift of every run under every judge, per-topic agreement, and the holes in the reference's pool.

Entry points: `judges_frames` (DataFrames; the command line reads its files into them) and
`core.service.judges.judges_stored` (a store collection). Each builds stage 1 for all judges at once and calls `core.judges.scores.score_sets` once and
`core.judges.labels.labels` once, so 33 judges x 100 runs x 50 topics is one engine pass, not 165,000.

Definitions (the tests check each one against an independent oracle):
- means follow trec_eval's default: over the topics that the run and that qrels set share;
- `shift[judge, run]` = mean under the judge - mean under the reference; its CI and p-value are a paired
  bootstrap of the mean per-topic difference over the topics both sets evaluate for the run
  (`core.stats.paired.bootstrap_ci_and_test`, seeded: one draw of the topics that any pair evaluates serves every
  pair, each taking the mean over its drawn topics), corrected over all judge x run tests (`core.stats.paired.correct`);
- `kendall_tau` (tau-b) and `tau_ap` compare the systems' means under the judge with the reference's as
  the "true" ordering (core/agreement/rankcorr.py); `largest_rank_change` is the largest |rank under the reference -
  rank under the judge| of any run (rank 1 = best, tied means share the best rank);
- bounds: `unjudged_nonrelevant` is the reference score (trec_eval's default); `unjudged_relevant` counts
  every unjudged retrieved document within the measure's cutoff (the whole ranking without one) relevant at
  the reference's top grade, which also adds them to the topic's relevant documents. For a normalised measure
  that need not be higher, so a run's interval is [min, max] of the two; `flips` lists pairs of runs whose
  order under the reference could reverse within their intervals;
- `filled[judge, run]`: the reference with its holes filled by the judge's labels (on the reference's topics);
  `filled_holes[judge, run]` counts the run's holes that the judge labels (retrieved documents within the
  measure's cutoff, the whole ranking without one, on the reference's topics, that the reference did not judge).
  With none, the filled score is the reference score.
"""
from __future__ import annotations

from dataclasses import dataclass
import duckdb
import numpy as np
import pandas as pd

from core.judges import labels as judges_labels
from core.judges import scores as judges_scores
from core.judges.tables import runs_table, stack_qrels
from core.errors import EvalError
from core.measures import EvalOptions, parse_measure
from core.judges.ranking import ranking_table
from core.stats.comparison import num
from core.stats.paired import bootstrap_ci_and_test, correct

DEFAULT_MEASURE = "nDCG@10"


@dataclass(frozen=True)
class JudgeReport:
    reference: str
    judges: list[str]
    runs: list[str]
    measure: str
    rel_level: int
    reference_scores: pd.Series          # run -> mean under the reference
    scores: pd.DataFrame                 # runs x judges: means under each judge
    filled: pd.DataFrame                 # runs x judges: means under the reference filled by each judge
    bounds: pd.DataFrame                 # run, unjudged_nonrelevant, unjudged_relevant, low, high
    table: pd.DataFrame                  # one row per judge (see `_judge_table`)
    shifts: pd.DataFrame                 # judge, run, shift, ci_low, ci_high, p_value, p_corrected, significant, n_topics
    per_topic: pd.DataFrame              # judge, qid, n, agreement, cohen_kappa, binary_kappa, over_rate, under_rate
    confusions: dict                     # judge -> DataFrame (rows: reference grade, columns: judge's)
    flips: pd.DataFrame                  # a, b: a above b under the reference, could flip
    correction: str
    alpha: float
    top_grade: int
    filled_holes: pd.DataFrame           # runs x judges: holes the judge labels

    def to_dict(self) -> dict:
        """The CLI's JSON object (keys documented in docs/cli.md: `judges` holds one object per judge, in order)."""
        out = {"reference": self.reference, "measure": self.measure, "rel_level": self.rel_level,
               "reference_scores": _series(self.reference_scores), "correction": self.correction,
               "alpha": self.alpha, "judges": []}
        for row in self.table.itertuples(index=False):
            name, conf = row.judge, self.confusions[row.judge]
            shifts = self.shifts[self.shifts["judge"] == name].set_index("run")
            obj = {k: num(v) if isinstance(v, float) else v for k, v in row._asdict().items()}
            obj.update(scores=_series(self.scores[name]), shift=_series(shifts["shift"]),
                       filled=_series(self.filled[name]),
                       filled_holes={str(r): int(v) for r, v in self.filled_holes[name].items()},
                       shift_ci={r: [num(a), num(b)] for r, a, b in zip(shifts.index, shifts["ci_low"], shifts["ci_high"])},
                       shift_significant={r: bool(v) for r, v in shifts["significant"].items()},
                       confusion={"labels": [int(v) for v in conf.index], "rows": self.reference, "columns": name,
                                  "counts": conf.to_numpy().astype(int).tolist()},
                       topics=self.topics_of(name).to_dict(orient="records"))
            out["judges"].append(obj)
        out["bounds"] = {r.run: {"unjudged_nonrelevant": num(r.unjudged_nonrelevant),
                                 "unjudged_relevant": num(r.unjudged_relevant)} for r in self.bounds.itertuples()}
        out["top_grade"] = self.top_grade
        out["flips"] = self.flips.to_dict(orient="records")
        return out

    def topics_of(self, judge: str) -> pd.DataFrame:
        """One judge's agreement per topic, most disagreement first (lowest kappa, then lowest agreement)."""
        part = self.per_topic[self.per_topic["judge"] == judge].drop(columns="judge")
        part = part.sort_values(["cohen_kappa", "agreement"], na_position="last", kind="stable")
        return part.astype(object).where(part.notna(), None).reset_index(drop=True)


def _series(s: pd.Series) -> dict:
    return {str(k): num(float(v)) for k, v in s.items()}


def compute(con, qrels_table: str, st: judges_scores.Stage1, reference: str, judges: list[str], measure: str,
            rel_level: int = 1, correction: str = "holm", alpha: float = 0.05, n_resamples: int = 2000,
            seed: int = 0) -> JudgeReport:
    """The report from stage 1 (`st`) and the stacked qrels (s, qid, docno, rel) in `qrels_table` on `con`."""
    m = parse_measure(measure)
    options = EvalOptions(rel_level=int(rel_level))
    depth = int(m.cutoff) if m.cutoff is not None and m.family.agg == "mean" else None
    J = len(judges)
    sc = judges_scores.score_sets(con, qrels_table, st, J, m, options, depth)
    lab = judges_labels.labels(con, qrels_table, J, rel_level)
    runs = st.runs
    ref_scores = pd.Series(sc.means[0], index=runs, name=reference)
    scores = pd.DataFrame(sc.means[1:J + 1].T, index=runs, columns=judges)
    filled = pd.DataFrame(sc.means[J + 1:2 * J + 1].T, index=runs, columns=judges)
    bounds = pd.DataFrame({"run": runs, "unjudged_nonrelevant": sc.means[0], "unjudged_relevant": sc.means[-1]})
    bounds["low"] = bounds[["unjudged_nonrelevant", "unjudged_relevant"]].min(axis=1)
    bounds["high"] = bounds[["unjudged_nonrelevant", "unjudged_relevant"]].max(axis=1)
    shifts = _shifts(sc, judges, runs, correction, alpha, n_resamples, seed)
    table = _judge_table(judges, judges_labels.per_judge(lab), ref_scores, scores, shifts)
    topic = judges_labels.per_topic(lab)
    topic["judge"] = np.asarray(judges, dtype=object)[topic["judge"].to_numpy()] if len(topic) else []
    confusions = {name: pd.DataFrame(lab.counts[j].sum(axis=0), index=pd.Index(lab.grades, name=reference),
                                     columns=pd.Index(lab.grades, name=name)) for j, name in enumerate(judges)}
    return JudgeReport(reference, list(judges), list(runs), m.name, int(rel_level), ref_scores, scores, filled,
                       bounds, table, shifts, topic, confusions, flips(bounds, ref_scores), correction, alpha,
                       sc.top_grade, pd.DataFrame(sc.holes.T, index=runs, columns=judges))


def _shifts(sc, judges, runs, correction, alpha, n_resamples, seed) -> pd.DataFrame:
    J, R = len(judges), len(runs)
    diff = sc.values[1:J + 1] - sc.values[:1]                         # judge x run x topic
    D = diff.reshape(J * R, diff.shape[-1]).T                         # topics x (judge, run)
    mask = np.isfinite(D)
    D, mask = D[mask.any(axis=1)], mask[mask.any(axis=1)]            # the topics some pair evaluates
    low, high, p = bootstrap_ci_and_test(np.where(mask, D, 0.0), mask, np.where(mask, D, 0.0), mask,
                                         n_resamples=n_resamples, seed=seed)
    pc = correct(p, correction, alpha)
    return pd.DataFrame({"judge": np.repeat(np.asarray(judges, dtype=object), R),
                         "run": np.tile(np.asarray(runs, dtype=object), J),
                         "shift": (sc.means[1:J + 1] - sc.means[:1]).ravel(), "ci_low": low, "ci_high": high,
                         "p_value": p, "p_corrected": pc, "significant": np.nan_to_num(pc, nan=1.0) < alpha,
                         "n_topics": mask.sum(axis=0)})


def _judge_table(judges, labels: pd.DataFrame, ref: pd.Series, scores: pd.DataFrame, shifts) -> pd.DataFrame:
    """Per judge: the label agreement, the ranking stability (core.judges.ranking, all judges at once) and the
    largest shift."""
    ranking = ranking_table(ref.to_numpy(np.float64), scores.T.to_numpy(np.float64), list(ref.index))
    J, R = len(judges), len(ref)
    shift = shifts["shift"].to_numpy(np.float64).reshape(J, R)
    has = np.isfinite(shift).any(axis=1) if R else np.zeros(J, bool)
    worst = np.nanargmax(np.where(np.isfinite(shift), np.abs(shift), -1.0), axis=1) if R else np.zeros(J, int)
    runs = np.asarray(ref.index, dtype=object)
    extra = pd.DataFrame({"largest_shift": np.where(has, shift[np.arange(J), worst], np.nan) if J else [],
                          "largest_shift_run": [runs[w] if h else None for w, h in zip(worst, has)],
                          "n_significant": shifts["significant"].to_numpy(bool).reshape(J, R).sum(axis=1)})
    return pd.concat([pd.DataFrame({"judge": list(judges)}), labels.reset_index(drop=True), ranking, extra], axis=1)


def flips(bounds: pd.DataFrame, ref: pd.Series) -> pd.DataFrame:
    """Pairs (a, b) with a strictly above b under the reference whose bound intervals let b reach a:
    low[a] < high[b]. Vectorised over all pairs (runs x runs booleans)."""
    mean = ref.reindex(bounds["run"]).to_numpy(np.float64)
    low, high = bounds["low"].to_numpy(np.float64), bounds["high"].to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        hit = (mean[:, None] > mean[None, :]) & (low[:, None] < high[None, :])
    a, b = np.nonzero(hit)
    names = bounds["run"].to_numpy(object)
    return pd.DataFrame({"a": names[a], "b": names[b]})


# -- from DataFrames or Arrow tables (the CLI reads the files into these) -----------------------------

def _check(judges, runs) -> None:
    if not judges:
        raise EvalError("Give at least one judge's qrels to compare with the reference.")
    if not runs:
        raise EvalError("Give at least one run (--run RUN): shifts and rank correlations score runs.")


def judges_frames(reference, judges: dict, runs: dict, *, measure: str = DEFAULT_MEASURE, rel_level: int = 1,
                  reference_name: str = "reference", **kw) -> JudgeReport:
    """reference and judges: qrels (qid, docno, rel) as DataFrames or Arrow tables, judges keyed by name; runs:
    {name: (qid, docno, score)}. The file's rank column, if any, is ignored (trec_eval's order)."""
    _check(judges, runs)
    m = parse_measure(measure)
    depth = int(m.cutoff) if m.cutoff is not None and m.family.agg == "mean" else None
    con = duckdb.connect()
    try:
        stack_qrels(con, reference, list(judges.values()))
        runs_table(con, list(runs.values()))
        st = judges_scores.table_stage1(con, "jr", "jq", list(runs), depth)
        return compute(con, "jq", st, reference_name, list(judges), m.name, rel_level, **kw)
    finally:
        con.close()
