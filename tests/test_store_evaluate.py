"""evaluate_stored reads run_rows in place (a view over the stored canonical ranks) and agrees with evaluate_files."""
from __future__ import annotations

import gzip

import numpy as np

from core.evaluate import evaluate_files, evaluate_stored
from core.store import Store


def test_stored_runs_evaluate_like_files(reference, tmp_path):
    base = reference / "trectools_robust03"
    runs = sorted((base / "runs").iterdir())[:2]
    paths = []
    for r in runs:
        p = tmp_path / r.name.removesuffix(".gz")
        p.write_bytes(gzip.decompress(r.read_bytes()))
        paths.append(p)
    measures = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Rprec", "Bpref"]
    store = Store.open(tmp_path / "s.duckdb", load_sample=False)
    try:
        with store.transaction() as cur:
            from core import ingest
            cid = ingest.collection_id(cur, "c", create=True)
            ingest.add_qrels(cur, cid, base / "robust03_qrels.txt", filename="qrels.txt")
            ids = [ingest.add_run(cur, cid, p, filename=p.name).id for p in paths]
        for _ in range(2):   # computed, then from the results cache
            stored = evaluate_stored(store, "c", ids, measures)
            files = evaluate_files(base / "robust03_qrels.txt", paths, measures)
            a = stored.summary.sort_values(["run", "measure"]).reset_index(drop=True)
            b = files.summary.sort_values(["run", "measure"]).reset_index(drop=True)
            assert a[["run", "measure"]].equals(b[["run", "measure"]])
            np.testing.assert_allclose(a["value"], b["value"], rtol=0, atol=1e-12)
            assert stored.missing_topics == files.missing_topics
        assert store.con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE 'rb_eval_run_%'"
                                 ).fetchall() == [(0,)]
    finally:
        store.close()
