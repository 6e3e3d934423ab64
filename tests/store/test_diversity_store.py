"""Diversity qrels sets in the store: upload in one transaction (a bad file changes nothing), listed apart from
the relevance qrels sets, and stored runs evaluate exactly as their files do."""
from __future__ import annotations

import pandas as pd
import pytest

from core.engine.diversity import evaluate_diversity_files
from core.service.diversity import evaluate_stored_diversity
from core.store.diversity import add_diversity_qrels, diversity_sets
from core.errors import EvalError, UploadError
from core.measures import EvalOptions
from tests.fixtures_store import fresh_store, snapshot
from tests.cases.diversity import random_case

MEASURES = ["alpha_nDCG@10", "alpha_DCG(alpha=0.3)@5", "ERR_IA@20", "nERR_IA@5", "NRBP", "nNRBP", "AP_IA",
            "P_IA@10", "StRecall@5"]


@pytest.fixture
def case(tmp_path):
    qrels, run = random_case(7)
    q = tmp_path / "div.qrels"
    q.write_text("".join(f"{a} {b} {c} {d}\n" for a, b, c, d in qrels))
    runs = []
    for name, shift in (("sysA", 0.0), ("sysB", 1.0)):
        p = tmp_path / name
        p.write_text("".join(f"{qid} Q0 {doc} 0 {score + shift * (i % 3)} {name}\n"
                             for i, (qid, doc, score) in enumerate(run)))
        runs.append(p)
    return q, runs


@pytest.mark.parametrize("options", [EvalOptions(), EvalOptions(complete=True, max_depth=5),
                                     EvalOptions(judged_only=True, rel_level=2)])
def test_stored_runs_evaluate_as_their_files(tmp_path, case, options):
    q, runs = case
    with fresh_store(tmp_path) as store:
        store.add_qrels("c", b"".join(b"%s 0 d1 1\n" % q for q in (b"1", b"2", b"3", b"q4")), filename="plain.qrels")
        ids = [store.add_run("c", p, filename=p.name).id for p in runs]
        report = add_diversity_qrels(store, "c", q)
        qid = report.id
        assert report.warnings == [] and report.name == "div.qrels" and report.n_rows == len(q.read_text().split("\n")) - 1
        sets = diversity_sets(store, "c")
        assert sets[["assessor", "filename"]].values.tolist() == [["div.qrels", "div.qrels"]]
        assert list(store.qrels_sets("c")["filename"]) == ["plain.qrels"]      # not a relevance qrels set
        got = evaluate_stored_diversity(store, "c", ids, qid, MEASURES, options)
    want = evaluate_diversity_files(q, runs, MEASURES, options)
    key = ["run", "qid", "measure"]
    pd.testing.assert_frame_equal(got.per_query.sort_values(key).reset_index(drop=True),
                                  want.per_query.sort_values(key).reset_index(drop=True))
    assert got.runs == ["sysA", "sysB"] and got.missing_topics == want.missing_topics


def test_a_bad_file_or_name_changes_nothing(tmp_path, case):
    q, _ = case
    with fresh_store(tmp_path) as store:
        add_diversity_qrels(store, "c", q)
        before = snapshot(store)
        with pytest.raises(UploadError, match="line 2: found 3 fields but a subtopic qrels line needs 4"):
            add_diversity_qrels(store, "c", b"1 a d1 1\n1 a d2\n", filename="bad.qrels")
        with pytest.raises(UploadError, match="already has diversity qrels by assessor 'div.qrels'"):
            add_diversity_qrels(store, "c", q)
        assert snapshot(store) == before
        with pytest.raises(EvalError, match="has no diversity qrels set 999"):
            evaluate_stored_diversity(store, "c", [], 999, ["NRBP"])
        report = add_diversity_qrels(store, "c", b"1 0 d1 1\n2 0 d2 1\n", filename="flat.qrels")
        assert "look like ordinary qrels" in report.warnings[0]
