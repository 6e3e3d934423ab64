"""Precision-recall and ROC curves as tidy DataFrames, ready for plotly.

Every curve has columns run, qid (a topic id, or 'all' for the average over topics), x, y, plus
the same two values under their own names (recall/precision, fpr/tpr).

- `pr_curve`: trec_eval's 11-point interpolated precision (`iprec_at_recall_*`). The values come
  from the measures engine (IPrec@r), so trec_eval 9.0.8 and --compat 10 semantics are the
  engine's; this module only lays them out and averages them over topics (as trec_eval's 'all').
- `pr_points`: the uninterpolated (recall, precision) of one ranking, at every rank or only at each
  relevant document (the recall/precision table of seed 002).
- `roc_curve`: positives are the relevant documents (grade >= rel_level), negatives the judged
  non-relevant ones (0 <= grade < rel_level); with num_docs (trec_eval -N) every non-relevant
  document of the collection is a negative. Retrieved documents come in rank order; all judged
  documents left unretrieved are tied after everything retrieved, so the curve ends with a straight
  segment to (1, 1). Its trapezoid area (`roc_auc`) is the engine's AUC measure and equals
  sklearn.metrics.roc_auc_score on the judged documents. A topic without positives or negatives has
  no curve (the engine's AUC reports 0 for it). The per-run curve is the vertical average
  (Fawcett 2006, "An introduction to ROC analysis", sec. 8) over the union of every topic's
  breakpoints, so its area is exactly the mean of the topics' AUCs.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa

from core.errors import OptionError
from core.engine.relevance import evaluate_frames
from core.measures import EvalOptions
from core.engine.stage1.order import canonical_ranks

IPREC_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
_IPREC = re.compile(r"^(?:IPrec@|iprec_at_recall_)([01](?:\.[0-9]+)?)$")


def canonical_ranking(run_df: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted as trec_eval ranks them (per run and topic, core.engine.stage1.order), with `rank`.

    A `rank` column already present (the store's canonical rank) is trusted.
    """
    df = run_df.copy()
    if "run" not in df.columns:
        df["run"] = "run"
    df["qid"], df["docno"] = df["qid"].astype(str), df["docno"].astype(str)
    if "rank" not in df.columns:
        codes = df.groupby(["run", "qid"], sort=False).ngroup().to_numpy(np.int32)
        df["rank"] = canonical_ranks(codes, df["score"].to_numpy(np.float64), pa.array(df["docno"], pa.string()))
    return df.sort_values(["run", "qid", "rank"], kind="stable").reset_index(drop=True)


def pr_curve(per_query: pd.DataFrame, *, runs=None, average: bool = True, per_topic: bool = False) -> pd.DataFrame:
    """11-point interpolated PR from the engine's per-query IPrec@r values.

    average: add qid='all' rows, the mean over the topics each run was evaluated on.
    per_topic: keep the per-topic rows too.
    """
    levels = per_query["measure"].astype(str).str.extract(_IPREC, expand=False)
    df = per_query.loc[levels.notna(), ["run", "qid", "value"]].assign(x=levels[levels.notna()].astype(float))
    if runs is not None:
        df = df[df["run"].isin(list(runs))]
    if df.empty:
        raise OptionError("The per-query table has no IPrec@r (iprec_at_recall_*) values for these runs. "
                          "Evaluate the measures from iprec_measures() first.")
    df = df.rename(columns={"value": "y"}).assign(qid=lambda d: d["qid"].astype(str))
    parts = [df] if per_topic else []
    if average:
        parts.append(df.groupby(["run", "x"], sort=False, as_index=False)["y"].mean().assign(qid="all"))
    out = pd.concat(parts, ignore_index=True).sort_values(["run", "qid", "x"], kind="stable")
    return out.assign(recall=out["x"], precision=out["y"])[["run", "qid", "x", "y", "recall", "precision"]] \
        .reset_index(drop=True)


def iprec_measures() -> list[str]:
    """The trec_eval names of the 11 interpolated-precision measures (the engine accepts them)."""
    return [f"iprec_at_recall_{r:.2f}" for r in IPREC_LEVELS]


def pr_curve_frames(qrels_df, run_df, options=None, **kwargs) -> pd.DataFrame:
    """Evaluate IPrec@0..1 with the measures engine and return `pr_curve` of the result."""
    result = evaluate_frames(qrels_df, run_df, iprec_measures(), options or EvalOptions())
    return pr_curve(result.per_query, **kwargs)


def _judge(run_df, qrels_df, rel_level):
    ranked = canonical_ranking(run_df)
    q = qrels_df.assign(qid=qrels_df["qid"].astype(str), docno=qrels_df["docno"].astype(str))
    ranked = ranked.merge(q[["qid", "docno", "rel"]], on=["qid", "docno"], how="left")
    ranked["relevant"] = ranked["rel"].ge(max(rel_level, 0)).fillna(False).astype(bool)
    counts = q.assign(pos=q["rel"] >= max(rel_level, 0), neg=(q["rel"] >= 0) & (q["rel"] < rel_level)) \
        .groupby("qid")[["pos", "neg"]].sum()
    return ranked, counts


