"""The evaluation engine: (runs, qrels, measures, options) -> per-query long table plus the summary.

Stage 1 (DuckDB SQL, core/sql/judged_rows.sql): rank every ranking once as trec_eval does (score desc,
docno desc), cut at -M, join the qrels and keep only the judged rows (~6% of a run) plus num_ret.
Stage 2 (numpy, core/measures/*): every measure is a vectorised aggregate over those columns.
"""
from __future__ import annotations

import os
import tempfile
from importlib import resources
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from core.errors import EvalError
from core.measures import EvalOptions, Measure, parse_measures
from core.measures.context import Data
from core.sqltext import ident

MIN_GEO_MEAN = 1e-5
NO_DEPTH = 2 ** 62
CANONICAL_RANK = "row_number() OVER (PARTITION BY {partition} ORDER BY score DESC, docno DESC)"

__all__ = ["EvalOptions", "EvalResult", "Rankings", "evaluate", "evaluate_rankings", "evaluate_frames", "evaluate_files", "evaluate_stored", "summarise"]


@dataclass
class Rankings:
    """Stage 1's output: one row per ranking of a qrels topic, and its judged retrieved documents."""
    groups: pd.DataFrame                         # run, qid: the rankings (topics of the qrels that the run has)
    num_ret: np.ndarray                          # documents retrieved per ranking
    g: np.ndarray                                # judged retrieved documents: ranking index,
    rank: np.ndarray                             #   canonical trec_eval rank,
    rel: np.ndarray                              #   grade (any, negative included)
    levels: pd.DataFrame                         # qid, rel, n: judged documents per grade >= 0 (qrels_levels.sql)
    runs: list[str]                              # every run asked for, in order
    topics: list[str]                            # the qrels topics, sorted


@dataclass
class EvalResult:
    per_query: pd.DataFrame                      # run, qid, measure, value
    summary: pd.DataFrame                        # run, measure, value
    missing_topics: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    text: pd.DataFrame | None = None             # run, qid, measure, text (string measures: relstring)
    num_q: dict[str, int] = field(default_factory=dict)
    measures: list[Measure] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def sql(name: str, **identifiers) -> str:
    # importlib.resources, not Path(__file__): core also works from a zip or a wheel (e.g. shipped to Dask workers)
    text = resources.files("core").joinpath("sql", f"{name}.sql").read_text()
    return text.format(**identifiers)


def _columns(con, quoted_table: str) -> list[str]:
    return [d[0] for d in con.execute("SELECT * FROM " + quoted_table + " LIMIT 0").description]


def load(con, run_table: str, qrels_table: str, options: EvalOptions, run_name: str | None = None):
    """Run the SQL stage over a table of runs (or, with run_name, a table holding one run and no run column)."""
    rt, qt = ident(run_table), ident(qrels_table)        # quoted: only these names enter the SQL text
    cols = _columns(con, rt)
    for need in ("qid", "docno") + (() if run_name is not None else ("run",)):
        if need not in cols:
            raise EvalError(f"Run table {run_table} has no column {need!r}; it needs run, qid, docno, score.")
    partition = "qid" if run_name is not None else "run, qid"
    rank_expr = "rank" if "rank" in cols else CANONICAL_RANK.format(partition=partition)
    depth = int(options.max_depth) if options.max_depth else NO_DEPTH
    params = {"depth": depth} | ({"run": run_name} if run_name is not None else {})
    query = sql("judged_rows", rank_expr=rank_expr, run_table=rt, qrels_table=qt, partition=partition,
                run_expr="$run" if run_name is not None else "run")
    res = con.execute(query, params).fetchnumpy()
    if run_name is not None:
        runs = [run_name]
    else:
        runs = [r[0] for r in con.execute("SELECT DISTINCT run FROM " + rt + " ORDER BY run").fetchall()]
    topics = [r[0] for r in con.execute("SELECT DISTINCT qid FROM " + qt + " ORDER BY qid").fetchall()]
    levels = con.execute(sql("qrels_levels", qrels_table=qt)).fetchdf()

    run, qid = res["run"].astype(object), res["qid"].astype(object)
    rank = np.ma.filled(np.ma.asarray(res["rank"]).astype(np.int64), 0)
    relm = res["rel"]
    judged = ~np.ma.getmaskarray(relm)
    rel = np.ma.filled(relm.astype(np.int64), 0) if np.ma.isMaskedArray(relm) else np.asarray(relm, np.int64)
    first = np.r_[True, (run[1:] != run[:-1]) | (qid[1:] != qid[:-1])] if len(run) else np.zeros(0, bool)
    g = np.cumsum(first) - 1
    groups = pd.DataFrame({"run": run[first], "qid": qid[first]})
    num_ret = np.asarray(res["n"], dtype=np.int64)[first]
    return Rankings(groups, num_ret, g[judged], rank[judged], rel[judged], levels, runs, topics)


