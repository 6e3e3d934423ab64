"""Deleting a collection or a run leaves no row of it in any table of the schema, and touches nothing else.
The tables keyed by each id are listed once (core.store.schema BY_RUN, BY_QRELS, BY_COLLECTION); these tests
read the schema itself, so a table added later without a place in those lists fails here."""
from __future__ import annotations

import gzip

from core.store.schema import BY_COLLECTION, BY_QRELS, BY_RUN
from core.store.store import ROOT
from core.store.diversity import add_diversity_qrels
from core.service.evaluate import evaluate_stored
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store, snapshot

KEYS = {"run_id": BY_RUN, "qrels_id": BY_QRELS, "collection_id": BY_COLLECTION}
SUBTOPICS = b"301 1 FBIS3-10082 1\n301 2 FBIS3-10082 1\n301 1 FBIS3-10169 0\n302 1 FBIS3-10243 1\n"


def tables_with(store, column: str) -> set[str]:
    cur = store.cursor()
    try:
        return {r[0] for r in cur.execute("SELECT table_name FROM information_schema.columns WHERE column_name = ? "
                                          "AND table_name IN (SELECT table_name FROM "
                                          "information_schema.tables WHERE table_type = 'BASE TABLE')",
                                          [column]).fetchall()}
    finally:
        cur.close()


def rows_of(store, ids: dict[str, list[int]]) -> dict[str, int]:
    """table.column -> rows that hold one of `ids[column]`, over every base table with that column."""
    out, cur = {}, store.cursor()
    try:
        for column, values in ids.items():
            for table in sorted(tables_with(store, column)):
                n = cur.execute(f'SELECT count(*) FROM "{table}" WHERE list_contains(?, {column})', [values]).fetchone()[0]
                out[f"{table}.{column}"] = n
    finally:
        cur.close()
    return out


def a_full_collection(store, name: str) -> dict[str, list[int]]:
    """`name` with runs, two qrels sets, a diversity set, topics, documents, a note and cached results; its ids."""
    data = ROOT / "data"
    store.add_qrels(name, data / "qrels.robust03.txt.gz", assessor="nist")
    store.add_qrels(name, data / "qrels.robust03.simulated-B.txt.gz", assessor="B")
    for run in ("input.pircRBa1.gz", "input.aplrob03a.gz"):
        store.add_run(name, data / "runs" / run)
    store.add_topics(name, data / "topics.robust03.txt")
    store.add_documents(name, gzip.compress(b"FBIS3-10082\tsome text\nFBIS3-10169\tmore text\n"), filename="d.tsv")
    add_diversity_qrels(store, name, SUBTOPICS, filename="div.qrels")
    store.set_note(name, "301", "look at this one")
    runs = store.runs(name)
    evaluate_stored(store, name, runs["run_id"].tolist(), ["AP", "P@10"])
    cur = store.cursor()
    try:
        cid = cur.execute("SELECT collection_id FROM collections WHERE name = ?", [name]).fetchone()[0]
        sets = [r[0] for r in cur.execute("SELECT qrels_id FROM qrels_sets WHERE collection_id = ? UNION ALL "
                                          "SELECT qrels_id FROM diversity_sets WHERE collection_id = ?",
                                          [cid, cid]).fetchall()]
    finally:
        cur.close()
    return {"run_id": runs["run_id"].astype(int).tolist(), "qrels_id": sets, "collection_id": [cid]}


def test_the_lists_name_every_table_with_each_key(tmp_path):
    with sample_store(tmp_path) as store:
        for column, listed in KEYS.items():
            assert tables_with(store, column) == set(listed), column


def test_deleting_a_collection_leaves_no_row_of_it_and_keeps_the_others(tmp_path):
    with sample_store(tmp_path) as store:
        evaluate_stored(store, SAMPLE_COLLECTION, store.runs(SAMPLE_COLLECTION)["run_id"].tolist(), ["AP"])
        before = snapshot(store)
        ids = a_full_collection(store, "doomed")
        held = rows_of(store, ids)
        assert all(held[k] > 0 for k in ("runs.run_id", "run_docs.run_id", "results.run_id", "qrels.qrels_id",
                                          "subtopic_qrels.qrels_id", "judged_rows.qrels_id", "topics.collection_id",
                                          "documents.collection_id", "query_notes.collection_id"))
        assert store.delete_collection("doomed") == {"runs": 2, "qrels sets": 2, "topics": 100, "documents": 2,
                                                     "notes": 1}
        assert {k: v for k, v in rows_of(store, ids).items() if v} == {}
        after = snapshot(store)
        before.pop("meta"), after.pop("meta")          # data_version counts the writes
        assert after == before                          # the sample collection is exactly as it was


def test_deleting_a_run_leaves_no_row_of_it(tmp_path):
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)
        victim = int(runs["run_id"].iloc[0])
        evaluate_stored(store, SAMPLE_COLLECTION, [victim], ["AP"])
        assert rows_of(store, {"run_id": [victim]})["results.run_id"] > 0
        store.delete_run(victim)
        assert {k: v for k, v in rows_of(store, {"run_id": [victim]}).items() if v} == {}
        assert len(store.runs(SAMPLE_COLLECTION)) == len(runs) - 1
