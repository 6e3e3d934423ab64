"""`python -m core list [--collection NAME]`: the collections, qrels sets and runs in the store."""
from __future__ import annotations

from core.store.diversity import diversity_sets
from core.store.store import Store


def add_arguments(p) -> None:
    p.add_argument("--collection", default=None, help="only this collection")


def run(args) -> int:
    with Store.open(args.store, load_sample=False) as store, store.session():   # one turn for the whole listing
        cols = store.collections()
        if args.collection is not None:
            cols = cols[(cols["name"] == args.collection) | (cols["collection_id"].astype(str) == args.collection)]
        print(f"store: {store.path}" + (" (read-only)" if store.read_only else ""))
        if cols.empty:
            print("no collections" if args.collection is None else f"no collection '{args.collection}'")
        for c in cols.itertuples():
            print(f"\n{c.name} (id {c.collection_id}): {c.n_topics} topics, {c.n_qrels_sets} qrels sets, "
                  f"{c.n_runs} runs, {c.n_documents} documents")
            for q in store.qrels_sets(c.collection_id).itertuples():
                default = "  (default)" if q.is_default else ""
                print(f"  qrels {q.qrels_id:>4}  {q.assessor:<24} {q.n_judgments:>9} judgments "
                      f"{q.n_topics:>6} topics{default}")
            for q in diversity_sets(store, c.collection_id).itertuples():
                print(f"  div   {q.qrels_id:>4}  {q.assessor:<24} {q.n_judgments:>9} judgments "
                      f"{q.n_topics:>6} topics  {q.n_subtopics} subtopics (diversity qrels)")
            for r in store.runs(c.collection_id).itertuples():
                depth = f"depth {r.depth}" if r.n_rows else "scores only"
                print(f"  run   {r.run_id:>4}  {r.name:<24} {r.n_rows:>9} rows      {r.n_topics:>6} topics  "
                      f"{depth}  {r.filename}")
            for m in store.imported_measures(c.collection_id).itertuples():
                print(f"  score       {m.measure:<24} {m.n_runs:>9} runs      imported ({m.source})")
    return 0
