"""`python -m core compare QRELS RUN [RUN ...] --baseline RUN ...` (or `--collection NAME [--stored RUN ...]`, or
`--scores FILE ...`: docs/cli.md#compare): the runs evaluated, then each compared with every baseline
(core.stats.baselines.report over core.stats.compare). A run is named by its run tag, or by its file name when two
runs share a tag; --baseline takes that name or the run's file name or path as given."""
from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from core.cli import stored
from core.distributed.cluster import add_engine_arguments, dask_kwargs, use_dask
from core.errors import EvalError

OUTPUTS = {"text": lambda c: c.to_text(), "csv": lambda c: c.to_csv(),              # --format
           "json": lambda c: json.dumps(c.to_records(), indent=1) + "\n", "latex": lambda c: c.to_latex()}
PARSE_THREADS = 2       # files parsed at once (see evaluate_for_compare)
DEFAULT_MEASURES = ["map", "P_10", "ndcg_cut_10"]      # without -m, here and in check


def add_arguments(parser) -> None:
    parser.add_argument("qrels", metavar="QRELS", nargs="?",
                        help="qrels file (TREC format), or irds:ID: the qrels of an ir_datasets dataset")
    parser.add_argument("runs", metavar="RUN", nargs="*", help="run files (TREC format, gzip is fine)")
    stored.add_arguments(parser)
    parser.add_argument("--scores", nargs="+", metavar="FILE",
                        help="compare per-query score files instead of evaluating runs (trec_eval -q, ir_measures, "
                             "ranx, or a long CSV/Parquet of run, qid, measure, value; no qrels; default measures: "
                             "every measure of the files)")
    parser.add_argument("--baseline", "-b", required=True, metavar="RUN", action="append", dest="baselines",
                        help="a baseline: a run tag, or one of the RUN file names (repeat for several baselines; "
                             "every other run is tested against each)")
    parser.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                        help="measure to compare, e.g. AP, nDCG@10, P_10 (repeat; default: "
                             f"{', '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey",
                                           "randomization-all"), default="t",
                        help="significance test (default: t). tukey: Tukey's HSD on the two-way run x topic ANOVA "
                             "over all the runs given; randomization-all: the all-pairs randomisation test with the "
                             "max-statistic correction; both adjust over every pair of runs themselves")
    parser.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                        help="multiple-testing correction over all baselines x runs x measures (default: none); "
                             "with --ranks also over all pairs of runs for the letter groups (randomization with "
                             "holm or bonferroni: one max-statistic test over all pairs instead; see docs/statistics.md)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("-c", dest="complete", action="store_true",
                        help="topics in the qrels but missing from a run count as 0 (trec_eval -c); "
                             "otherwise they are skipped")
    parser.add_argument("-l", dest="rel_level", type=int, default=1, help="relevance level (trec_eval -l)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="permutations / bootstrap resamples (default: 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for resampling (default: 0)")
    parser.add_argument("--format", choices=tuple(OUTPUTS), default="text", help="output format (default: text)")
    parser.add_argument("--ranks", action="store_true",
                        help="add each run's rank, 95%% bootstrap rank interval (rank_low, rank_high) and letter "
                             "group (runs sharing a letter are not significantly different under --test/--correction)")
    parser.add_argument("--risk", choices=("urisk", "trisk"), default=None,
                        help="add URisk, TRisk (against the baseline) and GeoRisk (against all runs); this one is "
                             "shown first")
    parser.add_argument("--alpha-risk", type=float, default=1.0, metavar="A",
                        help="risk weight: a loss against the baseline counts 1 + A times (default: 1)")
    add_engine_arguments(parser)


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
    from core.engine.relevance import evaluate_parsed
    from core.formats import read_qrels, read_run
    if PARSE_THREADS > 1:   # the CSV parser and DuckDB's duplicate check release the GIL: 50 files of 50k lines
        with ThreadPoolExecutor(PARSE_THREADS) as pool:     # parse in ~0.6 s instead of ~0.9 s on 2 cores
            qrels = pool.submit(read_qrels, qrels_path, filename=Path(str(qrels_path)).name)
            parsed = list(pool.map(lambda p: read_run(p, filename=Path(str(p)).name), run_paths))
            qrels = qrels.result()
    else:                   # the plain equivalent, one file after the other (tests/cli/test_compare_cli_many.py)
        qrels = read_qrels(qrels_path, filename=Path(str(qrels_path)).name)
        parsed = [read_run(p, filename=Path(str(p)).name) for p in run_paths]
    names = name_runs([p.tag for p in parsed], [str(p) for p in run_paths])
    result = evaluate_parsed(qrels, parsed, names, measures, options)
    warnings = list(qrels.warnings) + [w for p in parsed for w in p.warnings] + list(result.warnings)
    topics = pc.unique(qrels.table["qid"].cast(pa.string())).to_pylist()
    return result.per_query, names, sorted(topics), warnings


def read_score_files(paths):
    """Per-query score files from any tool (core.formats.read_scores), without a store or qrels: ((run, qid, measure,
    value) of every file, {run: the path it came from} in order). A run given by two files (the same name) is an
    error that names both."""
    import pandas as pd

    from core.formats import read_scores
    frames, origin = [], {}
    for path in map(str, paths):
        parsed = read_scores(path, filename=Path(path).name)
        for run in parsed.runs:
            if run in origin:
                raise EvalError(f"Run '{run}' is in {Path(origin[run]).name} and in {parsed.file}. Give each run "
                                "in one file, or rename one of them (a trec_eval file is named by its runid line, else "
                                "by its file name).")
            origin[run] = path
        frames.append(parsed.frame)
    return pd.concat(frames, ignore_index=True), origin


def run(args) -> int:
    from core.stats.baselines import report
    from core.engine.evaluate import EvalOptions
    from core.stats.risk import check_alpha
    measures = args.measures or DEFAULT_MEASURES
    check_alpha(args.alpha_risk)                      # a bad --alpha-risk fails before the evaluation
    options = EvalOptions(rel_level=args.rel_level, complete=args.complete)
    paths = [str(p) for p in args.runs]
    if args.scores:
        if args.qrels or args.runs or args.collection:
            raise EvalError("--scores compares score files on their own: give no QRELS, RUN or --collection.")
        per_query, origin = read_score_files(args.scores)
        measures = args.measures or list(dict.fromkeys(per_query["measure"]))     # in the order they first appear
        qrels_topics, warnings = sorted(per_query["qid"].unique()), []
        names, paths = list(origin), list(origin.values())
    elif stored.check(args, [f for f in [args.qrels, *args.runs] if f]):
        if use_dask(args):
            raise EvalError("--engine dask reads files; compare stored runs without it.")
        result, qrels_topics = stored.evaluate(args, measures, options, with_topics=True)
        per_query, names, warnings, paths = result.per_query, list(result.runs), list(result.warnings), []
    elif use_dask(args):        # a Dask cluster (core.distributed.driver), runs named as compare names them
        from core.distributed.driver import run_distributed
        result, names, qrels_topics = run_distributed(args.qrels, args.runs, measures, options, name_runs=name_runs,
                                                      **dask_kwargs(args))
        per_query, warnings = result.per_query, result.warnings
    else:
        per_query, names, qrels_topics, warnings = evaluate_for_compare(args.qrels, args.runs, measures, options)
    baselines = [_baseline(b, names, paths) for b in args.baselines]
    comparison = report(per_query, baselines=baselines, measures=measures, test=args.test,
                        correction=args.correction, alpha=args.alpha,
                        missing="zero" if args.complete else "skip",
                        all_qids=qrels_topics if args.complete else None,
                        n_resamples=args.resamples, seed=args.seed, ranks=args.ranks, risk=args.risk,
                        alpha_risk=args.alpha_risk)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    sys.stdout.write(OUTPUTS[args.format](comparison))
    return 0
