"""The store: persistence across reopen, schema version and migrations, the sample collection,
the canonical trec_eval rank, editing runs, notes, documents and per-thread cursors."""
from __future__ import annotations

import gzip
import threading

import pandas as pd
import pytest

import core.store.schema as schema_mod
import core.store.store as store_mod
from core.errors import EvalError, RankboardError
from core.store.store import Store, resolve_path
from tests.cases.reference import reference_file, robust_run
from tests.fixtures_store import SAMPLE_COLLECTION, fresh_store, sample_store, snapshot


def test_sample_collection_is_loaded_on_a_fresh_store(tmp_path):
    with Store.open(tmp_path / "s.duckdb", load_sample=True) as store:
        cols = store.collections()
        assert cols[["name", "n_runs", "n_topics", "n_qrels_sets"]].values.tolist() == [
            [SAMPLE_COLLECTION, 5, 100, 2], ["dl23-llmjudge", 6, 25, 7]]      # the second: for the Judges page
        llm = store.qrels_sets("dl23-llmjudge")
        assert llm["assessor"].tolist()[:2] == ["NIST", "willia-umbrela1"] and set(llm["n_judgments"]) == {4423}
        assert set(store.runs("dl23-llmjudge")["name"].str.startswith("simulated-")) == {True}
        runs = store.runs(SAMPLE_COLLECTION)
        assert list(runs.name) == ["pircRBa1", "aplrob03a", "UIUC03Rd1", "MU03rob01", "humR03dc"]
        assert set(runs.n_rows) == {10000} and set(runs.depth) == {100} and set(runs.n_topics) == {100}
        sets = store.qrels_sets(SAMPLE_COLLECTION)
        assert sets[["assessor", "is_default", "n_judgments", "n_topics"]].values.tolist() == [
            ["NIST", True, 128796, 100], ["simulated-B", False, 128796, 100]]
        assert store.topics(SAMPLE_COLLECTION).set_index("qid").text["303"] == "Hubble Telescope Achievements"


def test_written_closed_reopened_store_holds_the_same_data(tmp_path):
    store = sample_store(tmp_path)
    store.add_documents(SAMPLE_COLLECTION, b"LA052890-0021\tSome text\n", filename="docs.tsv")
    store.set_note(SAMPLE_COLLECTION, "303", "hard topic")
    before = snapshot(store)
    store.close()
    with Store.open(tmp_path / "sample.duckdb") as again:
        assert snapshot(again) == before
        assert again.get_note(SAMPLE_COLLECTION, "303") == "hard topic"
        assert again.collections().name.tolist() == [SAMPLE_COLLECTION, "dl23-llmjudge"]  # not loaded twice


def test_canonical_rank_is_trec_eval_order(tmp_path):
    """rank = position by score desc, then docno desc (byte order), per topic; MU03rob01 is full of ties."""
    path = robust_run("MU03rob01")
    with fresh_store(tmp_path) as store:
        run_id = store.add_run("c", path).id
        got = store.run_rows(run_id)
    raw = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, names=["qid", "q0", "docno", "r", "score", "tag"])
    raw["score"] = raw["score"].astype(float)
    raw["docbytes"] = raw["docno"].map(lambda d: d.encode())
    expect = raw.sort_values(["qid", "score", "docbytes"], ascending=[True, False, False], kind="stable")
    expect["rank"] = expect.groupby("qid").cumcount() + 1
    merged = got.merge(expect[["qid", "docno", "rank"]], on=["qid", "docno"], suffixes=("", "_expect"))
    assert len(merged) == len(got) == 100000
    assert (merged["rank"] == merged["rank_expect"]).all()
    assert (raw["r"].astype(int).values != expect.sort_index()["rank"].values).any()  # the file's ranks differ


def test_sample_runs_are_the_top_100_of_the_official_runs(tmp_path):
    with fresh_store(tmp_path) as store:
        full = store.add_run("c", robust_run("MU03rob01")).id
        cut = store.add_run("c", store_mod.ROOT / "data/runs/input.MU03rob01.gz", name="cut").id
        top = store.run_rows(full).query("rank <= 100").sort_values(["qid", "rank"]).reset_index(drop=True)
        assert top.equals(store.run_rows(cut).sort_values(["qid", "rank"]).reset_index(drop=True))


