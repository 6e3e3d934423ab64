"""The store's schema: the DDL of every table, the schema version, and the migrations between versions.

`migrate(cur, path)` creates the schema in an empty store or upgrades an older one, inside the
caller's transaction (`Store.open` runs it). A store newer than this code is refused.
"""
from __future__ import annotations

from core.errors import RankboardError
from core.db.sqltext import one
from core.store.lineage import fill_from_headers

SCHEMA_VERSION = 7

# Schema 2: what stored evaluation reads, kept up to date by every write that changes it (core/store/ingest.py).
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

# Schema 4: subtopic (diversity) qrels sets, `qid subtopic docno rel` as ndeval reads them (core/service/diversity.py).
# A qrels set of their own kind: their ids come from qrels_ids, but they are not rows of qrels_sets, so nothing that
# reads relevance qrels (judged_rows, agreement, judges, the default set) sees them. `line` keeps the file's order,
# which numbers the subtopics as pyndeval does.
DIVERSITY_TABLES = [
    """CREATE TABLE IF NOT EXISTS diversity_sets(qrels_id INTEGER PRIMARY KEY, collection_id INTEGER, assessor VARCHAR,
    filename VARCHAR, created_at TIMESTAMP);""",
    "CREATE TABLE IF NOT EXISTS subtopic_qrels(qrels_id INTEGER, line INTEGER, qid VARCHAR, subtopic VARCHAR, "
    "docno VARCHAR, rel INTEGER);",
]

# Schema 5: a run's lineage and cost, `key=value` rows (core/formats/lineage.py declares the reserved keys: system,
# version, timestamp and the cost keys; any other key is free). One row per (run, key); the value is text, numbers
# and timestamps as core/formats/lineage.py `check_value` normalised them (core/store/lineage.py reads and writes).
LINEAGE_TABLES = [
    "CREATE TABLE IF NOT EXISTS run_meta(run_id INTEGER, key VARCHAR, value VARCHAR);",
]

# Schema 6: per-query scores imported from other tools (core/store/scores.py), kept apart from the results cache of
# computed measures and never recomputed. `source` says where they come from ("trec_eval -q", or the user's words).
# A run that has only imported scores (RAG answers, say) is a `runs` row with n_rows 0 and no run_topics.
SCORES_TABLES = [
    "CREATE TABLE IF NOT EXISTS imported_scores(run_id INTEGER, qid VARCHAR, measure VARCHAR, value DOUBLE, "
    "source VARCHAR);",
]

# Schema 7: RAG nuggets (core/store/nuggets.py): a collection's nuggets per topic, and each run's assignment of
# them (support, partial_support, not_support, failed); their scores are imported scores, source "nuggets".
NUGGET_TABLES = [
    "CREATE TABLE IF NOT EXISTS nuggets(collection_id INTEGER, qid VARCHAR, nugget INTEGER, text VARCHAR, "
    "importance VARCHAR);",
    "CREATE TABLE IF NOT EXISTS nugget_assignments(run_id INTEGER, qid VARCHAR, nugget INTEGER, assignment VARCHAR);",
]

# The tables keyed by each id, for deleting (core/store/edits.py, ingest.delete_run): every table of the schema
# that holds a run_id, qrels_id or collection_id column is listed under that id (tests/store/test_store.py checks
# the lists against the schema, and that deleting a collection leaves no row of it in any table).
BY_RUN = ("results", "imported_scores", "nugget_assignments", "judged_rows", "run_topics", "run_docs", "run_meta",
          "runs")
BY_QRELS = ("results", "judged_rows", "qrels", "subtopic_qrels", "qrels_sets", "diversity_sets")
BY_COLLECTION = ("runs", "qrels_sets", "diversity_sets", "topics", "documents", "query_notes", "nuggets",
                 "collections")

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
""" + "\n".join(DIVERSITY_TABLES + LINEAGE_TABLES + SCORES_TABLES + NUGGET_TABLES)


def _creating(tables: list[str]):
    """A migration that adds these tables."""
    def add(cur) -> None:
        for create in tables:
            cur.execute(create).fetchall()
    return add


def _v1_to_v2(cur) -> None:
    """Add run_topics and judged_rows, filled from the stored run rows (their rank is already canonical)."""
    _creating(V2_TABLES)(cur)
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


def _add_run_meta(cur) -> None:
    """Add run_meta, the runs' lineage and cost metadata, filled from each stored run's ir_metadata header (kept in
    runs.metadata); a run's timestamp defaults to its upload time when read."""
    _creating(LINEAGE_TABLES)(cur)
    fill_from_headers(cur)


# MIGRATIONS[v] upgrades a store at schema version v to v + 1 (run inside the open transaction): schema 4 adds the
# diversity tables, 6 the imported scores, 7 the nuggets.
MIGRATIONS: dict[int, callable] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _creating(DIVERSITY_TABLES), 4: _add_run_meta,
                                  5: _creating(SCORES_TABLES), 6: _creating(NUGGET_TABLES)}


def check_version(cur, path) -> int:
    """The store's schema version (0 for an empty file); a store newer than this code is refused."""
    exists = one(cur, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'")[0]
    version = 0
    if exists:
        row = one(cur, "SELECT value FROM meta WHERE key = 'schema_version'")
        version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise RankboardError(f"{path}: the store has schema version {version}, newer than this "
                             f"Rankboard ({SCHEMA_VERSION}). Upgrade Rankboard or use another --store.")
    return version


def migrate(cur, path) -> bool:
    """Create or upgrade the schema of the store at `path` through `cur` (inside a transaction);
    True when the store was empty."""
    version = check_version(cur, path)
    if version == 0:
        cur.execute(SCHEMA).fetchall()
        cur.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]).fetchall()
        return True
    while version < SCHEMA_VERSION:
        MIGRATIONS[version](cur)
        version += 1
        cur.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(version)]).fetchall()
    return False
