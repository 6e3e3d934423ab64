"""Stage 2, the per-topic measure kernel: `Rankings` -> `EvalResult`. A pure function of its arguments (no
store, no files, no DuckDB): every measure is a vectorised aggregate over the judged rows (core/measures/*)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from core.measures import EvalOptions, Measure, parse_measures
from core.measures.context import Data, closed_up
from core.engine.finish import missing_topics, no_topic, skipped, summarise
from core.engine.types import EvalResult, Rankings


__all__ = ["evaluate_rankings", "by_ranking", "tiled", "repeated"]


def by_ranking(g: np.ndarray, rank: np.ndarray, stable: bool = False) -> np.ndarray | slice:
    """The order that sorts rows by (ranking, rank): a no-op slice when they already are (the usual case), else
    a sort of one int64 key. A ranking's ranks do not repeat, so numpy's unstable sort (SIMD, 0.05 s against the
    stable sort's 0.11 s for 2.26M rows of benchmarks' robust shape) gives the stable order; keys that do repeat
    are sorted again stably. Plain equivalent: `stable=True`; tests/engine/test_stage2_summary.py compares the two."""
    if len(g) < 2:
        return slice(None)
    step = np.diff(g)
    if np.all((step > 0) | ((step == 0) & (rank[1:] > rank[:-1]))):
        return slice(None)
    key = g.astype(np.int64) * (int(rank.max()) + 1) + rank
    if stable:
        return np.argsort(key, kind="stable")
    order = np.argsort(key)
    ordered = key[order]
    return order if np.all(ordered[1:] > ordered[:-1]) else np.argsort(key, kind="stable")


def _cut(rk: Rankings, options: EvalOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(num_ret, g, rank, rel) after -M (cut each ranking at depth) and -J (keep judged documents only)."""
    num_ret, g, rank, rel = rk.num_ret, rk.g, rk.rank, rk.rel
    if options.max_depth:
        keep = rank <= int(options.max_depth)
        num_ret, g, rank, rel = np.minimum(num_ret, int(options.max_depth)), g[keep], rank[keep], rel[keep]
    if options.judged_only:
        order = by_ranking(g, rank)
        num_ret, g, rank, rel = closed_up(g[order], rel[order], len(rk.groups))
    return num_ret, g, rank, rel


def _level_matrix(levels: pd.DataFrame, qids) -> np.ndarray:
    width = int(levels["rel"].max()) + 1 if len(levels) else 1
    index = pd.Index(pd.unique(levels["qid"]))
    mat = np.zeros((len(index) + 1, width), dtype=np.int64)          # last row: topic without judgments
    if len(levels):
        mat[index.get_indexer(levels["qid"]), levels["rel"].to_numpy(np.int64)] = levels["n"].to_numpy(np.int64)
    rows = index.get_indexer(pd.Index(qids)) if len(qids) else np.zeros(0, dtype=np.int64)
    rows[rows < 0] = len(index)
    return mat[rows]


def ordered_groups(rk: Rankings, options: EvalOptions):
    """(groups, order, inverse, missing, warnings): the rankings plus those -c adds for the qrels topics a
    run lacks, sorted by (run, qid), with `order` (new row -> old) and `inverse` (old row -> new); the topics
    each run lacks; the warnings that they were skipped (without -c) and that a run shares no topic with the
    qrels."""
    missing = missing_topics(rk.groups, rk.runs, rk.topics)
    groups, warnings = rk.groups, []
    if not options.complete:
        warnings = [skipped(r, miss) for r, miss in missing.items()]
    elif missing:
        extra = [pd.DataFrame({"run": r, "qid": miss}) for r, miss in missing.items()]
        groups = pd.concat([groups] + extra, ignore_index=True)
    order = groups.sort_values(["run", "qid"], kind="stable").index.to_numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    groups = groups.iloc[order].reset_index(drop=True)
    present = set(groups["run"].unique())       # set(groups["run"]) would iterate the Arrow column value by value
    warnings += [no_topic(r) for r in rk.runs if r not in present]
    return groups, order, inverse, missing, warnings


