"""RAG nuggets in the store (core/store/nuggets.py): the tables, the four scores as imported measures (source
"nuggets"), loading again, the matrix of one topic, deleting, the migration, and failed loads that change nothing."""
from __future__ import annotations

import duckdb
import pytest

from core.errors import UploadError
from core.measures import score_nugget_files
from core.store import nuggets as store_nuggets
from core.store import schema as schema_mod
from core.store.store import Store
from tests.cases import nuggets as case
from tests.fixtures_store import fresh_store, snapshot


def load(store, folder, skip=(), collection="rag"):
    nuggets, assigned = case.write(folder, skip=skip)
    return store.add_nuggets(collection, nuggets, assigned)


def test_the_scores_are_stored_as_imported_measures_of_each_run(tmp_path):
    with fresh_store(tmp_path) as store:
        report = load(store, tmp_path)
        assert list(report.runs) == list(case.RUNS) and report.new_runs == list(case.RUNS)
        assert report.new_topics == ["t1", "t2", "t3", "t4"]          # t5 has no nugget
        assert report.n_rows == 15 and report.n_assignments == 3 * 14
        runs = store.runs("rag")
        assert runs["name"].tolist() == list(case.RUNS) and runs["n_rows"].tolist() == [0, 0, 0]
        got = store.imported_scores(runs["run_id"].tolist())
        _, result = score_nugget_files(*case.write(tmp_path))
        names = dict(zip(runs["run_id"], runs["name"]))
        stored = {(names[r], q, m): v for r, q, m, v in zip(got["run_id"], got["qid"], got["measure"], got["value"])}
        assert stored == {(r, q, m): v for r, q, m, v in result.per_query.itertuples(index=False)}
        assert set(got["source"]) == {"nuggets"}
        measures = store.imported_measures("rag")
        assert sorted(measures["measure"]) == ["all", "strict_all", "strict_vital", "vital"]


def test_the_matrix_of_a_topic_puts_vital_nuggets_first(tmp_path):
    with fresh_store(tmp_path) as store:
        report = load(store, tmp_path, skip=(("rag-hybrid", "t1"),))
        assert store.nugget_topics("rag") == ["t1", "t2", "t3", "t4"]           # t5 has no nugget
        m = store.nugget_matrix("rag", "t1")
        assert m.columns.tolist() == ["nugget", "text", "importance", "run_id", "run", "assignment"]
        assert m["run"].tolist()[:3] == list(case.RUNS)
        assert m["importance"].tolist() == ["vital"] * 6 + ["okay"] * 6
        assert m.drop_duplicates("nugget")["text"].tolist() == [t for t, _ in case.NUGGETS["t1"]]
        dense = case.assignments()[5]["nuggets"]          # rag-dense, t1 (written in reverse order)
        labels = {n["text"]: n["assignment"] for n in dense}
        rows = m[m["run_id"] == report.runs["rag-dense"]]
        assert rows["assignment"].tolist() == [labels[t] for t in rows["text"]]
        assert m[m["run_id"] == report.runs["rag-hybrid"]]["assignment"].isna().all()
        assert report.warnings == ["run 'rag-hybrid' has no assignments for topic t1: it scores 0 there"]


def test_loading_again_replaces_a_runs_assignments_and_scores(tmp_path):
    with fresh_store(tmp_path) as store:
        load(store, tmp_path)
        before = snapshot(store)
        again = load(store, tmp_path)
        assert again.new_runs == [] and again.new_topics == [] and again.kept_topics == ["t1", "t2", "t3", "t4"]
        after = snapshot(store)
        for table in ("nuggets", "nugget_assignments", "imported_scores", "runs"):
            assert sorted(after[table]) == sorted(before[table]), table


def test_other_nuggets_for_a_topic_are_refused_and_nothing_changes(tmp_path):
    with fresh_store(tmp_path) as store:
        load(store, tmp_path)
        before = snapshot(store)
        folder = tmp_path / "other"
        folder.mkdir()
        nuggets, assigned = case.write(folder)
        nuggets.write_text(case.nuggets_jsonl().replace("The Louvre", "The Musee d'Orsay"))
        assigned.write_text(case.assignments_jsonl().replace("The Louvre", "The Musee d'Orsay"))
        with pytest.raises(UploadError) as info:
            store.add_nuggets("rag", nuggets, assigned)
        assert str(info.value) == ("nuggets.jsonl, line 1: the collection holds other nuggets for topic 't1'. Load the "
                                   "nuggets file the collection's runs were scored with, or load these into another "
                                   "collection.")
        assert snapshot(store) == before


def test_a_bad_assignments_file_changes_nothing(tmp_path):
    with fresh_store(tmp_path) as store:
        before = snapshot(store)
        nuggets, assigned = case.write(tmp_path)
        assigned.write_text(case.assignments_jsonl().replace('"t4"', '"t9"'))
        with pytest.raises(UploadError, match="topic 't9' \\(run 'rag-bm25'\\) is not in nuggets.jsonl"):
            store.add_nuggets("rag", nuggets, assigned)
        assert snapshot(store) == before


def test_a_failure_after_the_scores_are_written_rolls_everything_back(tmp_path, monkeypatch):
    real = store_nuggets.scores.insert_scores

    def then_fail(*args, **kwargs):
        real(*args, **kwargs)
        raise duckdb.IOException("the disk went away")

    with fresh_store(tmp_path) as store:
        store.create_collection("rag")
        before = snapshot(store)
        monkeypatch.setattr(store_nuggets.scores, "insert_scores", then_fail)
        with pytest.raises(Exception, match="the disk went away"):
            load(store, tmp_path)
        assert snapshot(store) == before


def test_deleting_a_run_or_the_collection_deletes_its_nuggets(tmp_path):
    with fresh_store(tmp_path) as store:
        report = load(store, tmp_path)
        store.delete_run(report.runs["rag-dense"])
        cur = store.cursor()
        runs = {r[0] for r in cur.execute("SELECT DISTINCT run_id FROM nugget_assignments").fetchall()}
        assert runs == {report.runs["rag-bm25"], report.runs["rag-hybrid"]}
        cur.close()
        store.delete_collection("rag")
        cur = store.cursor()
        assert cur.execute("SELECT count(*) FROM nuggets").fetchone()[0] == 0
        assert cur.execute("SELECT count(*) FROM nugget_assignments").fetchone()[0] == 0
        cur.close()


def test_a_store_of_the_version_before_gets_the_nugget_tables(tmp_path):
    path = tmp_path / "old.duckdb"
    Store.open(path, load_sample=False).close()
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE nuggets; DROP TABLE nugget_assignments")
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(schema_mod.SCHEMA_VERSION - 1)])
    con.close()
    with Store.open(path) as store:
        load(store, tmp_path)
        assert store.nugget_topics("rag") == ["t1", "t2", "t3", "t4"]
