"""`python -m core compare` with the issue-15 options, on Robust 2003 runs: --test tukey and
randomization-all, --risk / --alpha-risk, several --baseline, --ranks."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.stats import multisys
from core.stats import ranks
from core.stats import risk
from core.cli import main
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_run
from tests.oracle_stats import tukey_oracle

RUNS = ["humR03dc", "NLPR03vb10", "InexpC2", "MU03rob01"]


@pytest.fixture(scope="module")
def files():
    return reference_file(ROBUST_QRELS), [robust_run(r) for r in RUNS]


@pytest.fixture(scope="module")
def per_query(files):
    """AP per topic of the four runs (columns in RUNS order), from the engine's own evaluation."""
    from core.cli.compare import evaluate_for_compare
    from core.engine.evaluate import EvalOptions
    pq, names, _, _ = evaluate_for_compare(files[0], files[1], ["AP"], EvalOptions())
    return pq.pivot(index="qid", columns="run", values="value")[RUNS].dropna()


def _json(capsys, files, *extra):
    argv = ["compare", str(files[0]), *map(str, files[1]), "-m", "AP", "--format", "json", *extra]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_tukey_p_values_are_the_two_way_anova_cells(files, per_query, capsys):
    rows = _json(capsys, files, "--baseline", "InexpC2", "--test", "tukey")
    expected, _ = tukey_oracle(per_query.to_numpy())                 # statsmodels OLS + studentized range
    base = RUNS.index("InexpC2")
    for r in rows:
        if r["run"] != "InexpC2":
            assert r["p_value"] == pytest.approx(expected[base, RUNS.index(r["run"])], rel=1e-8)


def test_randomization_all_p_values(files, per_query, capsys):
    rows = _json(capsys, files, "--baseline", "humR03dc", "--test", "randomization-all", "--resamples", "999")
    order = sorted(RUNS)                           # the matrix is drawn with the runs in name order
    P = multisys.randomization_all(per_query[order].to_numpy(), 999, 0)
    assert {r["run"]: r["p_value"] for r in rows if r["run"] != "humR03dc"} == pytest.approx(
        {run: P[order.index("humR03dc"), order.index(run)] for run in RUNS[1:]})


def test_risk_keys_and_formulas(files, per_query, capsys):
    rows = _json(capsys, files, "--baseline", "humR03dc", "--risk", "trisk", "--alpha-risk", "2")
    X = per_query.to_numpy()
    for r in rows:
        if r["run"] == "humR03dc":
            assert "urisk" not in r and "trisk" not in r
            continue
        f = risk.weighted(X[:, RUNS.index(r["run"])] - X[:, 0], 2)            # every run has every topic here
        assert r["urisk"] == pytest.approx(f.mean())
        assert r["trisk"] == pytest.approx(f.mean() / (f.std(ddof=1) / np.sqrt(len(f))))
        assert r["georisk"] == pytest.approx(risk.georisk(X, 2)[RUNS.index(r["run"])])


def test_several_baselines_each_object_names_its_baseline(files, capsys):
    rows = _json(capsys, files, "--baseline", "humR03dc", "-b", "input.InexpC2.gz", "--correction", "holm")
    assert len(rows) == 2 * len(RUNS)
    assert {r["baseline"] for r in rows} == {"humR03dc", "InexpC2"}
    tested = [r for r in rows if r["run"] != r["baseline"]]
    from statsmodels.stats.multitest import multipletests
    assert [r["p_corrected"] for r in tested] == pytest.approx(
        list(multipletests([r["p_value"] for r in tested], method="holm")[1]))


def test_ranks_add_rank_interval_and_group(files, per_query, capsys):
    rows = _json(capsys, files, "--baseline", "humR03dc", "--ranks", "--resamples", "500", "--correction", "holm")
    X = per_query.to_numpy()
    rank, low, high = ranks.rank_intervals(X, 500, 0)
    letters = ranks.compact_letters(X.mean(axis=0), multisys.pairwise(X, "t", "holm"), 0.05)
    for r in rows:
        j = RUNS.index(r["run"])
        assert (r["rank"], r["rank_low"], r["rank_high"], r["group"]) == (rank[j], low[j], high[j], letters[j])


def test_text_shows_the_chosen_risk_first_and_old_output_is_unchanged(files, capsys):
    argv = ["compare", str(files[0]), *map(str, files[1][:2]), "-m", "AP", "--baseline", "humR03dc"]
    assert main(argv + ["--risk", "urisk"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header.index("urisk") < header.index("trisk") < header.index("georisk")
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert "urisk" not in plain and "baseline" not in plain.splitlines()[0]


def test_bad_alpha_risk_is_a_readable_error(files, capsys):
    argv = ["compare", str(files[0]), *map(str, files[1][:2]), "--baseline", "humR03dc", "--alpha-risk", "-1"]
    assert main(argv) == 2
    assert "alpha must be a number of 0 or more" in capsys.readouterr().err


def test_files_parsed_on_threads_equal_one_after_the_other(files, monkeypatch):
    """evaluate_for_compare parses the files on PARSE_THREADS threads; the plain equivalent is one
    file after the other. Same per-query table, names, topics and warnings, in the same order."""
    from core.cli import compare as cli_compare
    from core.engine.evaluate import EvalOptions
    paths = files[1] + files[1][:1]                              # a repeated file: named by file name, in order
    monkeypatch.setattr(cli_compare, "PARSE_THREADS", 2)
    threaded = cli_compare.evaluate_for_compare(files[0], paths, ["AP", "P@10"], EvalOptions())
    monkeypatch.setattr(cli_compare, "PARSE_THREADS", 1)
    plain = cli_compare.evaluate_for_compare(files[0], paths, ["AP", "P@10"], EvalOptions())
    pd.testing.assert_frame_equal(threaded[0], plain[0])
    assert threaded[1:] == plain[1:]