def evaluate_rankings(rk: Rankings, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """Every measure of `measures` (names or Measures) on every ranking of `rk`, with trec_eval's options."""
    ms = parse_measures(measures, compat=options.compat)
    num_ret, g, rank, rel = _cut(rk, options)
    groups, order, inverse, missing, warnings = ordered_groups(rk, options)
    num_ret = np.r_[num_ret, np.zeros(len(groups) - len(num_ret), dtype=np.int64)]   # -c's added rankings
    g_new = inverse[g]
    perm = by_ranking(g_new, rank)
    data = Data(num_ret[order], _level_matrix(rk.levels, groups["qid"]), g_new[perm], rank[perm], rel[perm], options)
    return _assemble(groups, data, ms, options, rk.runs, missing, warnings)


def _values(data: Data, m: Measure, options: EvalOptions):
    level = m.get("rel") if m.family.rel_param and m.get("rel") is not None else options.rel_level
    return m.family.compute(data.ctx(level), m)


def _assemble(groups, data, ms, options, runs, missing, warnings) -> EvalResult:
    numeric = [m for m in ms if m.family.agg != "text"]
    texts = [m for m in ms if m.family.agg == "text"]
    Q = len(groups)
    run_col, qid_col = groups["run"].to_numpy(object), groups["qid"].to_numpy(object)
    vals = [np.asarray(_values(data, m, options), dtype=np.float64) for m in numeric]
    per_query = pd.DataFrame({
        "run": tiled(run_col, len(numeric)), "qid": tiled(qid_col, len(numeric)),
        "measure": repeated([m.name for m in numeric], Q),
        "value": np.concatenate(vals) if vals else np.zeros(0)})
    text = pd.DataFrame({
        "run": np.tile(run_col, len(texts)), "qid": np.tile(qid_col, len(texts)),
        "measure": np.repeat(np.array([m.name for m in texts], dtype=object), Q),
        "text": np.concatenate([_values(data, m, options) for m in texts]) if texts else np.zeros(0, object)})
    summary = summarise(run_col, numeric, vals)
    num_q = groups.groupby("run", sort=False).size().to_dict()
    return EvalResult(per_query, summary, missing, warnings, text, num_q, list(ms),
                      [r for r in runs if r in num_q])


_TEXT = pd.Series(["x"]).dtype      # the dtype pandas infers for a column of str: "str", Arrow-backed, in pandas 3
_ARROW_TEXT = isinstance(_TEXT, pd.StringDtype) and _TEXT.storage == "pyarrow"


def tiled(values: np.ndarray, times: int):
    """`np.tile(values, times)` as a frame column. A text column goes to Arrow once and is repeated as the chunks of
    one chunked array, which pandas wraps as it is. Plain equivalent: the np.tile of the object array, which pandas
    converts to Arrow value by value (0.2 s per column at 50 runs x 5,000 topics x 6 measures); tests/test_stage2_
    summary.py compares the two. Values that are not all text, missing values, an empty column or a pandas without
    Arrow strings take the plain way."""
    if not _ARROW_TEXT or times == 0 or len(values) == 0:
        return np.tile(values, times)
    try:
        one = pa.array(values, type=pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return np.tile(values, times)
    if one.null_count:                  # pandas infers another dtype for missing values: leave that to it
        return np.tile(values, times)
    return pd.Series(pa.chunked_array([one] * times, type=pa.large_string()), dtype=_TEXT)


def repeated(names: list[str], count: int):
    """`np.repeat(names, count)` as a text column: one Arrow chunk per name (see `tiled`)."""
    if not _ARROW_TEXT or not names or count == 0:
        return np.repeat(np.array(names, dtype=object), count)
    zeros = pa.array(np.zeros(count, dtype=np.int32))
    chunks = [pa.array([str(n)], type=pa.large_string()).take(zeros) for n in names]
    return pd.Series(pa.chunked_array(chunks, type=pa.large_string()), dtype=_TEXT)


