"""Imported per-query scores in the store: their own table, runs with scores only, the prefix of a clashing name,
replacing, renaming and deleting with their run, the migration, and a failed load that changes nothing."""
from __future__ import annotations

import pytest

from core.errors import UploadError
from core.service.evaluate import evaluate_stored
from core.store import schema as schema_mod
from core.store import scores as store_scores
from core.store.store import Store
from tests.fixtures_store import SAMPLE_COLLECTION, fresh_store, sample_store, snapshot

JUDGE = b"run,qid,measure,value\nMU03rob01,303,judge,0.5\nMU03rob01,307,judge,0.25\nrag,303,judge,1\nrag,307,judge,0\n"


def test_scores_attach_to_a_stored_run_and_add_a_run_with_scores_only(tmp_path):
    with sample_store(tmp_path) as store:
        before = store.runs(SAMPLE_COLLECTION)
        rep = store.add_scores(SAMPLE_COLLECTION, JUDGE, filename="judge.csv", label="gpt judge")
        runs = store.runs(SAMPLE_COLLECTION)
        assert rep.new_runs == ["rag"] and rep.runs["MU03rob01"] in set(before["run_id"])
        rag = runs[runs["name"] == "rag"].iloc[0]
        assert (rag["n_rows"], rag["n_topics"], rag["filename"]) == (0, 2, "judge.csv")
        got = store.imported_scores([rep.runs["MU03rob01"], rep.runs["rag"]])
        assert got[["qid", "measure", "value", "source"]].values.tolist() == [
            ["303", "judge", 0.5, "gpt judge"], ["307", "judge", 0.25, "gpt judge"],
            ["303", "judge", 1.0, "gpt judge"], ["307", "judge", 0.0, "gpt judge"]]
        assert store.imported_measures(SAMPLE_COLLECTION).values.tolist() == [["judge", "gpt judge", 2]]
        cur = store.cursor()
        assert cur.execute("SELECT count(*) FROM results").fetchone()[0] == 0     # never the results cache
        assert cur.execute("SELECT count(*) FROM run_topics WHERE run_id = ?", [int(rag["run_id"])]).fetchone()[0] == 0


def test_a_name_rankboard_computes_gets_the_prefix_and_the_user_is_told(tmp_path):
    with fresh_store(tmp_path) as store:
        rep = store.add_scores("c", b"map 301 0.5\nP_10 301 0.1\nmine 301 2\nrunid all sys\n", filename="t.txt")
        assert rep.measures == ["imported:map", "imported:P_10", "mine"]
        assert rep.warnings == [
            "Rankboard computes a measure named 'map' itself, so the imported one is stored as 'imported:map'.",
            "Rankboard computes a measure named 'P_10' itself, so the imported one is stored as 'imported:P_10'."]
        assert store.imported_measures("c")["source"].unique().tolist() == ["trec_eval -q"]


def test_loading_again_replaces_and_the_scores_follow_their_run(tmp_path):
    with fresh_store(tmp_path) as store:
        store.add_scores("c", b"x 1 0.5\nx 2 0.5\n", filename="a.txt")
        rep = store.add_scores("c", b"x 1 0.75\nx 2 0.25\n", filename="a.txt")
        assert rep.warnings == ["1 (run, measure) pair already had imported scores; the new values replace them."]
        rid = rep.runs["a"]
        assert store.imported_scores([rid])["value"].tolist() == [0.75, 0.25]
        store.rename_run(rid, "b")
        res = evaluate_stored(store, "c", [rid], ["x"])
        assert res.summary.values.tolist() == [["b", "x", 0.5]] and res.imported == {"x": "trec_eval -q"}
        store.delete_run(rid)
        assert store.cursor().execute("SELECT count(*) FROM imported_scores").fetchone()[0] == 0


def test_deleting_the_collection_leaves_no_score(tmp_path):
    with fresh_store(tmp_path) as store:
        store.add_scores("c", b"x 1 0.5\n", filename="a.txt")
        store.delete_collection("c")
        assert store.cursor().execute("SELECT count(*) FROM imported_scores").fetchone()[0] == 0


def test_a_failed_load_changes_nothing(tmp_path, monkeypatch):
    with sample_store(tmp_path) as store:
        before = snapshot(store)
        with pytest.raises(UploadError):
            store.add_scores(SAMPLE_COLLECTION, b"map 301 0.5\nmap 301 0.5\n", filename="bad.txt")
        assert snapshot(store) == before

        def broken(*args, **kw):            # fails after the new run's row is written, inside the transaction
            raise RuntimeError("disk gone")
        monkeypatch.setattr(store_scores, "statement", broken)
        with pytest.raises(RuntimeError):
            store.add_scores(SAMPLE_COLLECTION, JUDGE, filename="judge.csv")
        monkeypatch.undo()
        assert snapshot(store) == before


def test_migration_from_schema_4_adds_the_table(tmp_path):
    path = tmp_path / "old.duckdb"
    Store.open(path, load_sample=False).close()
    import duckdb
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE imported_scores")
    con.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    con.close()
    with Store.open(path, load_sample=False) as store:
        cur = store.cursor()
        assert cur.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(
            schema_mod.SCHEMA_VERSION)
        assert cur.execute("SELECT count(*) FROM imported_scores").fetchone()[0] == 0
