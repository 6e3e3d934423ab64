"""`python -m core check QRELS NEW_RUN --against BASELINE_RUN [-m MEASURE]... [options]` (or `--collection NAME
--run NEW --against BASELINE` for stored runs): the regression gate for CI.

The runs are evaluated by the one entry point for files (core.engine.evaluate.evaluate_files), or through the
store's results cache (core.service.compare.check_stored); core.stats.gate gives each measure its verdict. The exit
status is 0 when every measure is OK, 1 when any FAILs, 2 on bad input (core.cli.main prints the error)."""
from __future__ import annotations

import sys
from pathlib import Path

from core.cli import stored
from core.cli.compare import DEFAULT_MEASURES
from core.errors import EvalError

OUTPUTS = {"text": lambda gate: gate.to_text(), "markdown": lambda gate: gate.to_markdown(),     # --format
           "json": lambda gate: gate.to_json() + "\n"}


def add_arguments(parser) -> None:
    parser.add_argument("qrels", metavar="QRELS", nargs="?",
                        help="qrels file (TREC format), or irds:ID: the qrels of an ir_datasets dataset")
    parser.add_argument("new", metavar="NEW_RUN", nargs="?", help="the new run file")
    parser.add_argument("--against", required=True, metavar="BASELINE_RUN",
                        help="the baseline: a run file (with --collection: a stored run's name or id)")
    parser.add_argument("--collection", metavar="NAME", default=None,
                        help="check runs stored in this collection (instead of QRELS and run files)")
    parser.add_argument("--run", metavar="NEW", default=None, help="with --collection: the new stored run")
    parser.add_argument("--assessor", metavar="NAME", default=None,
                        help="with --collection: the qrels set of this assessor (default: the collection's default)")
    parser.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                        help="measure to check (repeat; default: the --expect file's, else "
                             f"{', '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--test", choices=("t", "wilcoxon", "randomization"), default="t",
                        help="paired significance test (default: t)")
    parser.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"), default="holm",
                        help="multiple-testing correction over the measures (default: holm)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    parser.add_argument("--max-drop", dest="max_drop", action="append", default=[], metavar="MEASURE=DELTA",
                        help="a significant drop of MEASURE fails only when larger than DELTA (repeat; default 0)")
    parser.add_argument("--expect", metavar="FILE", default=None,
                        help="expected means: `measure: value` lines and a `tolerance: value` line (flat YAML); "
                             "a mean further from its value than the tolerance fails")
    parser.add_argument("--junit", metavar="FILE", default=None, help="also write a JUnit XML report to FILE")
    parser.add_argument("--format", choices=tuple(OUTPUTS), default="text", help="output format (default: text)")
    parser.add_argument("-c", dest="complete", action="store_true",
                        help="topics in the qrels but missing from a run count as 0 (trec_eval -c)")
    parser.add_argument("-l", dest="rel_level", type=int, default=1, help="relevance level (trec_eval -l)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="permutations / bootstrap resamples for --test randomization and the bootstrap CI "
                             "(default: 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for resampling (default: 0)")


def max_drops(items: list[str]) -> dict[str, float]:
    """--max-drop MEASURE=DELTA values -> {measure: delta}."""
    out = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        try:
            delta = float(value)
        except ValueError:
            delta = None
        if not sep or not name or delta is None or not delta >= 0 or delta == float("inf"):
            raise EvalError(f"--max-drop {item!r}: write MEASURE=DELTA with DELTA a number of 0 or more, "
                            f"e.g. --max-drop AP=0.01.")
        out[name] = delta
    return out


def _measures(args, expected: dict) -> list[str]:
    """The measures to evaluate, by canonical name, in the order asked (the expect file's added at the end); with
    --collection, a measure imported into the collection (load --scores) keeps its stored name."""
    from core.measures import parse_measure
    names = (args.measures or (list(expected) if expected else DEFAULT_MEASURES)) + list(expected)
    kept = set(stored.imported(args, names)) if args.collection is not None else set()
    return list(dict.fromkeys(n if n in kept else parse_measure(n).name for n in names))


def _stored(args, measures, options, kwargs):
    from core.service.compare import check_stored
    from core.store.store import Store
    with Store.open(args.store, load_sample=False) as store, store.session():
        (new, baseline), qrels = stored.resolve(store, args.collection, [args.run, args.against], args.assessor)
        return check_stored(store, args.collection, new, baseline, measures, qrels_id=qrels, options=options,
                            **kwargs)


def _files(args, measures, options, kwargs):
    from core.engine.evaluate import evaluate_files
    from core.stats.gate import gate_result
    result = evaluate_files(args.qrels, [args.new, args.against], measures, options)
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return gate_result(result, measures, complete=options.complete, **kwargs)


def _check_inputs(args) -> None:
    if args.collection is None:
        if args.run or args.assessor:
            raise EvalError("--run and --assessor need --collection NAME (runs stored in the store).")
        if not args.qrels or not args.new:
            raise EvalError("Give QRELS and NEW_RUN files (and --against BASELINE_RUN), or --collection NAME "
                            "--run NEW --against BASELINE for stored runs.")
    elif args.qrels or args.new:
        raise EvalError("Give either QRELS and run files or --collection NAME, not both.")
    elif not args.run:
        raise EvalError("With --collection, name the new stored run with --run NEW.")


def run(args) -> int:
    from core.engine.evaluate import EvalOptions
    from core.formats.expect import read_expect
    _check_inputs(args)
    drops = max_drops(args.max_drop)
    expect = read_expect(args.expect) if args.expect else None
    expected = expect.values if expect else {}
    measures = _measures(args, expected)
    options = EvalOptions(rel_level=args.rel_level, complete=args.complete)
    kwargs = dict(test=args.test, correction=args.correction, alpha=args.alpha, max_drop=drops, expected=expected,
                  tolerance=expect.tolerance if expect else None, n_resamples=args.resamples, seed=args.seed)
    result = _stored(args, measures, options, kwargs) if args.collection else _files(args, measures, options, kwargs)
    if args.junit:
        Path(args.junit).write_text(result.to_junit(), encoding="utf-8")
    sys.stdout.write(OUTPUTS[args.format](result))
    return 0 if result.passed else 1
