"""The store: one DuckDB file holding collections, runs, qrels sets, topics, documents and notes.

This module opens the file and owns its connection and transactions; the schema and its migrations
are in `core/schema.py`, and what the store holds (collections, runs, notes, ...) is read and edited
through the `Catalogue` methods (`core/catalogue.py`) that `Store` inherits.

One process owns the file. Share one `Store` and take a `cursor()` per thread (a DuckDB
connection is not thread-safe). Every write runs in one transaction, so a failed upload
leaves nothing behind. Run rows carry the canonical trec_eval rank, computed at ingest, and every
write also keeps `run_topics` and `judged_rows` (what stored evaluation reads) up to date.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING
from pathlib import Path

import duckdb

from core import ingest, schema
from core.catalogue import Catalogue
from core.errors import RankboardError

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT / "data" / "rankboard.duckdb"
SAMPLE_MANIFEST = ROOT / "data" / "sample.json"
SAMPLE_MANIFESTS = (SAMPLE_MANIFEST, ROOT / "data" / "sample_llmjudge.json")   # a fresh store loads each that exists

# Errors of the environment, not of the data: out of memory, disk full, a write conflict.
SAVE_ERRORS = (duckdb.OutOfMemoryException, duckdb.IOException, duckdb.TransactionException)


def resolve_path(path: str | Path | None = None) -> Path:
    """--store PATH, else $RANKBOARD_STORE, else data/rankboard.duckdb."""
    return Path(path or os.environ.get("RANKBOARD_STORE") or DEFAULT_PATH)


class Store(Catalogue):
    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path):
        self.con, self.path = con, path

    @classmethod
    def open(cls, path: str | Path | None = None, *, load_sample: bool = True) -> "Store":
        """Open (creating if needed) the store; a fresh store gets the sample collection from data/."""
        path = resolve_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        config = {"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
                  "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", "2GB"),
                  "temp_directory": str(path.with_name(path.name + ".tmp"))}
        try:
            con = duckdb.connect(str(path), config=config)
        except duckdb.Error as exc:
            raise RankboardError(f"{path}: cannot open the store ({exc}). If another Rankboard process "
                                 "is using it, stop that process or pass a different --store PATH.") from None
        store = cls(con, path)
        fresh = store._migrate()
        if fresh and load_sample:
            for manifest in SAMPLE_MANIFESTS:
                if manifest.exists():
                    store.load_sample(manifest)
        return store

    def _migrate(self) -> bool:
        """Create or upgrade the schema (core/schema.py); True when the store was empty."""
        with self.transaction() as cur:
            return schema.migrate(cur, self.path)

    def load_sample(self, manifest: Path = SAMPLE_MANIFEST) -> int:
        """Load the bundled sample collection described by data/sample.json, in one transaction."""
        spec = json.loads(manifest.read_text())
        base = manifest.parent
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, spec["collection"], create=True)
            ingest.add_topics(cur, cid, base / spec["topics"], filename=spec["topics"])
            for q in spec["qrels"]:
                ingest.add_qrels(cur, cid, base / q["file"], filename=q["file"], assessor=q["assessor"])
            for r in spec["runs"]:
                ingest.add_run(cur, cid, base / r, filename=Path(r).name)
        return cid

    # -- connections and transactions ---------------------------------------------------------
    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self.con.cursor()

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def transaction(self):
        """A fresh cursor inside BEGIN ... COMMIT; ROLLBACK when the block raises. Running out of
        memory or disk, and a write conflict with another session, become a RankboardError."""
        cur = self.con.cursor()
        cur.begin()
        try:
            yield cur
            cur.commit()
        except BaseException as exc:
            try:
                cur.rollback()
            except duckdb.Error:  # a COMMIT that failed has already ended the transaction
                pass
            if isinstance(exc, SAVE_ERRORS):
                raise RankboardError(f"{self.path}: the store could not save this change ({exc}). Nothing was "
                                     "saved. Free memory or disk space (or raise RANKBOARD_MEMORY_LIMIT), "
                                     "or try again if another session was writing.") from exc
            raise
        finally:
            cur.close()

    def _query(self, sql: str, params=()) -> pd.DataFrame:
        cur = self.cursor()
        try:
            return cur.execute(sql, list(params)).df()
        finally:
            cur.close()