def by_ranking(g: np.ndarray, rank: np.ndarray) -> np.ndarray | slice:
    """The order that sorts rows by (ranking, rank): a no-op slice when they already are (the usual case), else
    a stable sort of one int64 key (timsort, quick on the nearly sorted input that stage 1 returns)."""
    if len(g) < 2:
        return slice(None)
    step = np.diff(g)
    if np.all((step > 0) | ((step == 0) & (rank[1:] > rank[:-1]))):
        return slice(None)
    return np.argsort(g.astype(np.int64) * (int(rank.max()) + 1) + rank, kind="stable")


def _cut(rk: "Rankings", options: EvalOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(num_ret, g, rank, rel) after -M (cut each ranking at depth) and -J (keep judged documents only)."""
    num_ret, g, rank, rel = rk.num_ret, rk.g, rk.rank, rk.rel
    if options.max_depth:
        keep = rank <= int(options.max_depth)
        num_ret, g, rank, rel = np.minimum(num_ret, int(options.max_depth)), g[keep], rank[keep], rel[keep]
    if options.judged_only:
        order = by_ranking(g, rank)
        g, rel = g[order], rel[order]
        keep = rel >= 0
        g, rel = g[keep], rel[keep]
        num_ret = np.bincount(g, minlength=len(rk.groups)).astype(np.int64)
        starts = np.r_[0, np.cumsum(num_ret)[:-1]]
        rank = np.arange(len(g)) - starts[g] + 1
    return num_ret, g, rank, rel


def _level_matrix(levels: pd.DataFrame, qids) -> np.ndarray:
    width = int(levels["rel"].max()) + 1 if len(levels) else 1
    index = {q: i for i, q in enumerate(pd.unique(levels["qid"]))}
    mat = np.zeros((len(index) + 1, width), dtype=np.int64)          # last row: topic without judgments
    if len(levels):
        mat[levels["qid"].map(index).to_numpy(), levels["rel"].to_numpy(np.int64)] = levels["n"].to_numpy(np.int64)
    rows = np.array([index.get(q, len(index)) for q in qids], dtype=np.int64)
    return mat[rows]


def evaluate(con, run_table: str, qrels_table: str, measures, options: EvalOptions = EvalOptions(), *,
             run_name: str | None = None) -> EvalResult:
    """Evaluate every run in `run_table` (run, qid, docno, score[, rank]) against `qrels_table` (qid, docno, rel).
    With `run_name`, `run_table` holds a single run and needs no run column."""
    return evaluate_rankings(load(con, run_table, qrels_table, options, run_name), measures, options)


def evaluate_rankings(rk: "Rankings", measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """Stage 2 over stage 1's output (from SQL, from Arrow tables, or from the store's judged rows)."""
    ms = parse_measures(measures, compat=options.compat)
    groups, levels, runs, topics = rk.groups, rk.levels, rk.runs, rk.topics
    num_ret, g, rank, rel = _cut(rk, options)
    warnings: list[str] = []
    missing: dict[str, list[str]] = {}
    have = groups.groupby("run", sort=False)["qid"].agg(set).to_dict() if len(groups) else {}
    extra = []
    for r in runs:
        miss = [q for q in topics if q not in have.get(r, set())]
        if miss:
            missing[r] = miss
            if options.complete:
                extra.append(pd.DataFrame({"run": r, "qid": miss}))
            else:
                shown = ", ".join(miss[:20]) + (f" ...and {len(miss) - 20} more" if len(miss) > 20 else "")
                warnings.append(f"{r}: {len(miss)} qrels topic(s) not in the run were skipped "
                                f"(use -c to count them as zero): {shown}")
    if extra:
        groups = pd.concat([groups] + extra, ignore_index=True)
        num_ret = np.r_[num_ret, np.zeros(len(groups) - len(num_ret), dtype=np.int64)]
    order = groups.sort_values(["run", "qid"], kind="stable").index.to_numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    groups = groups.iloc[order].reset_index(drop=True)
    g_new = inverse[g]
    perm = by_ranking(g_new, rank)
    data = Data(num_ret[order], _level_matrix(levels, groups["qid"]), g_new[perm], rank[perm], rel[perm], options)
    for r in runs:
        if r not in set(groups["run"]):
            warnings.append(f"{r}: no topic in common with the qrels; nothing to evaluate.")
    return _assemble(groups, data, ms, options, runs, missing, warnings)


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
        "run": np.tile(run_col, len(numeric)), "qid": np.tile(qid_col, len(numeric)),
        "measure": np.repeat(np.array([m.name for m in numeric], dtype=object), Q),
        "value": np.concatenate(vals) if vals else np.zeros(0)})
    text = pd.DataFrame({
        "run": np.tile(run_col, len(texts)), "qid": np.tile(qid_col, len(texts)),
        "measure": np.repeat(np.array([m.name for m in texts], dtype=object), Q),
        "text": np.concatenate([_values(data, m, options) for m in texts]) if texts else np.zeros(0, object)})
    summary = summarise(run_col, numeric, vals)
    num_q = groups.groupby("run", sort=False).size().to_dict()
    return EvalResult(per_query, summary, missing, warnings, text, num_q, list(ms),
                      [r for r in runs if r in num_q])


def summarise(run_col, ms, vals) -> pd.DataFrame:
    """trec_eval's "all": mean over evaluated topics; sums for counts; geometric mean (floored) for gm_*."""
    run_names, ridx = np.unique(run_col, return_inverse=True) if len(run_col) else (np.array([], object), np.zeros(0, int))
    n = np.bincount(ridx, minlength=len(run_names)).astype(np.float64)
    rows = []
    for m, v in zip(ms, vals):
        if m.family.agg == "sum":
            s = np.bincount(ridx, weights=v, minlength=len(run_names))
        elif m.family.agg == "gm":
            s = np.exp(np.bincount(ridx, weights=np.log(np.maximum(v, MIN_GEO_MEAN)), minlength=len(run_names)) / n)
        else:
            s = np.bincount(ridx, weights=v, minlength=len(run_names)) / n
        rows.append(pd.DataFrame({"run": run_names, "measure": m.name, "value": s}))
    if not rows:
        return pd.DataFrame({"run": [], "measure": [], "value": []})
    return pd.concat(rows, ignore_index=True)