def test_schema_version_and_migration_hook(tmp_path, monkeypatch):
    path = tmp_path / "m.duckdb"
    Store.open(path, load_sample=False).close()
    now = schema_mod.SCHEMA_VERSION                      # a stand-in migration to the next version
    monkeypatch.setattr(schema_mod, "SCHEMA_VERSION", now + 1)
    monkeypatch.setitem(schema_mod.MIGRATIONS, now,
                        lambda cur: cur.execute("ALTER TABLE runs ADD COLUMN description VARCHAR").fetchall())
    with Store.open(path) as store:
        cur = store.cursor()
        assert cur.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [(str(now + 1),)]
        assert "description" in [r[0] for r in cur.execute("DESCRIBE runs").fetchall()]
    monkeypatch.setattr(schema_mod, "SCHEMA_VERSION", now)
    with pytest.raises(RankboardError, match=f"schema version {now + 1}, newer than this Rankboard"):
        Store.open(path)


def test_store_path_resolution(tmp_path, monkeypatch):
    monkeypatch.delenv("RANKBOARD_STORE", raising=False)
    assert resolve_path(None) == store_mod.ROOT / "data" / "rankboard.duckdb"
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "env.duckdb"))
    assert resolve_path(None) == tmp_path / "env.duckdb"
    assert resolve_path(tmp_path / "flag.duckdb") == tmp_path / "flag.duckdb"
    Store.open(load_sample=False).close()
    assert (tmp_path / "env.duckdb").exists()


def add_results(store, run_id):
    cur = store.cursor()
    cur.execute("INSERT INTO results VALUES (?, 1, '', '303', 'AP', 0.5)", [run_id]).fetchall()


def count_results(store, run_id):
    return store.cursor().execute("SELECT count(*) FROM results WHERE run_id = ?", [run_id]).fetchall()[0][0]


def test_delete_and_replace_drop_rows_and_cached_results(tmp_path):
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION).set_index("name").run_id
        add_results(store, int(runs["humR03dc"]))
        store.delete_run(int(runs["humR03dc"]))
        assert count_results(store, int(runs["humR03dc"])) == 0
        assert store.run_rows(int(runs["humR03dc"])).empty
        assert "humR03dc" not in set(store.runs(SAMPLE_COLLECTION).name)
        old = int(runs["MU03rob01"])
        add_results(store, old)
        new = store.add_run(SAMPLE_COLLECTION, store_mod.ROOT / "data/runs/input.MU03rob01.gz", on_conflict="replace")
        assert new.id != old and count_results(store, old) == 0 and store.run_rows(old).empty
        assert list(store.runs(SAMPLE_COLLECTION).name).count("MU03rob01") == 1


def test_rename_run(tmp_path):
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION).set_index("name").run_id
        store.rename_run(int(runs["pircRBa1"]), "pirc")
        assert "pirc" in set(store.runs(SAMPLE_COLLECTION).name)
        with pytest.raises(EvalError, match="A run named 'aplrob03a' already exists"):
            store.rename_run(int(runs["pircRBa1"]), "aplrob03a")
        with pytest.raises(EvalError, match="Unknown run id 999"):
            store.delete_run(999)


def test_qrels_sets_default_and_judgment_groups(tmp_path):
    with fresh_store(tmp_path) as store:
        rep = store.add_qrels("te", reference_file("trec_eval_test/qrels.123.gz"), assessor="g", judgment_groups=True)
        sets = store.qrels_sets("te")
        assert sets[["assessor", "is_default", "n_judgments"]].values.tolist() == [
            ["g-jg0", True, 3681], ["g-jg1", False, 3681], ["g-jg2", False, 3000]]
        assert rep.ids == sets.qrels_id.tolist() and store.default_qrels_id("te") == rep.ids[0]
        assert store.qrels(rep.ids[0]).rel.min() == -1


