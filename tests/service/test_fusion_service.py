"""core.service.fusion and fusion_report: stored runs fused, saved through the ingest (nothing written when the name
is taken), and the fused run beside its parts, compared with the best part."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from core.engine.relevance import evaluate_frames
from core.errors import EvalError
from core.fusion import fuse
from core.service import fuse_stored, fusion_report, save_fused
from core.service.fusion_report import fused_label
from tests.fixtures_store import SAMPLE_COLLECTION as C, assert_derived, sample_store, snapshot


@pytest.fixture
def store(tmp_path):
    with sample_store(tmp_path) as s:
        yield s


def test_the_report_sets_the_fused_run_beside_its_parts(store):
    stored = fuse_stored(store, C, ["aplrob03a", "UIUC03Rd1"], "rrf")
    report = fusion_report(store, C, stored, ["AP", "nDCG@10"], name="rrf-two")
    summary = report.summary.pivot_table(index="run", columns="measure", values="value")
    assert set(summary.index) == {"rrf-two", "aplrob03a", "UIUC03Rd1"}
    assert report.best == summary.loc[["aplrob03a", "UIUC03Rd1"], "AP"].idxmax()
    qrels = store.qrels(store.default_qrels_id(C))
    own = evaluate_frames(qrels, stored.fused.table[["qid", "docno", "score"]], ["AP"]).summary
    assert summary.loc["rrf-two", "AP"] == pytest.approx(float(own["value"].iat[0]), abs=1e-12)
    row = next(r for r in report.comparison.rows if r.run == "rrf-two" and r.measure == "AP")
    deltas = report.topic_deltas("AP")
    assert row.delta == pytest.approx(deltas["delta"].mean(), abs=1e-12)
    assert row.p_value == pytest.approx(stats.ttest_rel(deltas["fused"], deltas["best"]).pvalue, abs=1e-9)
    assert (np.diff(deltas["delta"].to_numpy()) <= 0).all()


def test_a_part_named_like_the_fused_run_keeps_its_name():
    assert fused_label("rrf", ["rrf", "bm25"]) == "rrf (fused)"
    assert fused_label("rrf-two", ["rrf", "bm25"]) == "rrf-two"


def test_saved_run_is_the_fused_run(store):
    stored = fuse_stored(store, C, ["pircRBa1", "humR03dc", "MU03rob01"], "mnz", depth=50)
    report = save_fused(store, C, stored, "mnz-three")
    rows = store.run_rows(report.id)
    assert rows["docno"].tolist() == stored.fused.table["docno"].tolist()
    frames = [store.run_rows(i)[["qid", "docno", "score"]] for i in stored.run_ids[:3]]
    assert rows["docno"].tolist() == fuse(frames, "mnz", depth=50).table["docno"].tolist()
    assert_derived(store)


def test_a_taken_name_writes_nothing(store):
    stored = fuse_stored(store, C, ["pircRBa1", "humR03dc"], "rrf")
    before = snapshot(store)
    with pytest.raises(EvalError, match="^Collection 'robust03-sample' already has a run named 'pircRBa1'. Choose "
                                        "another name, or delete that run first.$"):
        save_fused(store, C, stored, "pircRBa1")
    assert snapshot(store) == before


def test_a_run_learned_from_the_judgments_it_is_scored_on_is_flagged_and_a_tuned_one_is_not(store):
    parts = ["aplrob03a", "UIUC03Rd1"]
    note = ("posfuse learned from the judged topics it is scored on here, so its scores and its tests against the "
            "parts are optimistic. Tune it by cross-validation for scores on topics it did not learn from.")
    trained = fuse_stored(store, C, parts, "posfuse", train=True, depth=100)
    assert trained.qrels_id == store.default_qrels_id(C)
    assert note in fusion_report(store, C, trained, ["AP"], name="posfuse").warnings
    tuned = fuse_stored(store, C, parts, "posfuse", tune=True, folds=2, measure="AP", depth=100)
    assert not any("optimistic" in w for w in fusion_report(store, C, tuned, ["AP"], name="posfuse").warnings)
    plain = fuse_stored(store, C, parts, "rrf")
    assert plain.qrels_id is None
    assert not any("optimistic" in w for w in fusion_report(store, C, plain, ["AP"], name="rrf").warnings)


def test_a_run_with_scores_only_is_refused_as_a_part(store):
    store.add_scores(C, b"run,qid,measure,value\njudged,303,judge,0.5\n", filename="s.csv")
    before = snapshot(store)
    with pytest.raises(EvalError) as err:
        fuse_stored(store, C, ["aplrob03a", "judged"], "rrf")
    assert str(err.value) == "judged: per-query scores only, no ranking to fuse. Fuse runs loaded from run files."
    assert snapshot(store) == before


def test_the_parts_versions_go_into_the_saved_runs_provenance(store):
    ids = dict(zip(store.runs(C)["name"], store.runs(C)["run_id"].astype(int)))
    store.set_run_meta(ids["pircRBa1"], {"system": "pirc", "version": "v2"})
    stored = fuse_stored(store, C, ["pircRBa1", "humR03dc"], "rrf")
    assert stored.fused.provenance["run_versions"] == ["v2", ""]
    report = save_fused(store, C, stored, "rrf-versions")
    fusion = json.loads(store.runs(C).set_index("run_id").loc[report.id, "metadata"])["method"]["fusion"]
    assert fusion["runs"] == ["pircRBa1", "humR03dc"] and fusion["run_versions"] == ["v2", ""]
    assert "run_versions" not in fuse_stored(store, C, ["aplrob03a", "humR03dc"], "rrf").fused.provenance
