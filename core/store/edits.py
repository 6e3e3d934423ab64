"""Renaming and deleting by name, inside the caller's transaction (`Store.transaction()`), so that looking a
name up and changing it is one step no other process can come between. Used by the command line's `rename`
and `delete` (core/cli/rename.py, core/cli/delete.py) and by `Catalogue`.

A name that does not exist is an EvalError that says which names do.
"""
from __future__ import annotations

from core.db.sqltext import one, statement
from core.errors import EvalError
from core.store import ingest
from core.store.schema import BY_COLLECTION, BY_QRELS, BY_RUN


def _names(cur, sql: str, params) -> str:
    names = [r[0] for r in cur.execute(sql, params).fetchall()]
    shown = ", ".join(f"'{n}'" for n in names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    return shown or "none"


def run_id(cur, cid: int, collection: str, name: str) -> int:
    """The id of run `name` in the collection (a run id as `list` prints it is accepted too)."""
    row = one(cur, "SELECT run_id FROM runs WHERE collection_id = ? AND name = ?", [cid, str(name)])
    if row is None and str(name).isdigit():
        row = one(cur, "SELECT run_id FROM runs WHERE collection_id = ? AND run_id = ?", [cid, int(name)])
    if row is None:
        have = _names(cur, "SELECT name FROM runs WHERE collection_id = ? ORDER BY run_id", [cid])
        raise EvalError(f"Collection '{collection}' has no run '{name}'. Its runs: {have}. "
                        f"Run `python -m core list --collection {collection}` to see them.")
    return int(row[0])


def rename_collection(cur, cid: int, new_name: str) -> None:
    if not new_name or not new_name.strip():
        raise EvalError("A collection needs a non-empty name.")
    if one(cur, "SELECT 1 FROM collections WHERE name = ? AND collection_id <> ?", [new_name, cid]):
        raise EvalError(f"A collection named '{new_name}' already exists; choose another name.")
    cur.execute("UPDATE collections SET name = ? WHERE collection_id = ?", [new_name, cid]).fetchall()


def collection_counts(cur, cid: int) -> dict[str, int]:
    """What a collection holds: runs, qrels sets, topics, documents and notes."""
    tables = {"runs": "runs", "qrels sets": "qrels_sets", "topics": "topics", "documents": "documents",
              "notes": "query_notes"}
    return {label: int(one(cur, statement("SELECT count(*) FROM {t} WHERE collection_id = ?", t=table), [cid])[0])
            for label, table in tables.items()}


def delete_collection(cur, cid: int) -> dict[str, int]:
    """Remove a collection and everything in it (runs with their rows and cached results, relevance and diversity
    qrels, topics, documents, notes); returns what it held (collection_counts)."""
    counts = collection_counts(cur, cid)
    runs = [r[0] for r in cur.execute("SELECT run_id FROM runs WHERE collection_id = ?", [cid]).fetchall()]
    sets = [r[0] for r in cur.execute("SELECT qrels_id FROM qrels_sets WHERE collection_id = ? UNION ALL "
                                      "SELECT qrels_id FROM diversity_sets WHERE collection_id = ?", [cid, cid]).fetchall()]
    for key, ids, tables in (("run_id", runs, BY_RUN), ("qrels_id", sets, BY_QRELS)):
        for table in tables:
            cur.execute(statement("DELETE FROM {t} WHERE list_contains(?, {k})", t=table, k=key), [ids]).fetchall()
    for table in BY_COLLECTION:
        cur.execute(statement("DELETE FROM {t} WHERE collection_id = ?", t=table), [cid]).fetchall()
    return counts


def collection(cur, name: str) -> int:
    """The id of collection `name` (not created when missing)."""
    return ingest.collection_id(cur, name)
