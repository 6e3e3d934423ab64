"""`python -m core fuse --collection NAME --stored RUN RUN ...`: stored runs fused (core/service/fusion.py), the
fused run written as a TREC run (to -o OUT or standard output) or, with --store-as, stored in the collection."""
from __future__ import annotations

import sys
from pathlib import Path

from core.errors import EvalError

STORED = ""     # --tune / --train given without QRELS: the collection's qrels


def write_fused(text: str, report: str | None, output: str | None) -> None:
    """The fused run to the file `output`, --tune's report then to standard output; without `output`, the run to
    standard output and the report to standard error."""
    if output is None:
        if report:
            print(report, file=sys.stderr)
        sys.stdout.write(text)
        return
    Path(output).write_text(text)
    if report:
        print(report)


def run_stored(args, method: str, params: dict, weights, name: str) -> int:
    from core.cli.stored import resolve
    from core.fusion.trec import trec_text
    from core.measures import parse_measure
    from core.service.fusion import check_new_name, fuse_stored, save_fused
    from core.store.store import Store
    for flag in ("tune", "train"):
        if getattr(args, flag) not in (None, STORED):
            raise EvalError(f"--{flag} {getattr(args, flag)}: with --collection, --{flag} takes no QRELS file; it "
                            f"uses the collection's qrels (choose a set with --assessor NAME).")
    with Store.open(args.store, load_sample=False) as store:
        with store.session():      # the names checked first, before the fusing
            qrels_id = resolve(store, args.collection, args.stored, args.assessor)[1]
            if args.store_as is not None:
                check_new_name(store, args.collection, args.store_as)
        stored = fuse_stored(store, args.collection, args.stored, method, norm=args.norm, params=params,
                             weights=weights, depth=args.depth, tune=args.tune is not None,
                             train=args.train is not None, qrels_id=qrels_id,
                             measure=parse_measure(args.measure).name, folds=args.folds, seed=args.seed,
                             step=args.step)
        report = None if args.store_as is None else save_fused(store, args.collection, stored, args.store_as)
    if args.output is not None or report is None:
        write_fused(trec_text(stored.fused, args.store_as or name), stored.report, args.output)
    elif stored.report:
        print(stored.report)
    if report is not None:
        print(f"Stored run '{report.name}' in collection '{args.collection}': {report.n_rows:,} lines, "
              f"{stored.fused.provenance['method']} of {', '.join(stored.runs)}.")
    return 0
