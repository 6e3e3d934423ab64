"""`python -m core judges REFERENCE JUDGE [JUDGE ...] --run RUN [--run RUN ...]`: many judges (human or LLM qrels
files) against a reference qrels file, on files, without a store (core/judges/report.py; docs/cli.md#judges lists
the JSON's keys). Judges are named by file name, runs by run tag as `compare` names them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.errors import EvalError


def add_arguments(parser) -> None:
    parser.add_argument("reference", metavar="REFERENCE", help="the reference qrels file (e.g. NIST's)")
    parser.add_argument("judges", metavar="JUDGE", nargs="+", help="one qrels file per judge (named by file name)")
    parser.add_argument("--run", dest="runs", action="append", metavar="RUN", required=True,
                        help="a run file (repeat for several runs)")
    parser.add_argument("-m", "--measure", default="nDCG@10", metavar="MEASURE", help="measure for the system scores (default: nDCG@10)")
    parser.add_argument("-l", dest="rel_level", type=int, default=1, metavar="LEVEL",
                        help="relevance level: binary kappa and the measure count grade >= LEVEL as relevant (default 1)")
    parser.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="holm",
                        help="multiple-testing correction over all judge x run shifts (default: holm)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default: 2000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def read_inputs(reference: str, judge_paths: list[str], run_paths: list[str]):
    """(reference table, {judge name: table}, {run name: table}, warnings), parsed with core.formats, two files
    at a time (much of a parse runs in pyarrow without the GIL). The first bad file in argument order is the
    error reported, as if they were read one by one."""
    from concurrent.futures import ThreadPoolExecutor

    from core.cli.compare import name_runs
    from core.formats import read_qrels, read_run

    missing = [p for p in [reference, *judge_paths, *run_paths] if not Path(p).is_file()]
    if missing:
        raise EvalError(f"{missing[0]}: no such file. Check the path.")
    jobs = [(read_qrels, p) for p in [reference, *judge_paths]] + [(read_run, p) for p in run_paths]
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(fn, p, filename=Path(p).name) for fn, p in jobs]
        parsed = [f.result() for f in futures]
    ref, qrels, runs = parsed[0], parsed[1:len(judge_paths) + 1], parsed[len(judge_paths) + 1:]
    files = [Path(p).name for p in judge_paths]
    judges = {(n if files.count(n) == 1 else str(p)): q.table for p, n, q in zip(judge_paths, files, qrels)}
    names = name_runs([r.tag for r in runs], [str(p) for p in run_paths])
    warnings = [w for q in parsed for w in q.warnings]
    return ref.table, judges, {n: r.table for n, r in zip(names, runs)}, warnings


def run(args) -> int:
    from core.judges.report import judges_frames

    if len(set(map(str, args.judges))) < len(args.judges):
        raise EvalError("A judge file is given twice. Give each judge's qrels file once.")
    ref, judges, runs, warnings = read_inputs(args.reference, args.judges, args.runs)
    report = judges_frames(ref, judges, runs, measure=args.measure, rel_level=args.rel_level,
                           reference_name=Path(args.reference).name, correction=args.correction,
                           alpha=args.alpha, n_resamples=args.resamples, seed=args.seed)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=1))
    else:
        sys.stdout.write(format_text(report))
    return 0


def _f(v, digits=4) -> str:
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def format_text(rep) -> str:
    cols = ["judge", "cohen_kappa", "binary_kappa", "n_common", "only_reference", "only_judge", "over_rate",
            "under_rate", "kendall_tau", "tau_ap", "largest_rank_change", "largest_shift", "n_significant"]
    t = rep.table[cols].rename(columns={"cohen_kappa": "kappa", "binary_kappa": f"kappa(>={rep.rel_level})",
                                        "only_reference": "only_ref", "largest_rank_change": "max_rank_change",
                                        "n_significant": "n_sig"})
    lines = [f"Judges against {rep.reference}: {rep.measure}, relevant = grade >= {rep.rel_level}, "
             f"{len(rep.runs)} run(s); shifts significant after {rep.correction} at alpha {rep.alpha}", "",
             t.to_string(index=False, float_format=lambda v: f"{v:.4f}"), "",
             f"Scores under {rep.reference} and their bounds (unjudged documents counted non-relevant / relevant "
             f"at grade {rep.top_grade}):"]
    b = rep.bounds.set_index("run")
    for run in rep.runs:
        lines.append(f"  {run:<30} {_f(rep.reference_scores[run])}   bounds "
                     f"{_f(b.loc[run, 'unjudged_nonrelevant'])} .. {_f(b.loc[run, 'unjudged_relevant'])}")
    lines.append(f"Pairs of runs whose order could flip within the bounds: {len(rep.flips)}")
    lines += [f"  {a} > {b}" for a, b in zip(rep.flips["a"], rep.flips["b"])][:50]
    return "\n".join(lines) + "\n"
