"""`python -m core check`: the regression gate on Robust 2003 runs. A copy of a run with its best 30% of topics
swapped for the baseline's rankings fails and names the measures; equal runs pass; an expect file passes inside its
tolerance and fails outside it; p-values and CIs equal scipy's and statsmodels'; stored runs give the same answer as
files; JUnit and Markdown reports; bad input exits 2 with one line."""
from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from core.cli import main
from core.engine.evaluate import evaluate_files
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_run
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

STRONG, WEAK = "pircRBa1", "humR03dc"
MEASURES = ["AP", "nDCG@10", "P@10", "R@1000"]


def _lines_by_topic(path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            out.setdefault(line.split()[0], []).append(line)
    return out


@pytest.fixture(scope="module")
def swapped(tmp_path_factory):
    """(qrels, the strong run, a copy of it whose best 30% of topics by AP hold the weak baseline's rankings)."""
    qrels, strong, weak = reference_file(ROBUST_QRELS), robust_run(STRONG), robust_run(WEAK)
    per_query = evaluate_files(qrels, [strong], ["AP"]).per_query
    best = per_query.sort_values(["value", "qid"], ascending=[False, True])["qid"].head(
        int(round(0.3 * len(per_query)))).tolist()
    ours, theirs = _lines_by_topic(strong), _lines_by_topic(weak)
    path = tmp_path_factory.mktemp("check") / "swapped.run"
    with open(path, "w") as f:
        for qid, lines in ours.items():
            for line in (theirs[qid] if qid in best else lines):
                f.write(" ".join(line.split()[:5] + ["swapped"]) + "\n")
    return qrels, strong, path


def _json(capsys, argv, status):
    assert main(argv) == status
    return json.loads(capsys.readouterr().out)


def test_a_copy_with_its_best_topics_swapped_for_the_baselines_fails_and_names_the_measures(swapped, capsys):
    qrels, strong, copy = swapped
    argv = ["check", str(qrels), str(copy), "--against", str(strong)] + [a for m in MEASURES for a in ("-m", m)]
    assert main(argv) == 1
    text = capsys.readouterr().out
    report = _json(capsys, argv + ["--format", "json"], 1)
    failed = report["failed"]
    assert failed and not report["passed"]
    assert text.rstrip().splitlines()[-1] == f"FAIL: {', '.join(failed)}."
    for row in report["rows"]:
        worse = row["p_corrected"] is not None and row["p_corrected"] < 0.05 and row["delta"] < 0
        assert (row["verdict"] == "FAIL") == worse, row
    assert {"AP", "nDCG@10"} <= set(failed)


def test_two_equal_runs_pass(swapped, capsys):
    qrels, strong, _ = swapped
    for test in ("t", "wilcoxon", "randomization"):
        report = _json(capsys, ["check", str(qrels), str(strong), "--against", str(strong), "--test", test,
                                "--format", "json", "--resamples", "500"], 0)
        assert report["passed"] and all(r["delta"] == 0 and r["verdict"] == "OK" for r in report["rows"])


def test_a_max_drop_larger_than_the_drop_lets_it_pass(swapped, capsys):
    qrels, strong, copy = swapped
    base = ["check", str(qrels), str(copy), "--against", str(strong), "-m", "AP", "--format", "json"]
    drop = -_json(capsys, base, 1)["rows"][0]["delta"]
    assert _json(capsys, base + ["--max-drop", f"map={drop * 1.01}"], 0)["rows"][0]["max_drop"] == drop * 1.01
    assert _json(capsys, base + ["--max-drop", f"AP={drop * 0.99}"], 1)["failed"] == ["AP"]


def test_expect_inside_the_tolerance_passes_and_outside_fails(swapped, tmp_path, capsys):
    qrels, strong, _ = swapped
    mean = evaluate_files(qrels, [strong], ["AP", "P@10"]).summary.set_index("measure")["value"]
    argv = ["check", str(qrels), str(strong), "--against", str(strong), "--format", "json"]
    inside = tmp_path / "inside.yaml"
    inside.write_text(f"# expected\ntolerance: 0.001\nAP: {mean['AP'] + 0.0009}\n'P@10': {mean['P@10'] - 0.0009}\n")
    report = _json(capsys, argv + ["--expect", str(inside)], 0)
    assert [r["measure"] for r in report["rows"]] == ["AP", "P@10"]       # the expect file's measures by default
    assert report["rows"][0]["expected"] == pytest.approx(mean["AP"] + 0.0009)
    outside = tmp_path / "outside.yaml"
    outside.write_text(f"tolerance: 0.001\nmap: {mean['AP'] + 0.0011}\nP_10: {mean['P@10']}\n")
    report = _json(capsys, argv + ["--expect", str(outside), "-m", "nDCG@10"], 1)
    assert report["failed"] == ["AP"] and [r["measure"] for r in report["rows"]] == ["nDCG@10", "AP", "P@10"]
    assert "outside the expected" in report["rows"][1]["reasons"][0]


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none"])
def test_p_values_and_intervals_equal_scipy_and_statsmodels(swapped, capsys, test, correction):
    qrels, strong, copy = swapped
    report = _json(capsys, ["check", str(qrels), str(copy), "--against", str(strong), "--test", test,
                            "--correction", correction, "--format", "json"] + [a for m in MEASURES for a in ("-m", m)],
                   1)
    wide = evaluate_files(qrels, [copy, strong], MEASURES).per_query.pivot_table(
        index=["measure", "qid"], columns="run", values="value")
    raw, intervals = [], []
    for m in MEASURES:
        x, y = wide.loc[m, "swapped"].to_numpy(), wide.loc[m, STRONG].to_numpy()
        if test == "t":
            result = stats.ttest_rel(x, y)
            ci = result.confidence_interval(0.95)
            raw.append(result.pvalue)
            intervals.append((ci.low, ci.high))
        else:
            raw.append(stats.wilcoxon(x - y).pvalue)
    method = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}.get(correction)
    corrected = raw if method is None else multipletests(raw, alpha=0.05, method=method)[1]
    rows = report["rows"]
    assert [r["p_value"] for r in rows] == pytest.approx(raw, abs=1e-9, rel=0)
    assert [r["p_corrected"] for r in rows] == pytest.approx(list(corrected), abs=1e-9, rel=0)
    if test == "t":
        assert [(r["ci_low"], r["ci_high"]) for r in rows] == pytest.approx(intervals, abs=1e-9, rel=0)
    else:   # a seeded bootstrap of the mean difference: around the delta, the same on every call
        assert all(r["ci_low"] <= r["delta"] <= r["ci_high"] for r in rows)


