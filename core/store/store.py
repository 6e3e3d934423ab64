"""The store: one DuckDB file holding collections, runs, qrels sets, topics, documents and notes
(docs/architecture.md).

This module opens the file and owns its connection and transactions; what the store holds is read and edited
through the `Catalogue` methods (`core/store/catalogue.py`) that `Store` inherits. Processes take turns on the file
(core/store/access.py). Take a `cursor()` per thread (a DuckDB connection is not thread-safe). Every write runs in
one transaction and bumps `data_version`, so a failed upload leaves nothing behind and readers know when to read
afresh. A store that can only be read opens under an in-memory database (core/store/connections.py `overlay`),
where the results cache lives in memory while the file is held and every other write refuses (core/store/faults.py).
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Callable
from pathlib import Path

import duckdb

from core.store import ingest
from core.store import schema
from core.store import access as store_access
from core.store import health as store_health
from core.store import faults
from core.store.catalogue import Catalogue
from core.store.connections import SessionCursor
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


def _config(path: Path, folder_writable: bool = True) -> dict:
    """DuckDB's settings; a store whose folder cannot be written spills to the temporary folder instead."""
    spill = (path.with_name(path.name + ".tmp") if folder_writable
             else Path(tempfile.gettempdir()) / f"rankboard-{os.getpid()}-{path.name}.tmp")
    return {"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
            "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", "2GB"),
            "temp_directory": str(spill)}


def _cache_in_memory(con) -> None:
    """Over a store that cannot be written (core/store/connections.py `overlay`), make `results` a table of the memory
    database, a copy of the store's, so that the results cache can be written for as long as the file is held."""
    kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_catalog = 'memory' "
                       "AND table_name = 'results'").fetchone()
    if kind and kind[0] == "VIEW":
        con.execute("DROP VIEW results").fetchall()
        con.execute("CREATE TABLE results AS FROM store.results").fetchall()


class Store(Catalogue):
    """A handle on the store file. It holds the file only inside `session()` (and the calls that open one
    themselves), so the dashboard, the command line and scripts share it: see core/store/access.py."""

    def __init__(self, path: Path, access: store_access.Access, wait: float | None = None,
                 read_only_reason: str | None = None):
        self.path, self._access, self.wait = path, access, wait
        self._read_only = read_only_reason or ("requested" if access.read_only else None)
        # called before every write that changes data (not the results cache): the dashboard's access check
        self.write_check: Callable[[], None] | None = None

    @property
    def read_only(self) -> bool:
        """True when this store can only be read: opened read_only, or its file, folder or disk is not writable."""
        return self._read_only is not None

    def read_only_error(self) -> RankboardError:
        """What a write to this read-only store says: "<path>: the store is read-only: <why>. <what to do>"."""
        return faults.read_only_error(self.path, self._read_only or "requested")

    @classmethod
    def open(cls, path: str | Path | None = None, *, load_sample: bool | None = None, read_only: bool = False,
             wait: float | None = None, linger: float = 0.0) -> "Store":
        """Open (creating if needed) the store. A fresh store gets the sample collection from data/ when
        `load_sample`, which by default is true only for the default store (data/rankboard.duckdb).
        `read_only`: share the file with other read-only processes (a distributed engine's workers).
        `wait`: seconds to wait for another process's turn ($RANKBOARD_WAIT, else 120); `linger`: seconds
        to keep the file after the last session while no other process wants it (the dashboard's setting).
        A store that exists but cannot be written is opened read-only (`read_only` is then true); one that
        does not exist and cannot be created raises a ServerFault that names its folder."""
        path = resolve_path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise faults.cannot_create(path, exc) from None
        reason = None if read_only else faults.unwritable(path)
        if reason is not None and not path.exists():
            raise faults.cannot_create(path)
        config = _config(path, folder_writable=reason not in ("folder", "filesystem"))
        access = store_access.access(path, config, read_only=read_only, linger=linger, overlay=reason is not None)
        store = cls(path, access, wait, reason)
        if store.read_only:
            with store.session() as con:
                version = schema.check_version(con, path)
            if reason is not None and version != schema.SCHEMA_VERSION:
                raise faults.read_only_error(path, reason, doing=f"It needs an upgrade (schema {version} to "
                                                                 f"{schema.SCHEMA_VERSION}), which writes to it")
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
    def session(self, timeout: float | None = None):
        """Hold the store file for the block (waiting for another process's turn if need be, `timeout` seconds
        at most: default the store's wait); yields the connection. Sessions nest, and a thread's calls inside one
        reuse it. A damaged file becomes a StoreDamagedError that says what to do."""
        try:
            with self._access.session(self.wait if timeout is None else timeout) as con:
                yield con
        except duckdb.Error as exc:
            if store_health.is_damage(exc):
                raise store_health.damaged(self.path, exc) from None
            raise

    def cursor(self):
        """A fresh cursor, which holds the store (a session of its own) until it is closed: close it promptly."""
        return SessionCursor(self.session())

    def data_version(self, timeout: float | None = None) -> int:
        """A number that every committed write (not the results cache) increases: key caches on it. `timeout`:
        the seconds to wait for the store (default: the store's wait); past it, StoreBusyError."""
        with self.session(timeout) as con, con.cursor() as cur:
            row = one(cur, "SELECT value FROM meta WHERE key = 'data_version'")
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
        write conflict with another session, become a RankboardError; a full disk a ServerFault, after which the
        space the write took is given back. A read-only store refuses a write that bumps; the results cache of
        one lives in memory (`_cache_in_memory`). `write_check`, when set, is asked first (the dashboard's access
        check)."""
        if bump and self.write_check is not None:
            self.write_check()
        if bump and self.read_only:
            raise self.read_only_error()
        # The write lock is taken inside the session (never the other way round), so a thread that holds it
        # never waits for the file while another thread of this process holds a session and waits for it.
        with self.session() as con, self._access.write_lock:
            if self._access.overlay:     # the results cache, in memory only (the file cannot change)
                _cache_in_memory(con)
            cur = con.cursor()
            cur.begin()
            try:
                yield cur
                if bump:
                    cur.execute(BUMP).fetchall()
                cur.commit()
            except BaseException as exc:
                with suppress(duckdb.Error):  # a COMMIT that failed has already ended the transaction
                    cur.rollback()
                self._raise_fault(exc)
                if isinstance(exc, SAVE_ERRORS) and not store_health.is_damage(exc):
                    raise RankboardError(f"{self.path}: the store could not save this change ({exc}). Nothing "
                                         "was saved. Free memory or disk space (or raise RANKBOARD_MEMORY_LIMIT), "
                                         "or try again if another session was writing.") from exc
                raise
            finally:
                cur.close()
        if bump:
            try:
                store_access.write_version_hint(self.path)
            except OSError as exc:     # a hint only: the data is saved, and readers key on data_version
                store_access.LOG.warning("store %s: could not write the version hint: %s", self.path, exc)

    def _raise_fault(self, exc: BaseException) -> None:
        """(inside the failed transaction's session) A full disk or a store that cannot be written, in words; for a
        full disk, the space the write took is given back once this process lets go of the file."""
        if isinstance(exc, RankboardError) or not isinstance(exc, (OSError, duckdb.Error)):
            return
        fault = faults.store_fault(exc, self.path)
        if fault is None:
            return
        if faults.kind(exc)[0] == faults.FULL:
            self._access.give_back_space()
        raise fault from exc

    def _query(self, sql: str, params=()) -> pd.DataFrame:
        with self.cursor() as cur:
            return cur.execute(sql, list(params)).df()
