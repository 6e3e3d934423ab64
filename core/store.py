"""The store: one DuckDB file holding collections, runs, qrels sets, topics, documents and notes.

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

from core import ingest
from core.errors import RankboardError
from core.ingest import one

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT / "data" / "rankboard.duckdb"
SAMPLE_MANIFEST = ROOT / "data" / "sample.json"
SAMPLE_MANIFESTS = (SAMPLE_MANIFEST, ROOT / "data" / "sample_llmjudge.json")   # a fresh store loads each that exists
SCHEMA_VERSION = 3

# Schema 2: what stored evaluation reads, kept up to date by every write that changes it (core/ingest.py).
# (As created by the 1 -> 2 migration; schema 3 adds run_topics.topic.)
V2_TABLES = [
    # documents retrieved per topic of each run
    "CREATE TABLE IF NOT EXISTS run_topics(run_id INTEGER, qid VARCHAR, n INTEGER);",
    # the judged retrieved documents of each run under each qrels set of its collection (any grade)
    "CREATE TABLE IF NOT EXISTS judged_rows(run_id INTEGER, qrels_id INTEGER, qid VARCHAR, rank INTEGER, rel INTEGER);",
]

# Schema 3: a run's rows are stored with an integer topic (its index in run_topics) instead of the qid string,
# and `run_rows` is a view that joins the qid back, so every reader still sees (run_id, qid, docno, score, rank).
RUN_TABLES = [
    # documents retrieved per topic of each run; `topic` numbers the run's topics 0, 1, ... (run_docs.topic)
    "CREATE TABLE IF NOT EXISTS run_topics(run_id INTEGER, qid VARCHAR, n INTEGER, topic INTEGER);",
    V2_TABLES[1],
    # run_docs names each column's compression, so DuckDB does not try every method per column. The docnos
    # are stored uncompressed: a 5M-line run then takes 95 MB instead of 53 MB (its text file is 186 MB), and
    # writing it takes 0.2 s instead of 0.55 s, because FSST-compressing millions of distinct strings (and the
    # qid strings) was most of the write.
    """CREATE TABLE IF NOT EXISTS run_docs(run_id INTEGER USING COMPRESSION rle, topic INTEGER USING COMPRESSION rle,
    docno VARCHAR USING COMPRESSION uncompressed, score DOUBLE USING COMPRESSION alp,
    rank INTEGER USING COMPRESSION bitpacking);""",
    """CREATE OR REPLACE VIEW run_rows AS SELECT d.run_id, t.qid, d.docno, d.score, d.rank
    FROM run_docs d JOIN run_topics t ON t.run_id = d.run_id AND t.topic = d.topic;""",
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE SEQUENCE IF NOT EXISTS collection_ids START 1;
CREATE SEQUENCE IF NOT EXISTS qrels_ids START 1;
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;
CREATE TABLE IF NOT EXISTS collections(collection_id INTEGER PRIMARY KEY, name VARCHAR UNIQUE, created_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS qrels_sets(qrels_id INTEGER PRIMARY KEY, collection_id INTEGER, assessor VARCHAR,
    filename VARCHAR, is_default BOOLEAN, created_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS qrels(qrels_id INTEGER, qid VARCHAR, docno VARCHAR, rel INTEGER);
CREATE TABLE IF NOT EXISTS topics(collection_id INTEGER, qid VARCHAR, text VARCHAR);
CREATE TABLE IF NOT EXISTS documents(collection_id INTEGER, docno VARCHAR, text VARCHAR);
CREATE TABLE IF NOT EXISTS runs(run_id INTEGER PRIMARY KEY, collection_id INTEGER, name VARCHAR, tag VARCHAR,
    filename VARCHAR, metadata VARCHAR, n_rows BIGINT, n_topics INTEGER, depth INTEGER, uploaded_at TIMESTAMP);
""" + "\n".join(RUN_TABLES) + """
CREATE TABLE IF NOT EXISTS results(run_id INTEGER, qrels_id INTEGER, options VARCHAR, qid VARCHAR,
    measure VARCHAR, value DOUBLE);
CREATE TABLE IF NOT EXISTS query_notes(collection_id INTEGER, qid VARCHAR, note VARCHAR, updated_at TIMESTAMP);
"""

