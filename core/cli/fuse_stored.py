"""`python -m core fuse --collection NAME --stored RUN RUN ...`: stored runs fused (core/service/fusion.py), the
fused run written as a TREC run (to -o OUT or standard output) or, with --store-as, stored in the collection."""
from __future__ import annotations

import sys
from pathlib import Path

from core.errors import EvalError

STORED = ""     # --tune / --train given without QRELS: the collection's qrels


def _qrels_id(store, args) -> int | None:
    """The qrels set of --assessor (None: the collection's default set)."""
    from core.cli.stored import resolve
    return resolve(store, args.collection, args.stored, args.assessor)[1]


def run_stored(args, method: str, params: dict, weights, name: str) -> int:
    from core.fusion.trec import trec_text
    from core.service.fusion import check_new_name, fuse_stored, save_fused
    from core.store.store import Store
    for flag in ("tune", "train"):
        if getattr(args, flag) not in (None, STORED):
            raise EvalError(f"--{flag} {getattr(args, flag)}: with --collection, --{flag} takes no QRELS file; it "
                            f"uses the collection's qrels (choose a set with --assessor NAME).")
    store = Store.open(args.store, load_sample=False)
    try:
        with store.session():      # the names checked first, before the fusing
            qrels_id = _qrels_id(store, args)
            if args.store_as is not None:
                check_new_name(store, args.collection, args.store_as)
        stored = fuse_stored(store, args.collection, args.stored, method, norm=args.norm, params=params,
                             weights=weights, depth=args.depth, tune=args.tune is not None,
                             train=args.train is not None, qrels_id=qrels_id, measure=_measure(args),
                             folds=args.folds, seed=args.seed, step=args.step)
        report = None
        if args.store_as is not None:
            report = save_fused(store, args.collection, stored, args.store_as)
    finally:
        store.close()
    tag = args.store_as or name
    if args.output is not None:
        Path(args.output).write_text(trec_text(stored.fused, tag))
    elif report is None:
        if stored.report:
            print(stored.report, file=sys.stderr)
        sys.stdout.write(trec_text(stored.fused, tag))
        return 0
    if stored.report:
        print(stored.report)
    if report is not None:
        print(f"Stored run '{report.name}' in collection '{args.collection}': {report.n_rows:,} lines, "
              f"{stored.fused.provenance['method']} of {', '.join(stored.runs)}.")
    return 0


def _measure(args) -> str:
    from core.measures import parse_measure
    return parse_measure(args.measure).name
