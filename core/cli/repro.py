"""`python -m core repro QRELS --original RUN --reproduced RUN [--original-baseline RUN --reproduced-baseline RUN]
[-m MEASURE]... [--reproduced-qrels QRELS] [--format text|json]`: how well a run was reproduced (same topics) or
replicated (other topics, `--reproduced-qrels`), as repro_eval measures it (core.repro)."""
from __future__ import annotations

import sys

from core.repro.files import DEFAULT_MEASURES
from core.repro.ordering import DEPTH, RBO_P


def add_arguments(parser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="qrels file of the original runs (TREC format)")
    parser.add_argument("--original", required=True, metavar="RUN", help="the original run file")
    parser.add_argument("--reproduced", required=True, metavar="RUN", help="its reproduction (or replication)")
    parser.add_argument("--original-baseline", metavar="RUN", default=None,
                        help="the original run's baseline (with --reproduced-baseline: effect ratio and delta RI)")
    parser.add_argument("--reproduced-baseline", metavar="RUN", default=None, help="the reproduced baseline")
    parser.add_argument("--reproduced-qrels", metavar="QRELS", default=None,
                        help="replicability: the reproduced runs are on other topics, judged in this qrels file")
    parser.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                        help=f"measure (repeat; default: {', '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--rbo-p", type=float, default=RBO_P,
                        help=f"RBO's persistence p, between 0 and 1 (default: {RBO_P})")
    parser.add_argument("--depth", type=int, default=DEPTH,
                        help=f"documents per topic compared by KTU and RBO (default: {DEPTH})")
    parser.add_argument("-c", dest="complete", action="store_true",
                        help="topics in the qrels but missing from a run count as 0 (trec_eval -c)")
    parser.add_argument("-l", dest="rel_level", type=int, default=1, help="relevance level (trec_eval -l)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args) -> int:
    from core.engine import EvalOptions
    from core.repro.files import reproduce_files
    result, warnings = reproduce_files(
        args.qrels, args.original, args.reproduced, original_baseline=args.original_baseline,
        reproduced_baseline=args.reproduced_baseline, reproduced_qrels=args.reproduced_qrels,
        measures=args.measures, options=EvalOptions(rel_level=args.rel_level, complete=args.complete),
        rbo_p=args.rbo_p, depth=args.depth)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    sys.stdout.write(result.to_json() + "\n" if args.format == "json" else result.to_text())
    return 0