# Errors of the environment, not of the data: out of memory, disk full, a write conflict.
SAVE_ERRORS = (duckdb.OutOfMemoryException, duckdb.IOException, duckdb.TransactionException)

def _v1_to_v2(cur) -> None:
    """Add run_topics and judged_rows, filled from the stored run rows (their rank is already canonical)."""
    for create in V2_TABLES:
        cur.execute(create).fetchall()
    cur.execute("INSERT INTO run_topics SELECT run_id, qid, count(*) FROM run_rows GROUP BY run_id, qid").fetchall()
    cur.execute("""INSERT INTO judged_rows SELECT r.run_id, q.qrels_id, r.qid, r.rank, q.rel
        FROM run_rows r JOIN runs USING (run_id) JOIN qrels_sets s ON s.collection_id = runs.collection_id
        JOIN qrels q ON q.qrels_id = s.qrels_id AND q.qid = r.qid AND q.docno = r.docno""").fetchall()


def _v2_to_v3(cur) -> None:
    """Number each run's topics in run_topics and move run_rows (a table until schema 3) to run_docs."""
    cur.execute("""CREATE TABLE run_topics_v3 AS SELECT run_id, qid, n,
        CAST(row_number() OVER (PARTITION BY run_id ORDER BY qid) - 1 AS INTEGER) AS topic FROM run_topics""").fetchall()
    cur.execute("DROP TABLE run_topics").fetchall()
    cur.execute("ALTER TABLE run_topics_v3 RENAME TO run_topics").fetchall()
    cur.execute(RUN_TABLES[2]).fetchall()
    cur.execute("""INSERT INTO run_docs SELECT r.run_id, t.topic, r.docno, r.score, r.rank
        FROM run_rows r JOIN run_topics t ON t.run_id = r.run_id AND t.qid = r.qid""").fetchall()
    cur.execute("DROP TABLE run_rows").fetchall()
    cur.execute(RUN_TABLES[3]).fetchall()


# MIGRATIONS[v] upgrades a store at schema version v to v + 1 (run inside the open transaction).
MIGRATIONS: dict[int, callable] = {1: _v1_to_v2, 2: _v2_to_v3}


def resolve_path(path: str | Path | None = None) -> Path:
    """--store PATH, else $RANKBOARD_STORE, else data/rankboard.duckdb."""
    return Path(path or os.environ.get("RANKBOARD_STORE") or DEFAULT_PATH)


class Store:
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
        """Create or upgrade the schema; True when the store was empty."""
        with self.transaction() as cur:
            exists = one(cur, "SELECT count(*) FROM information_schema.tables "
                                 "WHERE table_name = 'meta'")[0]
            version = 0
            if exists:
                row = one(cur, "SELECT value FROM meta WHERE key = 'schema_version'")
                version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise RankboardError(f"{self.path}: the store has schema version {version}, newer than this "
                                     f"Rankboard ({SCHEMA_VERSION}). Upgrade Rankboard or use another --store.")
            if version == 0:
                cur.execute(SCHEMA).fetchall()
                cur.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]).fetchall()
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

    def _cid(self, collection) -> int:
        cur = self.cursor()
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
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection, create=True)
            return ingest.add_run(cur, cid, source, filename=filename, name=name, on_conflict=on_conflict)

    def add_qrels(self, collection, source, *, filename=None, assessor=None, judgment_groups=False):
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection, create=True)
            return ingest.add_qrels(cur, cid, source, filename=filename, assessor=assessor,
                                    judgment_groups=judgment_groups)

    def add_topics(self, collection, source, *, filename=None):
        with self.transaction() as cur:
            return ingest.add_topics(cur, ingest.collection_id(cur, collection, create=True), source, filename=filename)

    def add_documents(self, collection, source, *, filename=None):
        with self.transaction() as cur:
            return ingest.add_documents(cur, ingest.collection_id(cur, collection, create=True), source,
                                        filename=filename)

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
        cur = self.cursor()
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
