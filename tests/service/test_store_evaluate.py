"""evaluate_stored reads only what the store keeps at ingest (run_topics, judged_rows) and agrees with
evaluate_files, per query, for every all_trec measure under -M, -J, -c and -l; whichever came first, the
runs or the qrels set; and after a schema-1 or schema-2 store is migrated."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from core.store import ingest
from core.engine.evaluate import evaluate_files
from core.service.evaluate import evaluate_stored
from core.measures import EvalOptions
from core.store.schema import SCHEMA_VERSION
from core.store.store import Store
from tests.cases.reference import ROBUST_QRELS, reference_file, reference_text, robust_run

OPTIONS = [EvalOptions(), EvalOptions(max_depth=50), EvalOptions(judged_only=True), EvalOptions(complete=True),
           EvalOptions(max_depth=20, judged_only=True, complete=True, rel_level=2)]


def _unzip(src, dest):
    dest.write_bytes(gzip.decompress(src.read_bytes()))
    return dest


@pytest.fixture
def files(tmp_path):
    """Three runs (one full of score ties, one missing three topics) and two qrels files, one with -1 grades."""
    runs = [_unzip(robust_run(n), tmp_path / n) for n in ("MU03rob01", "UIUC03Rd1")]
    lines = runs[1].read_text().splitlines(keepends=True)
    cut = tmp_path / "cut"
    cut.write_text("".join(x.replace("UIUC03Rd1", "cut") for x in lines if x.split()[0] not in {"303", "322", "650"}))
    qrels = reference_file(ROBUST_QRELS)
    neg = tmp_path / "neg.qrels"
    neg.write_text("".join(" ".join(f[:3] + ["-1" if i % 7 == 0 else f[3]]) + "\n"
                           for i, f in enumerate(x.split() for x in reference_text(ROBUST_QRELS).splitlines())))
    return runs + [cut], [qrels, neg]


def assert_same(stored, files):
    def rows(frame, value):
        return frame.sort_values(["run", "measure", "qid"]).reset_index(drop=True)[["run", "measure", "qid", value]]
    a, b = rows(stored.per_query, "value"), rows(files.per_query, "value")
    assert len(a) and a[["run", "measure", "qid"]].equals(b[["run", "measure", "qid"]])
    np.testing.assert_allclose(a["value"], b["value"], rtol=0, atol=1e-12)
    s, f = (x.summary.sort_values(["run", "measure"]).reset_index(drop=True) for x in (stored, files))
    assert s[["run", "measure"]].equals(f[["run", "measure"]])
    np.testing.assert_allclose(s["value"], f["value"], rtol=0, atol=1e-12)
    assert rows(stored.text, "text").equals(rows(files.text, "text"))
    assert stored.missing_topics == files.missing_topics and stored.num_q == files.num_q


def test_stored_runs_evaluate_like_files(files, tmp_path):
    runs, qrels = files
    store = Store.open(tmp_path / "s.duckdb", load_sample=False)
    try:
        with store.transaction() as cur:
            cid = ingest.collection_id(cur, "c", create=True)
            first = ingest.add_qrels(cur, cid, qrels[0], filename="qrels.txt").id       # before the runs
            ids = [ingest.add_run(cur, cid, p, filename=p.name).id for p in runs]
        second = store.add_qrels("c", qrels[1], filename="neg.qrels").id                  # after the runs
        for qrels_id, path in ((first, qrels[0]), (second, qrels[1])):
            for options in OPTIONS:
                want = evaluate_files(path, runs, ["all_trec"], options)
                for _ in range(2):   # computed, then from the results cache
                    assert_same(evaluate_stored(store, "c", ids, ["all_trec"], qrels_id, options), want)
    finally:
        store.close()


# How a store of each older schema kept its run rows (built from a current store by the test below).
TO_V2 = """CREATE TABLE run_rows_old AS SELECT run_id, qid, docno, score, rank FROM run_rows;
    DROP VIEW run_rows; DROP TABLE run_docs; ALTER TABLE run_rows_old RENAME TO run_rows;
    CREATE TABLE run_topics_old AS SELECT run_id, qid, n FROM run_topics;
    DROP TABLE run_topics; ALTER TABLE run_topics_old RENAME TO run_topics;
    DROP TABLE diversity_sets; DROP TABLE subtopic_qrels; DROP TABLE run_meta;
    UPDATE meta SET value = '2' WHERE key = 'schema_version'"""
TO_V1 = TO_V2 + """; DROP TABLE run_topics; DROP TABLE judged_rows;
    UPDATE meta SET value = '1' WHERE key = 'schema_version'"""
ROWS = "SELECT run_id, qid, docno, score, rank FROM run_rows ORDER BY ALL"
DERIVED = {"run_topics": "SELECT run_id, qid, n FROM run_topics ORDER BY ALL",
           "judged_rows": "SELECT * FROM judged_rows ORDER BY ALL"}


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_store_is_migrated_and_evaluates_the_same(files, tmp_path, version):
    """A schema-1 store has neither run_topics nor judged_rows; a schema-2 store keeps run_rows as a table with
    qid strings. Opening either one migrates it to the current schema: the same rows, the same derived tables, the same
    values, and new runs load into it."""
    runs, qrels = files
    path = tmp_path / f"v{version}.duckdb"
    with Store.open(path, load_sample=False) as store:
        store.add_qrels("c", qrels[0], filename="qrels.txt")
        ids = [store.add_run("c", p, filename=p.name).id for p in runs[:2]]
        store.add_qrels("c", qrels[1], filename="neg.qrels")
        before = evaluate_stored(store, "c", ids, ["AP", "P@10"])       # cached results survive the migration
        cur = store.cursor()
        rows = cur.execute(ROWS).fetchall()
        derived = {t: cur.execute(q).fetchall() for t, q in DERIVED.items()}
        cur.execute(TO_V1 if version == 1 else TO_V2).fetchall()
        assert cur.execute(ROWS).fetchall() == rows
    with Store.open(path) as store:
        cur = store.cursor()
        assert cur.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
        assert [r[0] for r in cur.execute("SELECT table_type FROM information_schema.tables "
                                          "WHERE table_name = 'run_rows'").fetchall()] == ["VIEW"]
        assert cur.execute(ROWS).fetchall() == rows
        assert {t: cur.execute(q).fetchall() for t, q in DERIVED.items()} == derived
        pd.testing.assert_frame_equal(evaluate_stored(store, "c", ids, ["AP", "P@10"]).per_query, before.per_query)
        ids.append(store.add_run("c", runs[2], filename=runs[2].name).id)
        for qrels_id, q in zip(store.qrels_sets("c")["qrels_id"], qrels):
            assert_same(evaluate_stored(store, "c", ids, ["all_trec"], int(qrels_id), EvalOptions(complete=True)),
                        evaluate_files(q, runs, ["all_trec"], EvalOptions(complete=True)))


def test_results_cache_rows_equal_the_plain_pandas_frame(files, tmp_path, monkeypatch):
    """core.store.results.write_results hands DuckDB an Arrow table with the run ids looked up once per run; its
    plain equivalent built a pandas frame with `map(ids)` / astype(str) columns. The cached rows are the same."""
    from core.service import evaluate as results
    runs, qrels = files
    store = Store.open(tmp_path / "w.duckdb", load_sample=False)
    written = []
    real = results.write_results
    monkeypatch.setattr(results, "write_results",
                        lambda c, pq, ids, q, key: (written.append((pq, ids, q, key)), real(c, pq, ids, q, key)))
    try:
        with store.transaction() as cur:
            cid = ingest.collection_id(cur, "c", create=True)
            ingest.add_qrels(cur, cid, qrels[0], filename="qrels.txt")
            ids = [ingest.add_run(cur, cid, p, filename=p.name).id for p in runs]
        evaluate_stored(store, "c", ids, ["AP", "P@10", "ndcg_cut_10", "num_rel"])
        pq, names, q, key = written[0]
        plain = pd.DataFrame({"run_id": pq["run"].map(names).astype(int), "qrels_id": q, "options": key,
                              "qid": pq["qid"].astype(str), "measure": pq["measure"].astype(str),
                              "value": pq["value"].astype(float)})
        cur = store.cursor()
        got = cur.execute("SELECT run_id, qrels_id, options, qid, measure, value FROM results").fetchdf()
        cur.close()
        order = ["run_id", "measure", "qid"]
        got, plain = (f.sort_values(order).reset_index(drop=True) for f in (got, plain))
        assert len(got) == len(plain) > 0
        for col in ("run_id", "qrels_id"):
            assert got[col].astype(int).tolist() == plain[col].astype(int).tolist()
        for col in ("options", "qid", "measure"):
            assert got[col].astype(str).tolist() == plain[col].astype(str).tolist()
        np.testing.assert_array_equal(got["value"].to_numpy(float), plain["value"].to_numpy(float))
    finally:
        store.close()
