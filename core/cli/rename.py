"""`python -m core rename --collection NAME [--run RUN] NEW_NAME`: rename a run, or the collection itself. The
look-up and the change are one transaction of the store, taken in turn with the dashboard and loads
(core/store/access.py); an unknown name is an error (exit 2) that lists the names there are."""
from __future__ import annotations

from core.store import edits
from core.store import ingest
from core.store.store import Store


def add_arguments(p) -> None:
    p.add_argument("--collection", required=True, metavar="NAME", help="the collection (or the one to rename)")
    p.add_argument("--run", metavar="RUN", default=None,
                   help="rename this run of the collection (its name, or its id as `list` prints it)")
    p.add_argument("new_name", metavar="NEW_NAME", help="the new name")


def run(args) -> int:
    with Store.open(args.store, load_sample=False) as store, store.transaction() as cur:
        cid = edits.collection(cur, args.collection)
        if args.run is None:
            edits.rename_collection(cur, cid, args.new_name)
            done = f"Renamed collection '{args.collection}' to '{args.new_name}'."
        else:
            rid = edits.run_id(cur, cid, args.collection, args.run)
            old = ingest.one(cur, "SELECT name FROM runs WHERE run_id = ?", [rid])[0]
            ingest.rename_run(cur, rid, args.new_name)
            done = f"Renamed run '{old}' to '{args.new_name}' in collection '{args.collection}'."
    print(done)
    return 0