def pr_points(run_df, qrels_df, *, rel_level: int = 1, at: str = "relevant") -> pd.DataFrame:
    """Uninterpolated recall and precision after each rank (at='rank') or each relevant document
    (at='relevant'). Recall divides by all relevant documents in the qrels, as trec_eval does."""
    if at not in ("relevant", "rank"):
        raise OptionError(f"at must be 'relevant' or 'rank', not {at!r}.")
    ranked, counts = _judge(run_df, qrels_df, rel_level)
    ranked = ranked[ranked["qid"].isin(counts.index[counts["pos"] > 0])]
    hits = ranked.groupby(["run", "qid"], sort=False)["relevant"].cumsum()
    ranked = ranked.assign(recall=hits / ranked["qid"].map(counts["pos"]), precision=hits / ranked["rank"])
    if at == "relevant":
        ranked = ranked[ranked["relevant"]]
    out = ranked[["run", "qid", "rank", "docno", "relevant", "recall", "precision"]]
    return out.assign(x=out["recall"], y=out["precision"]).reset_index(drop=True)


def roc_curve(run_df, qrels_df, *, rel_level: int = 1, num_docs: int | None = None,
              average: bool = True, per_topic: bool = True) -> pd.DataFrame:
    """ROC points per (run, topic), and the vertically averaged curve per run as qid='all'."""
    ranked, counts = _judge(run_df, qrels_df, rel_level)
    ranked = ranked[ranked["qid"].isin(counts.index)]
    P = ranked["qid"].map(counts["pos"]).to_numpy(dtype=float)
    if num_docs is None:
        N = ranked["qid"].map(counts["neg"]).to_numpy(dtype=float)
        negative = ranked["rel"].between(0, rel_level - 1).to_numpy()  # judged non-relevant
    else:
        N = num_docs - P
        negative = ~ranked["relevant"].to_numpy()
    keep = (P > 0) & (N > 0) & (ranked["relevant"].to_numpy() | negative)
    pts = ranked.loc[keep, ["run", "qid", "rank"]].assign(tp=ranked["relevant"][keep].astype(int),
                                                          fp=negative[keep].astype(int), P=P[keep], N=N[keep])
    g = pts.groupby(["run", "qid"], sort=False)
    pts = pts.assign(x=g["fp"].cumsum() / pts["N"], y=g["tp"].cumsum() / pts["P"])
    groups = ranked.loc[(P > 0) & (N > 0), ["run", "qid"]].drop_duplicates()
    ends = [groups.assign(rank=0, x=0.0, y=0.0), groups.assign(rank=END_RANK, x=1.0, y=1.0)]
    curve = pd.concat([ends[0], pts[["run", "qid", "rank", "x", "y"]], ends[1]], ignore_index=True) \
        .sort_values(["run", "qid", "rank"], kind="stable")[["run", "qid", "x", "y"]].reset_index(drop=True)
    return with_average(curve, average=average, per_topic=per_topic)


END_RANK = int(np.iinfo(np.int32).max)  # the closing (1, 1) point sorts after every retrieved document


def with_average(curve: pd.DataFrame, *, average: bool, per_topic: bool) -> pd.DataFrame:
    """The per-topic curve (run, qid, x, y in point order) and/or the per-run vertical averages."""
    parts = [curve] if per_topic else []
    if average and len(curve):
        steps = curve.groupby(["run", "qid", "x"], sort=True)["y"].agg(["min", "max"]).reset_index()
        parts += [_vertical_average(run, s) for run, s in steps.groupby("run", sort=False)]
    out = pd.concat(parts, ignore_index=True) if parts else curve.iloc[:0]
    return out.assign(fpr=out["x"], tpr=out["y"])


def _vertical_average(run: str, steps: pd.DataFrame) -> pd.DataFrame:
    """Mean TPR over topics at every FPR breakpoint of any topic, taking the left and the right
    limit at each (a vertical step is a jump), so the averaged polyline's area is the mean area.

    `steps`: one row per (qid, x) in qid then x order, with the lowest and highest y at that x.
    Every topic's curve runs from x=0 to x=1 and is linear between its breakpoints, so the sum over
    topics is one sweep over the merged grid: at each breakpoint it jumps by the topics' vertical
    steps there, and between breakpoints it rises at the sum of the topics' current slopes (that sum
    changes only at a breakpoint). Cumulative sums, no loop over topics.
    """
    xs, los, his = (steps[c].to_numpy(dtype=float) for c in ("x", "min", "max"))
    qids = steps["qid"].to_numpy()
    first = np.r_[True, qids[1:] != qids[:-1]]
    last = np.r_[first[1:], True]
    grid, at = np.unique(xs, return_inverse=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # a topic's last breakpoint has no segment
        slope = np.where(last, 0.0, (np.r_[los[1:], 0.0] - his) / (np.r_[xs[1:], 1.0] - xs))
    change = slope - np.where(first, 0.0, np.r_[0.0, slope[:-1]])  # a topic's slope from here on
    total_slope = np.cumsum(np.bincount(at, weights=change, minlength=len(grid)))
    jump = np.bincount(at, weights=his - los, minlength=len(grid))
    low = los[first].sum() + np.r_[0.0, np.cumsum(jump[:-1] + total_slope[:-1] * np.diff(grid))]
    y = np.column_stack([low, low + jump]).ravel() / int(first.sum())  # clipped below: float noise
    return pd.DataFrame({"run": run, "qid": "all", "x": np.repeat(grid, 2), "y": np.clip(y, 0.0, 1.0)})


def roc_auc(curve: pd.DataFrame) -> pd.DataFrame:
    """Trapezoid area under each (run, qid) curve of `roc_curve`: columns run, qid, auc."""
    c = curve[["run", "qid", "x", "y"]]
    same = (c["run"] == c["run"].shift()) & (c["qid"] == c["qid"].shift())
    seg = ((c["x"] - c["x"].shift()) * (c["y"] + c["y"].shift()) / 2).where(same, 0.0)
    return seg.groupby([c["run"], c["qid"]], sort=False).sum().rename("auc").reset_index()
