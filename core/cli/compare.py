"""`python -m core compare QRELS RUN [RUN ...] --baseline RUN -m MEASURE ...`

Evaluates the runs with the measures engine, then compares each with the baseline (core.compare).
A run is named by its run tag, or by its file name when two runs share a tag. --baseline accepts
either that name or the run's file name/path as given on the command line.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from core.errors import EvalError

FORMATS = ("text", "csv", "json", "latex")
DEFAULT_MEASURES = ["map", "P_10", "ndcg_cut_10"]


def add_arguments(parser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="qrels file (TREC format)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run files (TREC format, gzip is fine)")
    parser.add_argument("--baseline", "-b", required=True, metavar="RUN",
                        help="the baseline: a run tag, or one of the RUN file names")
    parser.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                        help="measure to compare, e.g. AP, nDCG@10, P_10 (repeat; default: map, P_10, ndcg_cut_10)")
    parser.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap"), default="t",
                        help="paired significance test (default: t)")
    parser.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                        help="multiple-testing correction over all runs x measures (default: none)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("-c", dest="complete", action="store_true",
                        help="topics in the qrels but missing from a run count as 0 (trec_eval -c); "
                             "otherwise they are skipped")
    parser.add_argument("-l", dest="rel_level", type=int, default=1, help="relevance level (trec_eval -l)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="permutations / bootstrap resamples (default: 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for resampling (default: 0)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")


def _table(parsed, columns=("qid", "docno", "score")) -> pd.DataFrame:
    """A parsed run's (or, with columns qid/docno/rel, qrels') table as a DataFrame."""
    table = parsed.table
    df = table.to_pandas() if hasattr(table, "to_pandas") else table.df()
    return df[list(columns)]


def name_runs(tags: list[str | None], paths: list[str]) -> list[str]:
    """Run tag, or the file name when the tag is missing or shared with another run."""
    files = [Path(p).name for p in paths]
    names = [t or f for t, f in zip(tags, files)]
    clash = {n for n in names if names.count(n) > 1}
    names = [f if n in clash else n for n, f in zip(names, files)]
    clash = {n for n in names if names.count(n) > 1}  # same file name in two folders: use the path
    return [str(p) if n in clash else n for n, p in zip(names, paths)]


def _baseline(name: str, names: list[str], paths: list[str]) -> str:
    if name in names:
        return name
    for run_name, path in zip(names, paths):
        if name in (path, Path(path).name, str(Path(path).resolve())):
            return run_name
    raise EvalError(f"The baseline '{name}' is not one of the runs. Pass a run tag or file name: "
                    f"{', '.join(names)}.")


def evaluate_for_compare(qrels_path, run_paths, measures, options):
    """Parse the files once, name the runs, evaluate; -> (per_query, names, qrels topics, warnings)."""
    from core.evaluate import evaluate_frames
    from core.formats import read_qrels, read_run
    qrels = read_qrels(qrels_path, filename=Path(str(qrels_path)).name)
    parsed = [read_run(p, filename=Path(str(p)).name) for p in run_paths]
    names = name_runs([p.tag for p in parsed], [str(p) for p in run_paths])
    run_df = pd.concat([_table(p).assign(run=n) for p, n in zip(parsed, names)], ignore_index=True)
    qrels_df = _table(qrels, ("qid", "docno", "rel"))
    result = evaluate_frames(qrels_df, run_df, measures, options)
    warnings = list(qrels.warnings) + [w for p in parsed for w in p.warnings] + list(result.warnings)
    return result.per_query, names, sorted(qrels_df["qid"].astype(str).unique()), warnings


def run(args) -> int:
    from core.compare import compare
    from core.evaluate import EvalOptions
    measures = args.measures or DEFAULT_MEASURES
    options = EvalOptions(rel_level=args.rel_level, complete=args.complete)
    per_query, names, qrels_topics, warnings = evaluate_for_compare(args.qrels, args.runs, measures, options)
    baseline = _baseline(args.baseline, names, [str(p) for p in args.runs])
    comparison = compare(per_query, baseline=baseline, measures=measures, test=args.test,
                         correction=args.correction, alpha=args.alpha,
                         missing="zero" if args.complete else "skip",
                         all_qids=qrels_topics if args.complete else None,
                         n_resamples=args.resamples, seed=args.seed)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(comparison.to_records(), indent=1))
    elif args.format == "csv":
        sys.stdout.write(comparison.to_csv())
    elif args.format == "latex":
        sys.stdout.write(comparison.to_latex())
    else:
        sys.stdout.write(comparison.to_text())
    return 0
