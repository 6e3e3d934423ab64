"""`python -m core meta --collection NAME RUN [KEY=VALUE]...`: show or edit a stored run's lineage and cost metadata
(the keys of core/formats/lineage.py; `KEY=` removes one). The values are checked before the store is taken; the
change is one transaction, like `rename`."""
from __future__ import annotations

from contextlib import closing

from core.formats.lineage import parse_pairs
from core.store import edits
from core.store import lineage
from core.store.store import Store


def add_arguments(p) -> None:
    p.add_argument("--collection", required=True, metavar="NAME", help="the collection of the run")
    p.add_argument("run", metavar="RUN", help="the run (its name, or its id as `list` prints it)")
    p.add_argument("pairs", nargs="*", metavar="KEY=VALUE",
                   help="keys to set (KEY= removes one); none: print the run's metadata")


def run(args) -> int:
    values = parse_pairs(args.pairs, option="meta", example="latency_ms=12.5")
    with (Store.open(args.store, load_sample=False) as store,
          store.transaction() if values else closing(store.cursor()) as cur):
        rid = edits.run_id(cur, edits.collection(cur, args.collection), args.collection, args.run)
        if values:
            lineage.write_meta(cur, rid, values)
        now = lineage.run_meta(cur, rid)
    if values:
        print(f"Updated the metadata of run '{args.run}' in collection '{args.collection}'.")
    for key, value in now.items():
        print(f"{key}\t{value}")
    if "timestamp" not in now:
        print("timestamp\t(not given: the upload time)")
    return 0
