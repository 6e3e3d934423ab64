"""Stored runs for `evaluate` and `compare`: `--collection NAME [--stored RUN ...] [--assessor NAME]` instead of
files. The runs are evaluated by core/service/evaluate.py (its per-query cache in the store), inside one session of
the store, taken in turn with the dashboard and loads like `load` (core/store/access.py)."""
from __future__ import annotations

from contextlib import closing

from core.store import edits
from core.errors import EvalError
from core.db.sqltext import one


def add_arguments(p) -> None:
    p.add_argument("--collection", metavar="NAME", default=None,
                   help="evaluate runs stored in this collection of the store (instead of QRELS and RUN files)")
    p.add_argument("--stored", metavar="RUN", nargs="+", action="extend", default=None,
                   help="with --collection: these stored runs (names, or ids as `list` prints them; default: all)")
    p.add_argument("--assessor", metavar="NAME", default=None,
                   help="with --collection: the qrels set of this assessor (default: the collection's default set)")


def check(args, files: list) -> bool:
    """True when the stored runs are asked for; an EvalError when files and --collection are mixed or missing."""
    if args.collection is None:
        if args.stored or args.assessor:
            raise EvalError("--stored and --assessor need --collection NAME (the runs of a collection in the store).")
        if not files:
            raise EvalError("Give a QRELS file and RUN files, or --collection NAME to evaluate stored runs.")
        return False
    if files:
        raise EvalError("Give either QRELS and RUN files or --collection NAME, not both.")
    return True


def resolve(store, collection: str, names: list[str] | None, assessor: str | None) -> tuple[list[int], int | None]:
    """(the ids of the stored runs `names`, or of every run of the collection when None; the qrels set of
    `assessor`, or None for the collection's default set), or an EvalError that lists what there is."""
    with closing(store.cursor()) as cur:
        cid = edits.collection(cur, collection)
        if names:
            runs = [edits.run_id(cur, cid, collection, r) for r in names]
        else:
            runs = [r[0] for r in cur.execute("SELECT run_id FROM runs WHERE collection_id = ? ORDER BY run_id",
                                              [cid]).fetchall()]
            if not runs:
                raise EvalError(f"Collection '{collection}' has no runs. Load some with `python -m core load "
                                f"--collection {collection} --run FILE`.")
        qrels = None
        if assessor is not None:
            row = one(cur, "SELECT qrels_id FROM qrels_sets WHERE collection_id = ? AND assessor = ? "
                           "ORDER BY qrels_id LIMIT 1", [cid, assessor])
            if row is None:
                have = ", ".join(f"'{r[0]}'" for r in cur.execute(
                    "SELECT assessor FROM qrels_sets WHERE collection_id = ? ORDER BY qrels_id", [cid]).fetchall())
                raise EvalError(f"Collection '{collection}' has no qrels set by assessor '{assessor}'. "
                                f"Its qrels sets: {have or 'none'}.")
            qrels = int(row[0])
        return runs, qrels


def imported(args, names) -> list[str]:
    """The names among `names` that are measures imported into the collection (core.service.imported)."""
    from core.service.imported import sources
    from core.store.store import Store
    with Store.open(args.store, load_sample=False) as store:
        have = sources(store, args.collection)
    return [n for n in names if n in have]


def evaluate(args, measures, options, *, with_topics: bool = False):
    """EvalResult of the stored runs (named as stored), in the order asked for; with `with_topics`,
    (EvalResult, the qrels set's topics) for `compare`."""
    from core.service.evaluate import evaluate_stored
    from core.store.store import Store
    with Store.open(args.store, load_sample=False) as store, store.session():
        runs, qrels = resolve(store, args.collection, args.stored, args.assessor)
        if qrels is None:
            qrels = store.default_qrels_id(args.collection)
        result = evaluate_stored(store, args.collection, runs, measures, qrels_id=qrels, options=options)
        if not with_topics:
            return result
        return result, sorted(store.qrels(qrels)["qid"].astype(str).unique()) if qrels is not None else []
