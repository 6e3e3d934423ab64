"""`python -m core repro`: reproducibility and replicability of the sample runs, in text and JSON; the numbers
equal the definitions applied to `evaluate`'s per-topic values; bad input exits 2 with one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli import main
from core.engine.evaluate import evaluate_files

QRELS, OTHER_QRELS = "data/qrels.robust03.txt.gz", "data/qrels.robust03.simulated-B.txt.gz"
RUNS = {"original": "pircRBa1", "reproduced": "aplrob03a", "original_baseline": "humR03dc",
        "reproduced_baseline": "UIUC03Rd1"}


def _path(name: str) -> str:
    return f"data/runs/input.{name}.gz"


def _argv(*extra: str) -> list[str]:
    return ["repro", QRELS, "--original", _path(RUNS["original"]), "--reproduced", _path(RUNS["reproduced"]),
            "--original-baseline", _path(RUNS["original_baseline"]),
            "--reproduced-baseline", _path(RUNS["reproduced_baseline"]), *extra]


def _values(qrels: str, run: str, measure: str) -> np.ndarray:
    pq = evaluate_files(qrels, [_path(run)], [measure]).per_query.sort_values("qid")
    return pq["value"].to_numpy()


def test_json_holds_the_definitions(capsys):
    assert main(_argv("-m", "AP", "--format", "json", "--rbo-p", "0.9", "--depth", "100")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "reproducibility" and out["runs"] == RUNS and out["rbo_p"] == 0.9 and out["depth"] == 100
    o, r = _values(QRELS, RUNS["original"], "AP"), _values(QRELS, RUNS["reproduced"], "AP")
    ob, rb = _values(QRELS, RUNS["original_baseline"], "AP"), _values(QRELS, RUNS["reproduced_baseline"], "AP")
    run = next(m for m in out["measures"] if m["pair"] == "run")
    assert run["rmse"] == pytest.approx(np.sqrt(np.mean((o - r) ** 2)), abs=1e-12)
    (effect,) = out["effects"]
    assert effect["effect_ratio"] == pytest.approx(np.mean(r - rb) / np.mean(o - ob), abs=1e-12)
    ri = lambda a, b: (a.mean() - b.mean()) / b.mean()   # noqa: E731
    assert effect["delta_ri"] == pytest.approx(ri(o, ob) - ri(r, rb), abs=1e-12)
    for a in out["agreement"]:
        per = [t["ktu"] for t in a["per_topic"]]
        assert a["n_topics"] == len(per) == 100 and a["ktu"] == pytest.approx(np.mean(per))
        assert all(0 <= t["rbo"] <= 1 for t in a["per_topic"])


def test_text_names_every_part(capsys):
    assert main(_argv("-m", "AP", "-m", "nDCG@10")) == 0
    out = capsys.readouterr().out
    for words in ("Reproducibility: aplrob03a against the original pircRBa1", "KTU", "RBO", "RMSE",
                  "Effects of the run over its baseline", "nDCG@10"):
        assert words in out


def test_replicability_with_other_qrels(capsys):
    from scipy import stats
    assert main(_argv("-m", "AP", "--reproduced-qrels", OTHER_QRELS, "--format", "json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "replicability" and out["agreement"] == [] and out["test"] == "Welch's unpaired t-test"
    o, r = _values(QRELS, RUNS["original"], "AP"), _values(OTHER_QRELS, RUNS["reproduced"], "AP")
    run = next(m for m in out["measures"] if m["pair"] == "run")
    assert run["rmse"] is None and run["p_value"] == pytest.approx(stats.ttest_ind(o, r, equal_var=False).pvalue)
    assert run["reproduced_mean"] == pytest.approx(r.mean())


def test_without_baselines_there_are_no_effects(capsys):
    assert main(["repro", QRELS, "--original", _path("pircRBa1"), "--reproduced", _path("pircRBa1"), "-m", "P_10",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (a,) = out["agreement"]
    assert out["effects"] == [] and a["ktu"] == pytest.approx(1.0) and a["rbo"] == pytest.approx(1.0)
    assert out["measures"][0]["rmse"] == 0.0 and out["measures"][0]["p_value"] == 1.0


@pytest.mark.parametrize("extra, words", [
    (["--original-baseline", _path("humR03dc")], "Give both baselines"),
    (["--rbo-p", "1.5"], "--rbo-p must be between 0 and 1"),
    (["--depth", "0"], "--depth must be 1 or more"),
    (["-m", "NOPE"], "NOPE"),
])
def test_bad_input_exits_2_with_one_line(extra, words, capsys):
    argv = ["repro", QRELS, "--original", _path("pircRBa1"), "--reproduced", _path("aplrob03a"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err
