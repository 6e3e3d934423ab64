"""The store: one DuckDB file holding collections, runs, qrels sets, topics, documents and notes.

Processes take turns on the file (core/store_access.py): each holds it only inside a session, so the
dashboard, the command line and scripts all use one store; a writer waits its turn. Take a `cursor()` per
thread (a DuckDB connection is not thread-safe). Every write runs in one transaction and bumps
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

from core import ingest, store_access, store_health
from core.errors import RankboardError
from core.formats import read_documents, read_qrels, read_topics
from core.formats._text import source_name
from core.ingest import one
from core.store_schema import MIGRATIONS, RUN_TABLES, SCHEMA, SCHEMA_VERSION, V2_TABLES  # noqa: F401

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT / "data" / "rankboard.duckdb"
SAMPLE_MANIFEST = ROOT / "data" / "sample.json"

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


class Store:
    """A handle on the store file. It holds the file only inside `session()` (and the calls that open one
    themselves), so the dashboard, the command line and scripts share it: see core/store_access.py."""

    def __init__(self, path: Path, access: store_access.Access, wait: float | None = None):
        self.path, self._access, self.wait = path, access, wait

    @classmethod
    def open(cls, path: str | Path | None = None, *, load_sample: bool | None = None, read_only: bool = False,
             wait: float | None = None, linger: float = 0.0) -> "Store":
        """Open (creating if needed) the store. A fresh store gets the sample collection from data/ when
        `load_sample`, which by default is true only for the default store (data/rankboard.duckdb).
        `wait`: seconds to wait for another process's turn ($RANKBOARD_WAIT, else 120); `linger`: seconds
        to keep the file after the last session while no other process wants it (the dashboard's setting)."""
        path = resolve_path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        access = store_access.access(path, _config(path), read_only=read_only, linger=linger)
        store = cls(path, access, wait)
        if read_only:
            with store.session():
                store._check_version()
            return store
        fresh = store._migrate()
        if load_sample is None:
            load_sample = path.resolve() == DEFAULT_PATH.resolve()
        if fresh and load_sample and SAMPLE_MANIFEST.exists():
            store.load_sample()
        return store

    def _check_version(self) -> int:
        cur = self.con.cursor()
        try:
            exists = one(cur, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'")[0]
            row = one(cur, "SELECT value FROM meta WHERE key = 'schema_version'") if exists else None
        finally:
            cur.close()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise RankboardError(f"{self.path}: the store has schema version {version}, newer than this "
                                 f"Rankboard ({SCHEMA_VERSION}). Upgrade Rankboard or use another --store.")
        return version

    def _migrate(self) -> bool:
        """Create or upgrade the schema (after copying the file, see store_health); True when it was empty."""
        with self.session() as con:
            version = self._check_version()
            if version == SCHEMA_VERSION:
                return False
            if version:
                store_health.copy_before_migration(con, self.path, version)
            with self.transaction() as cur:
                if version == 0:
                    cur.execute(SCHEMA).fetchall()
                    cur.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                                [str(SCHEMA_VERSION)]).fetchall()
                    return True
                while version < SCHEMA_VERSION:
                    MIGRATIONS[version](cur)
                    version += 1
                    cur.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(version)]).fetchall()
        return False

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
        with self.session() as con:
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

    def _cid(self, collection) -> int:
        with self.session() as con:
            cur = con.cursor()
            try:
                return ingest.collection_id(cur, collection)
            finally:
                cur.close()

    # -- collections ------------------------------------------------------------------------------
    def collections(self) -> pd.DataFrame:
        return self._query("""
            SELECT c.collection_id, c.name,
                (SELECT count(*) FROM runs r WHERE r.collection_id = c.collection_id) AS n_runs,
                (SELECT count(*) FROM topics t WHERE t.collection_id = c.collection_id) AS n_topics,
                (SELECT count(*) FROM qrels_sets q WHERE q.collection_id = c.collection_id) AS n_qrels_sets,
                (SELECT count(*) FROM documents d WHERE d.collection_id = c.collection_id) AS n_documents,
                c.created_at
            FROM collections c ORDER BY c.collection_id""")

    def create_collection(self, name: str) -> int:
        with self.transaction() as cur:
            return ingest.create_collection(cur, name)

    # -- uploads (each one transaction) -------------------------------------------------------------
    def add_run(self, collection, source, *, filename=None, name=None, on_conflict="error"):
        prepared = ingest.prepare_run(source, filename=filename)     # parse and rank before taking the store
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection, create=True)
            return ingest.add_run(cur, cid, source, filename=filename, name=name, on_conflict=on_conflict,
                                  prepared=prepared)

    def add_qrels(self, collection, source, *, filename=None, assessor=None, judgment_groups=False):
        parsed = read_qrels(source, filename=source_name(source, filename), judgment_groups=judgment_groups)
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection, create=True)
            return ingest.add_qrels(cur, cid, source, filename=filename, assessor=assessor,
                                    judgment_groups=judgment_groups, parsed=parsed)

    def add_topics(self, collection, source, *, filename=None):
        frame = read_topics(source, filename=source_name(source, filename))
        with self.transaction() as cur:
            return ingest.add_topics(cur, ingest.collection_id(cur, collection, create=True), source,
                                     filename=filename, frame=frame)

    def add_documents(self, collection, source, *, filename=None):
        frame = read_documents(source, filename=source_name(source, filename))
        with self.transaction() as cur:
            return ingest.add_documents(cur, ingest.collection_id(cur, collection, create=True), source,
                                        filename=filename, frame=frame)

    # -- reading ------------------------------------------------------------------------------------
    def runs(self, collection) -> pd.DataFrame:
        return self._query("SELECT run_id, name, tag, filename, n_rows, n_topics, depth, uploaded_at, metadata "
                           "FROM runs WHERE collection_id = ? ORDER BY run_id", [self._cid(collection)])

    def qrels_sets(self, collection) -> pd.DataFrame:
        return self._query("""
            SELECT s.qrels_id, s.assessor, s.filename, s.is_default, count(q.qid) AS n_judgments,
                   count(DISTINCT q.qid) AS n_topics
            FROM qrels_sets s LEFT JOIN qrels q USING (qrels_id) WHERE s.collection_id = ?
            GROUP BY ALL ORDER BY s.qrels_id""", [self._cid(collection)])

    def default_qrels_id(self, collection) -> int | None:
        with self.session() as con:
            cur = con.cursor()
            try:
                return ingest.default_qrels_id(cur, ingest.collection_id(cur, collection))
            finally:
                cur.close()

    def qrels(self, qrels_id: int) -> pd.DataFrame:
        return self._query("SELECT qid, docno, rel FROM qrels WHERE qrels_id = ? ORDER BY qid, docno", [qrels_id])

    def run_rows(self, run_id: int) -> pd.DataFrame:
        return self._query("SELECT qid, docno, score, rank FROM run_rows WHERE run_id = ? ORDER BY qid, rank",
                           [run_id])

    def topics(self, collection) -> pd.DataFrame:
        return self._query("SELECT qid, text FROM topics WHERE collection_id = ? ORDER BY qid",
                           [self._cid(collection)])

    def document_text(self, collection, docnos) -> dict[str, str]:
        df = self._query("SELECT docno, text FROM documents WHERE collection_id = ? AND list_contains(?, docno)",
                         [self._cid(collection), list(docnos)])
        return dict(zip(df["docno"], df["text"]))

    # -- editing ------------------------------------------------------------------------------------
    def rename_run(self, run_id: int, new_name: str) -> None:
        with self.transaction() as cur:
            ingest.rename_run(cur, run_id, new_name)

    def delete_run(self, run_id: int) -> None:
        with self.transaction() as cur:
            ingest.delete_run(cur, run_id)

    def get_note(self, collection, qid: str) -> str:
        df = self._query("SELECT note FROM query_notes WHERE collection_id = ? AND qid = ?",
                         [self._cid(collection), str(qid)])
        return "" if df.empty else df["note"].iat[0]

    def set_note(self, collection, qid: str, text: str) -> None:
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection)
            cur.execute("DELETE FROM query_notes WHERE collection_id = ? AND qid = ?", [cid, str(qid)]).fetchall()
            if text.strip():
                cur.execute("INSERT INTO query_notes VALUES (?, ?, ?, now())", [cid, str(qid), text]).fetchall()
