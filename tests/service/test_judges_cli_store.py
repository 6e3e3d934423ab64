"""`python -m core judges` (JSON keys, order, values) and core.service.judges (the store's judged rows) against
the file path, on the bundled dl23-llmjudge sample (NIST + six LLM judges, six simulated runs)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from core.cli.judges import read_inputs
from core.judges.report import judges_frames
from core.service.judges import judges_stored
from tests.cases.reference import DATA, ROOT
from tests.fixtures_store import sample_store

D = DATA / "llmjudge"
JUDGES = ["willia-umbrela1", "TREMA-4prompts", "TREMA-nuggets"]
RUNS = sorted((D / "runs").glob("run.*.gz"))


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "judges", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def from_cli():
    args = [D / "qrels.nist.txt.gz", *[D / f"qrels.{j}.txt.gz" for j in JUDGES]]
    for r in RUNS:
        args += ["--run", r]
    done = cli(*args, "--format", "json", "-m", "P@10")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_cli_json_keys_and_values(from_cli):
    obj = from_cli
    assert obj["reference"] == "qrels.nist.txt.gz" and obj["measure"] == "P@10"
    assert [j["judge"] for j in obj["judges"]] == [f"qrels.{j}.txt.gz" for j in JUDGES]
    tags = sorted(p.name.removeprefix("run.").removesuffix(".gz") for p in RUNS)
    assert sorted(obj["reference_scores"]) == tags                 # keyed by run tag, as `compare` names them
    nist = pd.read_csv(D / "qrels.nist.txt.gz", sep=" ", header=None, names=["qid", "it", "docno", "rel"],
                       dtype={"qid": str})
    qrels = {q: dict(zip(g["docno"], g["rel"].astype(int))) for q, g in nist.groupby("qid")}
    for path in RUNS:
        run_df = pd.read_csv(path, sep=" ", header=None, names=["qid", "q0", "docno", "rank", "score", "tag"],
                             dtype={"qid": str})
        run = {q: dict(zip(g["docno"], g["score"].astype(float))) for q, g in run_df.groupby("qid")}
        got = pytrec_eval.RelevanceEvaluator(qrels, {"P.10"}).evaluate(run)
        assert obj["reference_scores"][run_df["tag"][0]] == pytest.approx(np.mean([v["P_10"] for v in got.values()]))
    for j in obj["judges"]:
        for key in ("cohen_kappa", "binary_kappa", "n_common", "only_reference", "only_judge", "kendall_tau",
                    "tau_ap", "scores", "shift"):
            assert key in j
        assert j["n_common"] == 4423 and j["only_reference"] == 0 and j["only_judge"] == 0
        for run, value in j["shift"].items():
            assert value == pytest.approx(j["scores"][run] - obj["reference_scores"][run])


def test_cli_text_and_errors(tmp_path):
    done = cli(D / "qrels.nist.txt.gz", D / "qrels.TREMA-nuggets.txt.gz", "--run", RUNS[0])
    assert done.returncode == 0, done.stderr
    assert "qrels.TREMA-nuggets.txt.gz" in done.stdout and "bounds" in done.stdout
    missing = cli(D / "qrels.nist.txt.gz", tmp_path / "nope.txt", "--run", RUNS[0])
    assert missing.returncode == 2 and "nope.txt: no such file. Check the path." in missing.stderr
    bad = tmp_path / "judge.txt"
    bad.write_text("2002168 0 msmarco_passage_1 x\n")
    broken = cli(D / "qrels.nist.txt.gz", bad, "--run", RUNS[0])
    assert broken.returncode == 2 and "judge.txt, line 1" in broken.stderr


def test_store_path_equals_file_path(tmp_path):
    ref, judges, runs, _ = read_inputs(str(D / "qrels.nist.txt.gz"), [str(D / f"qrels.{j}.txt.gz") for j in JUDGES],
                                       [str(p) for p in RUNS])
    judges = {name.removeprefix("qrels.").removesuffix(".txt.gz"): t for name, t in judges.items()}
    store = sample_store(tmp_path)
    try:
        sets = store.qrels_sets("dl23-llmjudge").set_index("assessor")["qrels_id"]
        for measure in ("nDCG@10", "AP"):
            stored = judges_stored(store, "dl23-llmjudge", int(sets["NIST"]), [int(sets[j]) for j in JUDGES],
                                   measure=measure)
            files = judges_frames(ref, judges, runs, measure=measure, reference_name="NIST")
            assert stored.judges == list(judges)
            names = files.runs
            assert np.allclose(stored.reference_scores[names], files.reference_scores[names])
            assert np.allclose(stored.scores.loc[names], files.scores.loc[names])
            assert np.allclose(stored.filled.loc[names], files.filled.loc[names])
            b1, b2 = stored.bounds.set_index("run").loc[names], files.bounds.set_index("run").loc[names]
            assert np.allclose(b1.to_numpy(float), b2.to_numpy(float))
            cols = ["cohen_kappa", "binary_kappa", "n_common", "kendall_tau", "tau_ap", "largest_rank_change"]
            assert np.allclose(stored.table[cols].to_numpy(float), files.table[cols].to_numpy(float))
            s1 = stored.shifts.set_index(["judge", "run"]).sort_index()
            s2 = files.shifts.set_index(["judge", "run"]).sort_index()
            assert np.allclose(s1[["shift", "ci_low", "ci_high", "p_value"]], s2[["shift", "ci_low", "ci_high", "p_value"]])
    finally:
        store.close()
