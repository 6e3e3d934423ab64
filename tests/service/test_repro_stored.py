"""reproduce_stored: stored runs give the Reproduction that reproduce_files gives for the same run files (the
store's canonical ranks are the files' trec_eval order), and a request it cannot serve is refused in words."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import EvalError
from core.repro import reproduce_files
from core.service import reproduce_stored
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

ROOT_DATA = Path(__file__).resolve().parents[2] / "data"

RUNS = {"original": "pircRBa1", "reproduced": "aplrob03a", "original_baseline": "MU03rob01",
        "reproduced_baseline": "humR03dc"}


def _ids(store) -> dict[str, int]:
    runs = store.runs(SAMPLE_COLLECTION)
    return dict(zip(runs["name"], runs["run_id"].astype(int)))


@pytest.mark.parametrize("rbo_p", [0.8, 0.95])
def test_stored_runs_equal_the_files(tmp_path, rbo_p):
    files = {role: str(ROOT_DATA / "runs" / f"input.{name}.gz") for role, name in RUNS.items()}
    want, _ = reproduce_files(str(ROOT_DATA / "qrels.robust03.txt.gz"), files["original"], files["reproduced"],
                              original_baseline=files["original_baseline"],
                              reproduced_baseline=files["reproduced_baseline"], measures=["AP", "P@10"],
                              rbo_p=rbo_p, depth=50)
    with sample_store(tmp_path) as store:
        ids = _ids(store)
        got = reproduce_stored(store, SAMPLE_COLLECTION, {role: ids[name] for role, name in RUNS.items()},
                               ["AP", "P@10"], rbo_p=rbo_p, depth=50)
    assert got.runs == want.runs and got.kind == "reproducibility" and got.depth == 50
    for g, w in zip(got.agreement, want.agreement):
        assert (g.pair, g.n_topics) == (w.pair, w.n_topics)
        assert g.ktu == pytest.approx(w.ktu, abs=1e-12) and g.rbo == pytest.approx(w.rbo, abs=1e-12)
        assert [q for q, _, _ in g.per_topic] == [q for q, _, _ in w.per_topic]
    assert [(m.measure, m.pair, m.n_topics) for m in got.measures] == [(m.measure, m.pair, m.n_topics)
                                                                      for m in want.measures]
    for g, w in zip(got.measures, want.measures):
        assert g.rmse == pytest.approx(w.rmse, abs=1e-12) and g.p_value == pytest.approx(w.p_value, abs=1e-12)
    for g, w in zip(got.effects, want.effects):
        assert g.effect_ratio == pytest.approx(w.effect_ratio, abs=1e-12)
        assert g.delta_ri == pytest.approx(w.delta_ri, abs=1e-12)


def test_without_baselines_there_are_no_effects(tmp_path):
    with sample_store(tmp_path) as store:
        ids = _ids(store)
        got = reproduce_stored(store, SAMPLE_COLLECTION, {"original": ids["pircRBa1"], "reproduced": ids["pircRBa1"]},
                               ["AP"], depth=20)
    assert got.effects == ()
    assert got.measures[0].rmse == 0.0 and got.measures[0].p_value == 1.0
    assert got.agreement[0].ktu == pytest.approx(1.0) and got.agreement[0].rbo == pytest.approx(1.0)


def test_requests_it_cannot_serve(tmp_path):
    with sample_store(tmp_path) as store:
        ids = _ids(store)
        with pytest.raises(EvalError) as err:
            reproduce_stored(store, SAMPLE_COLLECTION, {"original": ids["pircRBa1"]}, ["AP"])
        assert str(err.value) == ("Give the original and the reproduced run (roles: original, reproduced, "
                                  "original_baseline, reproduced_baseline), not original.")
        with pytest.raises(EvalError) as err:
            reproduce_stored(store, SAMPLE_COLLECTION, {"original": ids["pircRBa1"], "reproduced": ids["humR03dc"],
                                                        "original_baseline": ids["MU03rob01"]}, ["AP"])
        assert str(err.value) == "Give both baselines (--original-baseline and --reproduced-baseline) or neither."
        with pytest.raises(EvalError) as err:
            reproduce_stored(store, SAMPLE_COLLECTION, {"original": 1, "reproduced": 2}, ["AP"], depth=0)
        assert str(err.value) == "The depth must be 1 or more, not 0."


def test_a_run_with_scores_only_is_refused(tmp_path):
    with sample_store(tmp_path) as store:
        store.add_scores(SAMPLE_COLLECTION, b"run,qid,measure,value\njudged,303,judge,0.5\n", filename="s.csv")
        ids = _ids(store)
        with pytest.raises(EvalError) as err:
            reproduce_stored(store, SAMPLE_COLLECTION, {"original": ids["pircRBa1"], "reproduced": ids["judged"]},
                             ["AP"])
        assert str(err.value) == ("judged: per-query scores only, no ranking to compare. Pick runs loaded from run "
                                  "files.")
