"""Subtopic (diversity) qrels sets in the store.

    from core.store.diversity import add_diversity_qrels, diversity_sets
    qid = add_diversity_qrels(store, "web2011", "qrels.div.txt")          # one transaction

A diversity set is a qrels set of its own kind (tables diversity_sets and subtopic_qrels): its id comes from the
same sequence as the relevance qrels sets, but nothing that reads relevance qrels sees it. Evaluating stored runs
against one is core.service.diversity.evaluate_stored_diversity.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from core.engine.diversity import SINGLE
from core.errors import Problem, UploadError
from core.formats import source_name
from core.formats.subtopics import ParsedSubtopics, read_subtopic_qrels
from core.store import ingest
from core.db.sqltext import one, registered, statement

__all__ = ["add_diversity_qrels", "insert_diversity_qrels", "diversity_sets", "frame"]


def add_diversity_qrels(store, collection, source, *, filename: str | None = None,
                        assessor: str | None = None) -> ingest.IngestReport:
    """Parse a subtopic qrels file, then store it as a new diversity set of `collection` (created if new), in one
    transaction; the report's id is its qrels id. A bad file raises UploadError and changes nothing."""
    file = source_name(source, filename)
    parsed = read_subtopic_qrels(source, filename=file)
    with store.transaction() as cur:
        return insert_diversity_qrels(cur, ingest.collection_id(cur, collection, create=True), parsed, file, assessor)


def insert_diversity_qrels(cur, cid: int, parsed: ParsedSubtopics, file: str,
                           assessor: str | None = None) -> ingest.IngestReport:
    """Insert an already parsed subtopic qrels file as a diversity set of collection `cid`, on a cursor inside the
    caller's transaction (`python -m core load --diversity-qrels` loads it with the other files)."""
    who = assessor or Path(file).name.removesuffix(".gz")
    if one(cur, "SELECT 1 FROM diversity_sets WHERE collection_id = ? AND assessor = ?", [cid, who]):
        raise UploadError(Problem(file, None, f"the collection already has diversity qrels by assessor '{who}'",
                                  "Give these judgments a different assessor name"))
    qrels_id = one(cur, "INSERT INTO diversity_sets VALUES (nextval('qrels_ids'), ?, ?, ?, now()) "
                        "RETURNING qrels_id", [cid, who, file])[0]
    table = parsed.table.append_column("line", pa.array(range(parsed.n_rows), pa.int32()))
    with registered(cur, table) as view:
        cur.execute(statement("INSERT INTO subtopic_qrels SELECT ?, line, qid, subtopic, docno, rel FROM {view}",
                              view=view), [qrels_id]).fetchall()
    warnings = [SINGLE.format(file=file)] if parsed.single_subtopic() else []
    return ingest.IngestReport(qrels_id, parsed.n_rows, warnings, who, [qrels_id])


def frame(store, sql: str, params) -> pd.DataFrame:
    return store._query(sql, params)


def diversity_sets(store, collection) -> pd.DataFrame:
    """qrels_id, assessor, filename, n_judgments, n_topics, n_subtopics (distinct (topic, subtopic) pairs)."""
    return store._query("""SELECT s.qrels_id, s.assessor, s.filename, count(q.qid) AS n_judgments,
            count(DISTINCT q.qid) AS n_topics, count(DISTINCT (q.qid, q.subtopic)) AS n_subtopics
        FROM diversity_sets s LEFT JOIN subtopic_qrels q USING (qrels_id) WHERE s.collection_id = ?
        GROUP BY ALL ORDER BY s.qrels_id""", [store._cid(collection)])