def test_topics_documents_and_notes(tmp_path):
    with fresh_store(tmp_path) as store:
        store.add_topics("c", b"1\tfirst\n2\tsecond\n", filename="t.tsv")
        rep = store.add_topics("c", b'{"qid": "2", "text": "second, edited"}\n', filename="t.jsonl")
        assert rep.warnings == ["1 existing topics were replaced by the new text."]
        assert store.topics("c").values.tolist() == [["1", "first"], ["2", "second, edited"]]
        store.add_documents("c", gzip.compress(b"d1\tone\nd2\ttwo\n"), filename="docs")
        assert store.document_text("c", ["d2", "zz"]) == {"d2": "two"}
        assert store.get_note("c", "1") == ""
        store.set_note("c", "1", "look at this")
        store.set_note("c", "1", "edited")
        assert store.get_note("c", 1) == "edited"
        store.set_note("c", "1", "")
        assert store.get_note("c", "1") == ""
        with pytest.raises(EvalError, match="Unknown collection 'nope'"):
            store.topics("nope")


def test_transaction_rolls_back_and_cursors_work_across_threads(tmp_path):
    with sample_store(tmp_path) as store:
        with pytest.raises(RuntimeError):
            with store.transaction() as cur:
                cur.execute("DELETE FROM run_docs").fetchall()
                raise RuntimeError("boom")
        totals, errors = [], []

        def read():
            try:
                cur = store.cursor()
                totals.append(cur.execute("SELECT count(*) FROM run_rows").fetchall()[0][0])
                cur.close()
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)
        threads = [threading.Thread(target=read) for _ in range(6)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        assert errors == [] and totals == [57500] * 6   # robust03-sample 5 x 10,000 + dl23-llmjudge 6 x 1,250


def test_out_of_memory_or_disk_in_a_write_is_a_readable_error_and_rolls_back(tmp_path):
    import duckdb
    with fresh_store(tmp_path) as store:
        store.add_qrels("c", b"301 0 d1 1\n", filename="q.txt")
        before = snapshot(store)
        full = duckdb.IOException(f'IO Error: Could not write file "{store.path}": No space left on device')
        for exc in (full, duckdb.OutOfMemoryException("could not allocate")):
            with pytest.raises(RankboardError) as info:
                with store.transaction() as cur:
                    cur.execute("DELETE FROM qrels").fetchall()
                    raise exc
            if exc is full:     # the disk has its own message (core/store/faults.py), naming the folder to free
                assert str(info.value) == (f"{store.path}: the disk holding the store is full (no space left in "
                                           f"{tmp_path}). Nothing was saved. Free space in {tmp_path}, or pass "
                                           "--store PATH to a store on a disk with room.")
            else:
                assert str(info.value) == (f"{store.path}: the store could not save this change ({exc}). Nothing "
                                           "was saved. Free memory or disk space (or raise RANKBOARD_MEMORY_LIMIT), "
                                           "or try again if another session was writing.")
            assert snapshot(store) == before
        with pytest.raises(ZeroDivisionError):  # a bug is not disguised as a storage problem
            with store.transaction():
                1 / 0


def test_a_write_conflict_between_two_sessions_is_a_readable_error(tmp_path):
    with fresh_store(tmp_path) as store:
        store.create_collection("c")
        store.set_note("c", "1", "first")
        with store.transaction() as one:
            one.execute("UPDATE query_notes SET note = 'mine' WHERE qid = '1'").fetchall()
            with pytest.raises(RankboardError, match="could not save this change"):
                with store.transaction() as other:
                    other.execute("UPDATE query_notes SET note = 'theirs' WHERE qid = '1'").fetchall()
        assert store.get_note("c", "1") == "mine"


def test_a_collection_is_found_by_its_name_then_by_its_id(tmp_path):
    """A name of digits is a name first, then an id; a name that only looks numeric ("²") is a name."""
    with Store.open(tmp_path / "s.duckdb", load_sample=False) as store:
        first = store.create_collection("one")
        named_like_first = store.create_collection(str(first))
        odd = store.create_collection("²")
        assert store._cid(str(first)) == named_like_first and store._cid(first) == first
        assert store._cid("²") == odd and store._cid(str(odd)) == odd and store.runs("²").empty
        with pytest.raises(EvalError, match=r"^Unknown collection '³'\. Run `python -m core list`"):
            store.runs("³")