def evaluate_frames(qrels_df: pd.DataFrame, run_df: pd.DataFrame, measures,
                    options: EvalOptions = EvalOptions()) -> EvalResult:
    """DataFrames in (qrels: qid, docno, rel; run: [run,] qid, docno, score), for tests and notebooks.
    A `rank` column in `run_df` is ignored, as trec_eval ignores a file's rank column: the ranking is
    always score descending, then docno descending. (Only the store's precomputed canonical rank is trusted.)"""
    run_df = run_df.copy()
    single = "run" not in run_df.columns      # one run, named "run" (so an empty frame still names its run)
    if single:
        run_df["run"] = "run"
    run_df = run_df.astype({"run": str, "qid": str, "docno": str, "score": float})
    qrels_df = qrels_df[["qid", "docno", "rel"]].astype({"qid": str, "docno": str, "rel": "int64"})
    con = duckdb.connect()
    try:
        con.register("_rb_run_src", run_df[["run", "qid", "docno", "score"]])
        con.register("_rb_qrels_src", qrels_df)
        con.execute("CREATE TEMP TABLE rb_run AS SELECT * FROM _rb_run_src")
        con.execute("CREATE TEMP TABLE rb_qrels AS SELECT * FROM _rb_qrels_src")
        return evaluate(con, "rb_run", "rb_qrels", measures, options, run_name="run" if single else None)
    finally:
        con.close()


