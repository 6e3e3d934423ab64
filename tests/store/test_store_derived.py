"""run_topics and judged_rows (what stored evaluation reads) always equal what run_rows and qrels say,
after every kind of write: runs before or after qrels, judgment groups, consensus qrels, replace, delete,
rename, and runs of another collection."""
from __future__ import annotations

import core.store.store as store_mod
from core.service.compare import save_consensus
from tests.fixtures_store import SAMPLE_COLLECTION, assert_derived, pairs, sample_store

def test_derived_tables_follow_every_write(tmp_path):
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION).set_index("name").run_id.astype(int)
        sets = list(store.qrels_sets(SAMPLE_COLLECTION).qrels_id.astype(int))
        judged = assert_derived(store)                                       # qrels loaded before the runs
        ours = set(runs)          # a fresh store also holds the dl23-llmjudge sample: its pairs are left out here
        assert {p for p in pairs(judged) if p[0] in ours} == {(r, q) for r in runs for q in sets}

        rep = save_consensus(store, SAMPLE_COLLECTION, sets, "union")        # a qrels set after the runs
        assert {p for p in pairs(assert_derived(store)) if p[0] in ours} == {(r, q) for r in runs
                                                                            for q in sets + [rep.id]}

        store.rename_run(int(runs["pircRBa1"]), "renamed")
        store.delete_run(int(runs["humR03dc"]))
        new = store.add_run(SAMPLE_COLLECTION, store_mod.ROOT / "data/runs/input.MU03rob01.gz", on_conflict="replace")
        judged = assert_derived(store)
        left = {r for r, _ in pairs(judged)}
        assert int(runs["humR03dc"]) not in left and int(runs["MU03rob01"]) not in left and new.id in left

        other = store.add_run("other", store_mod.ROOT / "data/runs/input.MU03rob01.gz").id   # no qrels there yet
        assert other not in {r for r, _ in pairs(assert_derived(store))}
        groups = store.add_qrels("other", store_mod.ROOT / "data/qrels.robust03.txt.gz", assessor="g",
                                 judgment_groups=True).ids
        assert {q for r, q in pairs(assert_derived(store)) if r == other} == set(groups)
