"""Evaluation against relevance qrels (the kind `relevance`): this module wires each kind of source to stage
1 and stage 2 (docs/architecture.md): files (`evaluate_relevance_files`, what
`core.engine.evaluate.evaluate_files` calls for this kind), DataFrames (`evaluate_frames`), parsed files
(`evaluate_parsed`) and DuckDB tables (`evaluate`).
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from core.db.scratch import scratch, temp_directory
from core.formats import is_empty_file
from core.engine.finish import run_names
from core.engine.kinds import Kind, register
from core.engine.stage2 import evaluate_rankings
from core.measures import EvalOptions
from core.engine.stage1 import ArrowRun, RunFile, Tables, rankings
from core.engine.stage1.files import checked, confirmed, read_first, size
from core.engine.stage1.tables import qrels_summary
from core.engine.types import EvalResult, merge

__all__ = ["evaluate", "evaluate_frames", "evaluate_relevance_files", "evaluate_parsed"]


def evaluate(con, run_table: str, qrels_table: str, measures, options: EvalOptions = EvalOptions(), *,
             run_name: str | None = None) -> EvalResult:
    """Evaluate every run in `run_table` (run, qid, docno, score[, rank]) against `qrels_table` (qid, docno, rel).
    With `run_name`, `run_table` holds a single run and needs no run column."""
    return evaluate_rankings(rankings(Tables(con, run_table, qrels_table, run_name), options), measures, options)


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
    with duckdb.connect() as con:
        con.register("_rb_run_src", run_df[["run", "qid", "docno", "score"]])
        con.register("_rb_qrels_src", qrels_df)
        con.execute("CREATE TEMP TABLE rb_run AS SELECT * FROM _rb_run_src")
        con.execute("CREATE TEMP TABLE rb_qrels AS SELECT * FROM _rb_qrels_src")
        return evaluate(con, "rb_run", "rb_qrels", measures, options, run_name="run" if single else None)


def evaluate_relevance_files(qrels_path, run_paths, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """Relevance qrels and run files: parse the files, then evaluate each run (in the order given). Run names come from the run's
    tag (the 6th column, of the last line when there are several, as trec_eval's runid), else the file name; a name
    already taken gets the file name added."""
    run_paths = [run_paths] if isinstance(run_paths, (str, Path)) else list(run_paths)
    head = run_paths[0] if run_paths and not (options.complete and is_empty_file(run_paths[0])) else None
    qrels, first, summary, confirm = read_first(qrels_path, head)
    with _qrels_scratch(qrels, max((size(p) for p in run_paths), default=0)) as con:
        warnings, tags, parts = list(qrels.warnings), [], []
        if summary is None and len(run_paths) > 1:
            summary = qrels_summary(con, "rb_qrels")
        for path in run_paths:
            try:
                rk = rankings(RunFile(path, con, "rb_qrels", first, summary=summary), options)
            except BaseException:
                confirm()                                 # a run its duplicate check refuses: that error first
                raise
            first = None                                  # the parsed first run: freed once ranked and checked
            tags.append(rk.runs[0])
            name = run_names(tags, run_paths)[-1]
            warnings += rk.warnings
            parts.append(confirmed(confirm, lambda: evaluate_rankings(rk.named(name), measures, options)))
            confirm = checked
        result = merge(parts)
        result.warnings = warnings + result.warnings
        return result


def evaluate_parsed(qrels, runs, names, measures, options: EvalOptions = EvalOptions()) -> EvalResult:
    """Parsed qrels and runs (core.formats.read_qrels / read_run), run i evaluated under names[i], each ranked in
    Arrow on one scratch connection (as evaluate_files does). The parsers' warnings are the caller's to report."""
    with _qrels_scratch(qrels, max((r.table.nbytes for r in runs), default=0)) as con:
        summary = qrels_summary(con, "rb_qrels")
        return merge([evaluate_rankings(rankings(ArrowRun(r.table, "rb_qrels", name, con, summary), options), measures,
                                        options) for r, name in zip(runs, names)])


_QRELS = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("rel", pa.int32())])


@contextmanager
def _qrels_scratch(qrels, run_bytes: int):
    """A scratch DuckDB connection holding the parsed qrels as table rb_qrels (qid, docno, rel)."""
    with temp_directory() as tmp:
        con = scratch(tmp, run_bytes)
        try:
            # a view of the Arrow table, not a copy into DuckDB (7.3M judgments: 0.27 s)
            con.register("rb_qrels", qrels.table.select(["qid", "docno", "rel"]).cast(_QRELS))
            yield con
        finally:
            con.close()


register(Kind("relevance", evaluate_relevance_files))