def evaluate_stored(store, collection, run_ids, measures, qrels_id=None, options: EvalOptions = EvalOptions()):
    """Stored runs, with the per-query cache in the `results` table (implemented in core.results)."""
    from core.results import evaluate_stored as _stored
    return _stored(store, collection, run_ids, measures, qrels_id=qrels_id, options=options)


def evaluate_files(qrels_path, run_paths, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """The CLI path: parse the files with core.formats, then evaluate each run (in the order given).
    Run names come from the run's tag (the 6th column), else the file name."""
    from core.empty_run import empty_rankings, is_empty_file
    from core.formats import read_run
    from core.judged import Repeated, arrow_rankings

    run_paths = [run_paths] if isinstance(run_paths, (str, Path)) else list(run_paths)
    empty = {i for i, p in enumerate(run_paths) if options.complete and is_empty_file(p)}
    qrels, first = _read_first(qrels_path, [] if 0 in empty else run_paths)
    tmp = tempfile.TemporaryDirectory(prefix="rankboard-")
    con = file_connection(tmp.name, max((_size(p) for p in run_paths), default=0))
    try:
        con.register("_rb_qrels_src", qrels.table)
        con.execute("CREATE TEMP TABLE rb_qrels AS SELECT CAST(qid AS VARCHAR) AS qid, CAST(docno AS VARCHAR) AS docno,"
                    " CAST(rel AS INTEGER) AS rel FROM _rb_qrels_src")
        warnings, seen, parts = list(qrels.warnings), set(), []
        for i, path in enumerate(run_paths):
            if i in empty:                                    # -c: an empty run scores 0 on every qrels topic
                name = _unique(Path(str(path)).name, seen)
                parts.append(evaluate_rankings(empty_rankings(con, "rb_qrels", name), measures, options))
                continue
            rankings, streamed = None, False
            parsed = first.pop() if first else None             # the first run, read beside the qrels
            if parsed is None:
                pieces = _stream_pieces(con, path)                 # large files: piece by piece, or ...
                if pieces is not None:
                    rankings, parsed = pieces
                else:                                               # ... into a DuckDB table, or whole
                    parsed = _stream(con, path, "rb_run_stream")
                    streamed = parsed is not None
                    if not streamed:
                        parsed = read_run(path, filename=Path(str(path)).name, check_duplicates=False)
            name = _unique(parsed.tag or Path(str(path)).name, seen, Path(str(path)).name)
            warnings += parsed.warnings
            if rankings is not None:
                rankings.groups["run"], rankings.runs = name, [name]
                parts.append(evaluate_rankings(rankings, measures, options))
            elif streamed:
                parts.append(evaluate(con, "rb_run_stream", "rb_qrels", measures, options, run_name=name))
                con.execute("DROP TABLE rb_run_stream").fetchall()
            else:
                try:
                    rankings = arrow_rankings(con, parsed.table, "rb_qrels", name, check_duplicates=parsed.unchecked)
                except Repeated:   # the checked read raises the parser's error naming the lines ...
                    checked = read_run(path, filename=Path(str(path)).name)
                    # ... unless the quick check could not decide (e.g. DuckDB ran out of memory): no repeat then
                    rankings = arrow_rankings(con, checked.table, "rb_qrels", name)
                parts.append(evaluate_rankings(rankings, measures, options))
            del parsed
        result = merge(parts)
        result.warnings = warnings + result.warnings
        return result
    finally:
        con.close()
        tmp.cleanup()


def _unique(name: str, seen: set, filename: str | None = None) -> str:
    if name in seen:
        name = f"{name} ({filename or name})"
    seen.add(name)
    return name


STREAM_BYTES = 256 << 20   # run files at least this big are read in chunks straight into DuckDB


def _read_first(qrels_path, run_paths) -> tuple:
    """The parsed qrels and, in a list, the first run when it is read whole (smaller than STREAM_BYTES), the
    two read at the same time: much of reading a file holds one core (reading and checking its bytes), so
    the other file's parse fits beside it. A problem in the qrels is still reported before one in the run."""
    from concurrent.futures import ThreadPoolExecutor

    from core.formats import read_qrels, read_run

    path = run_paths[0] if run_paths else None
    if path is None or not isinstance(path, (str, Path)) or _size(path) >= STREAM_BYTES:
        return read_qrels(qrels_path, filename=Path(str(qrels_path)).name), []
    with ThreadPoolExecutor(1) as pool:
        qrels_job = pool.submit(read_qrels, qrels_path, filename=Path(str(qrels_path)).name)
        try:
            run = read_run(path, filename=Path(str(path)).name, check_duplicates=False)
        except Exception:
            qrels_job.result()          # the qrels' own error first, as when they were read first
            raise
        return qrels_job.result(), [run]


def _stream(con, path, table: str):
    """A large, clean run file read chunk by chunk into DuckDB table `table` (so memory stays bounded: DuckDB
    spills); a ParsedRun with the tag and warnings (its table is None), or None to parse it with read_run."""
    from core.formats._fast import stream_run
    from core.formats.runs import _build

    if not isinstance(path, (str, Path)):
        return None
    try:
        if Path(path).stat().st_size < STREAM_BYTES:
            return None
    except OSError:
        return None
    tags = stream_run(path, con, table)
    return None if tags is None else _build(None, tags, None, {}, "trec")


def _stream_pieces(con, path):
    """(Rankings, ParsedRun without a table) of a large clean run file whose topics are contiguous, read a piece
    at a time (core.judged.stream_rankings); None for small files and when that does not apply."""
    from core.formats.runs import _build
    from core.judged import stream_rankings

    if _size(path) < STREAM_BYTES:
        return None
    got = stream_rankings(con, path, "rb_qrels")
    if got is None:
        return None
    rankings, tags = got
    return rankings, _build(None, tags, None, {}, "trec")


def _size(path) -> int:
    try:
        return Path(path).stat().st_size if isinstance(path, (str, Path)) else 0
    except OSError:
        return 0


def file_connection(temp_directory: str, run_bytes: int = 0):
    """An in-memory DuckDB connection for evaluating files: both cores, a memory limit, and a temp directory to
    spill to (RANKBOARD_THREADS / RANKBOARD_MEMORY_LIMIT override, as for the store). The limit is 3x the largest
    run file, between 500MB and 2GB: a 5M-line run (186MB) sorts in 558MB without spilling (at 450MB it spills),
    and a 50M-line run spills rather than pass 3GB in all."""
    limit = f"{min(max(3 * run_bytes, 500 << 20), 2 << 30) >> 20}MB"
    return duckdb.connect(config={"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
                                  "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", limit),
                                  "temp_directory": temp_directory, "preserve_insertion_order": False})


def merge(parts: list[EvalResult]) -> EvalResult:
    """Concatenate results of disjoint runs (same measures and options)."""
    if len(parts) == 1:
        return parts[0]
    return EvalResult(pd.concat([p.per_query for p in parts], ignore_index=True),
                      pd.concat([p.summary for p in parts], ignore_index=True),
                      {k: v for p in parts for k, v in p.missing_topics.items()},
                      [w for p in parts for w in p.warnings],
                      pd.concat([p.text for p in parts], ignore_index=True),
                      {k: v for p in parts for k, v in p.num_q.items()},
                      parts[0].measures, [r for p in parts for r in p.runs])
