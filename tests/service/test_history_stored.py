"""history_stored: the stored versions of a system, picked and ordered by their lineage (natural version order when
the timestamps tie), give core.stats.history's values for the same per-query table; the step into v9 is marked."""
from __future__ import annotations

import pytest

from core.errors import EvalError
from core.service import evaluate_stored, history_stored, lines_of, step_topics, systems_of
from core.stats.history import UP, history
from tests.cases.versions import SYSTEM, add_versions
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store


def test_versions_in_order_and_the_significant_step(tmp_path):
    with sample_store(tmp_path) as store:
        ids = add_versions(store, SAMPLE_COLLECTION, tmp_path)
        lineage = store.lineage(SAMPLE_COLLECTION)
        assert systems_of(lineage) == [SYSTEM]
        lines = lines_of(lineage, [SYSTEM])
        assert lines == {SYSTEM: [(v, f"{SYSTEM}-{v}") for v in ("v1", "v2", "v9", "v10")]}
        got, per_query = history_stored(store, SAMPLE_COLLECTION, [SYSTEM], "AP", test="t", correction="holm")
        result = evaluate_stored(store, SAMPLE_COLLECTION, list(ids.values()), ["AP"])
    assert got == history(result.per_query, lines, "AP", test="t", correction="holm")
    assert [v.version for v in got.versions] == ["v1", "v2", "v9", "v10"]
    assert [s.mark for s in got.steps] == ["", UP, ""]
    moved = step_topics(per_query, got, SYSTEM, f"{SYSTEM}-v9")
    assert len(moved) == 20 and moved["delta"].iloc[0] == moved["delta"].abs().max()
    with pytest.raises(EvalError) as err:
        step_topics(per_query, got, SYSTEM, f"{SYSTEM}-v1")
    assert str(err.value) == "'bm25-v1' is the first version of 'bm25': there is no step into it."


def test_unknown_system_and_no_system(tmp_path):
    with sample_store(tmp_path) as store:
        assert systems_of(store.lineage(SAMPLE_COLLECTION)) == []
        with pytest.raises(EvalError) as err:
            history_stored(store, SAMPLE_COLLECTION, ["nope"], "AP")
        assert str(err.value) == ("No run of system 'nope' in this collection. Give runs a system when loading "
                                  "them (load --system NAME --version V).")
        with pytest.raises(EvalError) as err:
            history_stored(store, SAMPLE_COLLECTION, [], "AP")
        assert str(err.value) == "No system chosen. Pick at least one system."


def test_timestamps_order_the_versions_before_their_names(tmp_path):
    from tests.cases.versions import write_versions
    with sample_store(tmp_path) as store:
        files = write_versions(tmp_path)
        for version, stamp in (("v1", "2026-03-01T10:00:00"), ("v2", "2026-01-01T10:00:00"), ("v9", None)):
            meta = {"system": "dated", **({"version": version, "timestamp": stamp} if stamp else {})}
            store.add_run(SAMPLE_COLLECTION, str(files[version]), name=f"dated-{version}", meta=meta)
        lines = lines_of(store.lineage(SAMPLE_COLLECTION), ["dated"])
    # v2 is older than v1; the run without a version or timestamp is dated by its upload (now): last, by its name
    assert lines == {"dated": [("v2", "dated-v2"), ("v1", "dated-v1"), ("dated-v9", "dated-v9")]}


def test_a_measure_imported_from_another_tool_follows_its_versions(tmp_path):
    """Scores of a judge loaded with load --scores, for three versions of a system with scores only: the History
    takes the imported measure by its stored name, and each step's p is scipy's paired t-test on its values."""
    import numpy as np
    from scipy import stats
    rng = np.random.default_rng(3)
    qids = [f"q{i}" for i in range(25)]
    values = {"v1": rng.uniform(0, 1, 25)}
    values["v2"] = np.clip(values["v1"] + rng.normal(0.2, 0.05, 25), 0, 1)
    values["v3"] = np.clip(values["v2"] + rng.normal(0.0, 0.2, 25), 0, 1)
    csv = "run,qid,measure,value\n" + "".join(f"rag-{v},{q},judge,{x:.6f}\n" for v, xs in values.items()
                                              for q, x in zip(qids, xs))
    with sample_store(tmp_path) as store:
        store.add_scores(SAMPLE_COLLECTION, csv.encode(), filename="judge.csv", label="LLM judge")
        runs = store.runs(SAMPLE_COLLECTION)
        for v in values:
            rid = int(runs.loc[runs["name"] == f"rag-{v}", "run_id"].iloc[0])
            store.set_run_meta(rid, {"system": "rag", "version": v})
        got, _ = history_stored(store, SAMPLE_COLLECTION, ["rag"], "judge", test="t")
    assert [v.version for v in got.versions] == ["v1", "v2", "v3"]
    assert got.versions[1].mean == pytest.approx(np.round(values["v2"], 6).mean(), abs=1e-12)
    for step, (a, b) in zip(got.steps, (("v1", "v2"), ("v2", "v3"))):
        want = stats.ttest_rel(np.round(values[b], 6), np.round(values[a], 6)).pvalue
        assert step.p_value == pytest.approx(want, abs=1e-9)
    assert got.steps[0].mark == UP
