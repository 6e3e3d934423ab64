"""`python -m core fuse RUN RUN [RUN ...] --method NAME ...` (or `--collection NAME --stored RUN RUN ...`, read by
core/cli/fuse_stored.py): runs fused as ranx does (core/fusion, docs/fusion.md) into one TREC run, with the method,
its parameters and the runs (file name and sha256) in an ir_metadata header. --tune chooses the parameters by k-fold
cross-validation over the topics of QRELS (core/fusion/tune.py), each topic fused with its fold's parameters; a
method that learns from judged topics learns from --train's topics, or under --tune from each fold's other topics.
docs/cli.md#fuse lists the options."""
from __future__ import annotations

import hashlib
from pathlib import Path

from core.cli.fuse_stored import STORED, run_stored, write_fused
from core.errors import EvalError


def add_arguments(parser) -> None:
    parser.add_argument("runs", nargs="*", metavar="RUN", help="two or more run files (TREC or MS MARCO, gzip or not)")
    parser.add_argument("--collection", metavar="NAME", default=None,
                        help="fuse runs stored in this collection of the store (instead of RUN files)")
    parser.add_argument("--stored", metavar="RUN", nargs="+", action="extend", default=None,
                        help="with --collection: two or more stored runs (names, or ids as `list` prints them)")
    parser.add_argument("--assessor", metavar="NAME", default=None,
                        help="with --collection: --tune and --train use this assessor's qrels set (default: the "
                             "collection's default set)")
    parser.add_argument("--store-as", metavar="NAME", default=None,
                        help="with --collection: store the fused run in the collection under this name")
    parser.add_argument("--method", required=True, metavar="NAME",
                        help="fusion method, ranx's name (rrf, wsum, mnz, ...; docs/fusion.md lists them)")
    parser.add_argument("--norm", default=None, metavar="NAME",
                        help="score normalisation: min-max (the default, as in ranx), min-max-inverted, max, sum, "
                             "zmuv, rank, borda or none")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of the method, e.g. k=60 for rrf (repeat for several)")
    parser.add_argument("--weights", default=None, metavar="W1,W2,...",
                        help="one weight per run, in the order of the runs (weighted methods; default 1/n each)")
    parser.add_argument("--depth", type=int, default=1000, help="documents kept per topic (default: 1000)")
    parser.add_argument("-o", "--output", default=None, metavar="OUT", help="write the run here (default: stdout)")
    parser.add_argument("--name", default=None, help="the fused run's tag (default: the method's name)")
    parser.add_argument("--train", default=None, nargs="?", const=STORED, metavar="QRELS",
                        help="the judged topics a learning method (posfuse, probfuse, segfuse, slidefuse, bayesfuse, "
                             "mapfuse) learns from (with --collection, no QRELS: the collection's qrels)")
    parser.add_argument("--tune", default=None, nargs="?", const=STORED, metavar="QRELS",
                        help="choose the parameters by cross-validation over the topics of these qrels (with "
                             "--collection, no QRELS: the collection's qrels)")
    parser.add_argument("-m", "--measure", default="nDCG@10", metavar="MEASURE",
                        help="the measure --tune maximises (default: nDCG@10)")
    parser.add_argument("--folds", type=int, default=5, help="folds of topics for --tune (default: 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the folds for --tune (default: 0)")
    parser.add_argument("--step", type=float, default=0.1, help="step of --tune's weight grid (default: 0.1)")


def parse_params(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise EvalError(f"--param {item}: expected KEY=VALUE. Write it as e.g. --param k=60.")
        out[key.strip()] = value.strip()
    return out


def parse_weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise EvalError(f"--weights {text}: expected numbers separated by commas. Write it as e.g. "
                        f"--weights 0.3,0.7.") from None


def read_runs(paths: list[str]):
    """(frames, names, sha256s) of the run files, in the order given."""
    from core.formats import read_run
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        raise EvalError(f"{missing[0]}: no such file. Check the path.")
    if len(paths) < 2:
        raise EvalError("fusion needs at least two runs. Give two or more run files.")
    frames, names, versions = [], [], []
    for p in paths:
        data = Path(p).read_bytes()
        versions.append(hashlib.sha256(data).hexdigest())
        frames.append(read_run(data, filename=Path(p).name).table.to_pandas())
        names.append(Path(p).name)
    return frames, names, versions


def _stored_mode(args) -> bool:
    """True for --collection; an EvalError when files and stored runs are mixed, or a stored option lacks it."""
    if args.collection is None:
        given = [f for f, v in (("--stored", args.stored), ("--assessor", args.assessor),
                                ("--store-as", args.store_as)) if v]
        if given:
            raise EvalError(f"{given[0]} needs --collection NAME (the runs of a collection in the store).")
        return False
    if args.runs:
        raise EvalError("Give either RUN files or --collection NAME --stored RUN RUN ..., not both.")
    if not args.stored:
        raise EvalError(f"--collection {args.collection}: name the runs to fuse with --stored RUN RUN ...")
    return True


def read_judgments(path: str):
    from core.formats import read_qrels
    if not Path(path).is_file():
        raise EvalError(f"{path}: no such file. Check the path.")
    return read_qrels(path, filename=Path(path).name).table.to_pandas()


def fused_files(args, frames, names, method: str, params: dict, weights):
    """(the fused run, --tune's report or None) of the run files' frames (core.fusion.fuse_or_tune)."""
    from core.fusion import fuse_or_tune
    from core.measures import parse_measure
    if args.tune is not None and args.train is not None:
        raise EvalError("--train and --tune both name qrels: --tune learns on each fold's other topics. Give one.")
    tune = args.tune is not None
    path = args.tune if tune else args.train
    qrels = read_judgments(path) if path is not None else None
    measure = parse_measure(args.measure).name if tune else args.measure       # only --tune measures
    return fuse_or_tune(frames, method, qrels, qrels_name=Path(path).name if path is not None else "qrels",
                        tune=tune, measure=measure, folds=args.folds,
                        seed=args.seed, step=args.step, norm=args.norm, params=params, weights=weights,
                        depth=args.depth, names=names)


def run(args) -> int:
    from core.fusion import method_named
    from core.fusion.trec import trec_text
    method = method_named(args.method)
    params, weights = parse_params(args.param), parse_weights(args.weights)
    name = args.name or method.name
    if not name.strip() or len(name.split()) != 1:
        raise EvalError(f"--name {name!r}: a run's name is one word, without spaces. Give e.g. --name "
                        f"{method.name}-fused.")
    if _stored_mode(args):
        return run_stored(args, method.name, params, weights, name)
    for flag in ("tune", "train"):
        if getattr(args, flag) == STORED:
            raise EvalError(f"--{flag} needs QRELS with run files. Give --{flag} QRELS, or fuse stored runs with "
                            f"--collection NAME.")
    frames, names, versions = read_runs(args.runs)
    fused, report = fused_files(args, frames, names, method.name, params, weights)
    write_fused(trec_text(fused, name, versions), report, args.output)
    return 0
