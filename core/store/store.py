"""The store: one DuckDB file holding collections, runs, qrels sets, topics, documents and notes.

This module opens the file and owns its connection and transactions; the schema and its migrations
are in `core/store/schema.py`, and what the store holds (collections, runs, notes, ...) is read and edited
through the `Catalogue` methods (`core/store/catalogue.py`) that `Store` inherits.

Processes take turns on the file (core/store/access.py): each holds it only inside a session, so the
dashboard, the command line and scripts all use one store, and a writer waits its turn. Take a `cursor()`
per thread (a DuckDB connection is not thread-safe). Every write runs in one transaction and bumps
`data_version`, so a failed upload leaves nothing behind and readers know when to read afresh. Run rows carry the canonical trec_eval rank, computed at ingest, and every
write also keeps `run_topics` and `judged_rows` (what stored evaluation reads) up to date.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING
from pathlib import Path

import duckdb

from core.store import ingest
from core.store import schema
from core.store import access as store_access
from core.store import health as store_health
from core.store.catalogue import Catalogue
from core.errors import RankboardError
from core.db.sqltext import one

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATH = ROOT / "data" / "rankboard.duckdb"
SAMPLE_MANIFEST = ROOT / "data" / "sample.json"
SAMPLE_MANIFESTS = (SAMPLE_MANIFEST, ROOT / "data" / "sample_llmjudge.json")   # a fresh store loads each that exists


def sample_names() -> set[str]:
    """The names of the bundled sample collections (what a fresh default store loads)."""
    return {json.loads(m.read_text())["collection"] for m in SAMPLE_MANIFESTS if m.exists()}


# Every committed write (except the results cache) increases meta's data_version.
BUMP = """INSERT OR REPLACE INTO meta SELECT 'data_version',
    CAST(coalesce((SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'data_version'), 0) + 1 AS VARCHAR)"""
# Errors of the environment, not of the data: out of memory, disk full, a write conflict.
SAVE_ERRORS = (duckdb.OutOfMemoryException, duckdb.IOException, duckdb.TransactionException)


def resolve_path(path: str | Path | None = None) -> Path:
    """--store PATH, else $RANKBOARD_STORE, else data/rankboard.duckdb."""
    return Path(path or os.environ.get("RANKBOARD_STORE") or DEFAULT_PATH)


def _config(path: Path) -> dict:
    return {"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
            "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", "2GB"),
            "temp_directory": str(path.with_name(path.name + ".tmp"))}


class Store(Catalogue):
    """A handle on the store file. It holds the file only inside `session()` (and the calls that open one
    themselves), so the dashboard, the command line and scripts share it: see core/store/access.py."""

    def __init__(self, path: Path, access: store_access.Access, wait: float | None = None):
        self.path, self._access, self.wait = path, access, wait

    @classmethod
    def open(cls, path: str | Path | None = None, *, load_sample: bool | None = None, read_only: bool = False,
             wait: float | None = None, linger: float = 0.0) -> "Store":
        """Open (creating if needed) the store. A fresh store gets the sample collection from data/ when
        `load_sample`, which by default is true only for the default store (data/rankboard.duckdb).
        `read_only`: share the file with other read-only processes (a distributed engine's workers).
        `wait`: seconds to wait for another process's turn ($RANKBOARD_WAIT, else 120); `linger`: seconds
        to keep the file after the last session while no other process wants it (the dashboard's setting)."""
        path = resolve_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        access = store_access.access(path, _config(path), read_only=read_only, linger=linger)
        store = cls(path, access, wait)
        if read_only:
            with store.session() as con:
                schema.check_version(con, path)
            return store
        fresh = store._migrate()
        if load_sample is None:
            load_sample = path.resolve() == DEFAULT_PATH.resolve()
        if fresh and load_sample:
            store.load_sample(*[m for m in SAMPLE_MANIFESTS if m.exists()])
        return store

    def _migrate(self) -> bool:
        """Create or upgrade the schema (core/store/schema.py), first copying an older store's file
        (store_health.copy_before_migration); True when the store was empty."""
        with self.session() as con:
            version = schema.check_version(con, self.path)
            if version == schema.SCHEMA_VERSION:
                return False
            if version:
                store_health.copy_before_migration(con, self.path, version)
            with self.transaction() as cur:
                return schema.migrate(cur, self.path)

    def load_sample(self, *manifests: Path) -> int:
        """Load the bundled sample collections (data/sample.json by default) in one transaction, so they share one
        timestamp and the first stays the one the dashboard opens first; returns the first's collection id."""
        ids = []
        with self.transaction() as cur:
            for manifest in manifests or (SAMPLE_MANIFEST,):
                spec, base = json.loads(manifest.read_text()), manifest.parent
                cid = ingest.collection_id(cur, spec["collection"], create=True)
                ingest.add_topics(cur, cid, base / spec["topics"], filename=spec["topics"])
                for q in spec["qrels"]:
                    ingest.add_qrels(cur, cid, base / q["file"], filename=q["file"], assessor=q["assessor"])
                for r in spec["runs"]:
                    ingest.add_run(cur, cid, base / r, filename=Path(r).name)
                ids.append(cid)
        return ids[0]

    # -- sessions, connections and transactions -------------------------------------------------
    @contextmanager
    def session(self):
        """Hold the store file for the block (waiting for another process's turn if need be); yields the
        connection. Sessions nest, and a thread's calls inside one reuse it. A damaged file becomes a
        StoreDamagedError that says what to do."""
        try:
            with self._access.session(self.wait) as con:
                yield con
        except duckdb.Error as exc:
            if store_health.is_damage(exc):
                raise store_health.damaged(self.path, exc) from None
            raise

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection of the session this thread is in."""
        if not self._access.in_session():
            raise RuntimeError("Store.con is only valid inside `with store.session():`")
        return self._access.con

    def cursor(self):
        """A fresh cursor, which holds the store (a session of its own) until it is closed: close it promptly."""
        return store_access.SessionCursor(self.session())

    def data_version(self) -> int:
        """A number that every committed write (not the results cache) increases: key caches on it."""
        with self.session() as con:
            cur = con.cursor()
            try:
                row = one(cur, "SELECT value FROM meta WHERE key = 'data_version'")
            finally:
                cur.close()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._access.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def transaction(self, *, bump: bool = True):
        """A fresh cursor inside BEGIN ... COMMIT; ROLLBACK when the block raises. The commit increases
        `data_version` unless `bump` is false (the results cache). Running out of memory or disk, and a
        write conflict with another session, become a RankboardError."""
        # The write lock is taken inside the session (never the other way round), so a thread that holds it
        # never waits for the file while another thread of this process holds a session and waits for it.
        with self.session() as con, self._access.write_lock:
            cur = con.cursor()
            cur.begin()
            try:
                yield cur
                if bump:
                    cur.execute(BUMP).fetchall()
                cur.commit()
            except BaseException as exc:
                try:
                    cur.rollback()
                except duckdb.Error:  # a COMMIT that failed has already ended the transaction
                    pass
                if isinstance(exc, SAVE_ERRORS) and not store_health.is_damage(exc):
                    raise RankboardError(f"{self.path}: the store could not save this change ({exc}). Nothing "
                                         "was saved. Free memory or disk space (or raise RANKBOARD_MEMORY_LIMIT), "
                                         "or try again if another session was writing.") from exc
                raise
            finally:
                cur.close()
        if bump:
            store_access.write_version_hint(self.path)

    def _query(self, sql: str, params=()) -> pd.DataFrame:
        with self.session() as con:
            cur = con.cursor()
            try:
                return cur.execute(sql, list(params)).df()
            finally:
                cur.close()
