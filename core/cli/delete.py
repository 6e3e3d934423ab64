"""`python -m core delete --collection NAME [--run RUN]... --yes`: delete runs, or a whole collection. Without --yes
the command says what it would delete and deletes nothing (exit 2). The look-ups and the deletes are one transaction
of the store; an unknown name is an error (exit 2) and nothing is deleted."""
from __future__ import annotations

from core.store import edits
from core.store import ingest
from core.errors import EvalError
from core.store.store import Store


def add_arguments(p) -> None:
    p.add_argument("--collection", required=True, metavar="NAME", help="the collection (deleted whole without --run)")
    p.add_argument("--run", dest="runs", action="append", metavar="RUN", default=None,
                   help="delete this run of the collection (its name, or its id as `list` prints it; repeatable)")
    p.add_argument("--yes", action="store_true", help="really delete (without it, only say what would go)")


def _what(cur, cid: int, args) -> tuple[list[tuple[int, str, int]], str]:
    """(runs to delete as (id, name, rows), a description of everything that goes)."""
    if args.runs is None:
        counts = edits.collection_counts(cur, cid)
        held = ", ".join(f"{n} {label}" for label, n in counts.items())
        return [], f"collection '{args.collection}' ({held})"
    ids = list(dict.fromkeys(edits.run_id(cur, cid, args.collection, r) for r in args.runs))
    runs = [(i, *ingest.one(cur, "SELECT name, n_rows FROM runs WHERE run_id = ?", [i])) for i in ids]
    names = ", ".join(f"run '{name}' ({rows} rows)" for _, name, rows in runs)
    return runs, f"{names} from collection '{args.collection}'"


def run(args) -> int:
    with Store.open(args.store, load_sample=False) as store, store.transaction() as cur:
        cid = edits.collection(cur, args.collection)
        runs, what = _what(cur, cid, args)
        if not args.yes:
            raise EvalError(f"This would delete {what}. Nothing was deleted.\n\nAdd --yes to delete it.")
        if args.runs is None:
            edits.delete_collection(cur, cid)
        for rid, _, _ in runs:
            ingest.delete_run(cur, rid)
    print(f"Deleted {what}.")
    return 0