def test_junit_has_one_case_per_measure_and_markdown_a_table(swapped, tmp_path, capsys):
    qrels, strong, copy = swapped
    junit = tmp_path / "gate.xml"
    argv = ["check", str(qrels), str(copy), "--against", str(strong), "--junit", str(junit), "--format", "markdown"]
    assert main(argv + [a for m in MEASURES for a in ("-m", m)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("**FAIL: ") and "| measure | baseline | new | delta | 95% CI |" in out
    assert sum(line.startswith("| ") for line in out.splitlines()) == 1 + len(MEASURES)
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == MEASURES
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed and int(suite.get("failures")) == len(failed) and "AP" in failed


def test_stored_runs_give_the_files_answer(tmp_path, capsys):
    store = sample_store(tmp_path)
    path = store.path
    store.close()
    argv = ["-m", "AP", "-m", "P@10", "--format", "json"]
    stored = _json(capsys, ["--store", str(path), "check", "--collection", SAMPLE_COLLECTION, "--run", WEAK,
                            "--against", STRONG] + argv, 1)
    files = _json(capsys, ["check", "data/qrels.robust03.txt.gz", f"data/runs/input.{WEAK}.gz",
                           "--against", f"data/runs/input.{STRONG}.gz"] + argv, 1)
    assert stored["rows"] == files["rows"] and stored["failed"] == ["AP", "P@10"]


@pytest.mark.parametrize("argv, words", [
    (["check", "q", "--against", "b"], "Give QRELS and NEW_RUN files"),
    (["check", "q", "n", "--against", "b", "--run", "x"], "--run and --assessor need --collection"),
    (["check", "--collection", "c", "--against", "b"], "name the new stored run with --run"),
    (["check", "q", "n", "--against", "b", "--max-drop", "AP"], "--max-drop 'AP': write MEASURE=DELTA"),
    (["check", "q", "n", "--against", "b", "--max-drop", "AP=-1"], "DELTA a number of 0 or more"),
])
def test_bad_input_exits_2_with_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_an_unchecked_max_drop_measure_and_a_bad_expect_file_exit_2(swapped, tmp_path, capsys):
    qrels, strong, _ = swapped
    argv = ["check", str(qrels), str(strong), "--against", str(strong), "-m", "AP"]
    assert main(argv + ["--max-drop", "P_20=0.1"]) == 2
    assert "P@20 is not among the measures evaluated. Add it with -m P@20." in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("tolerance: 0.01\nAP: high\n")
    assert main(argv + ["--expect", str(bad)]) == 2
    assert "bad.yaml, line 2: the value of 'AP' is not a number." in capsys.readouterr().err
