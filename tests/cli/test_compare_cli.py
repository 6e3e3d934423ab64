"""`python -m core compare`: JSON rows, run naming, -c, formats and errors, on Robust 2003 runs."""
from __future__ import annotations

import gzip
import json
import shutil

import pandas as pd
import pytest

from core.cli import main
from core.cli.compare import name_runs
from tests.cases.reference import ROBUST, ROBUST_QRELS, reference_file, robust_run

KEYS = {"run", "measure", "mean", "ci_low", "ci_high", "delta", "wins", "ties", "losses", "p_value",
        "p_corrected", "effect_size"}


@pytest.fixture(scope="module")
def files():
    """The qrels, the runs by tag (robust_run), and trec_eval 9.0.8's summary of every run."""
    summary = pd.read_csv(reference_file(f"{ROBUST}/summary_all_trec_v9.0.8.csv.gz")).set_index("runid")
    return reference_file(ROBUST_QRELS), robust_run, summary


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_json_rows_match_trec_eval_means_and_null_baseline_p(files, capsys):
    qrels, run, summary = files
    rows = _json(capsys, ["compare", str(qrels), str(run("humR03dc")), str(run("NLPR03vb10")),
                          "--baseline", "humR03dc", "-m", "map", "-m", "P_10", "--format", "json",
                          "--test", "randomization", "--correction", "bh", "--resamples", "2000"])
    assert len(rows) == 4 and all(KEYS <= set(r) for r in rows)
    by = {(r["run"], r["measure"]): r for r in rows}
    measures = sorted({r["measure"] for r in rows})
    ap = next(m for m in measures if m in ("AP", "map"))
    p10 = next(m for m in measures if m != ap)
    for run in ("humR03dc", "NLPR03vb10"):
        assert by[(run, ap)]["mean"] == pytest.approx(summary.loc[run, "map"], abs=5e-5)
        assert by[(run, p10)]["mean"] == pytest.approx(summary.loc[run, "P_10"], abs=5e-5)
    base = by[("humR03dc", ap)]
    assert base["p_value"] is None and base["p_corrected"] is None and base["effect_size"] is None
    other = by[("NLPR03vb10", ap)]
    assert other["delta"] == pytest.approx(summary.loc["NLPR03vb10", "map"] - summary.loc["humR03dc", "map"], abs=1e-4)
    assert other["wins"] + other["ties"] + other["losses"] == 100
    assert 0 < other["p_value"] <= other["p_corrected"] <= 1


def test_tag_clash_uses_file_names_and_baseline_by_file(files, tmp_path, capsys):
    qrels, run, _ = files
    a, b = tmp_path / "first.gz", tmp_path / "second.gz"
    shutil.copy(run("NLPR03vb10"), a)
    shutil.copy(run("NLPR03vb10"), b)
    rows = _json(capsys, ["compare", str(qrels), str(a), str(b), "--baseline", str(a), "-m", "P_10",
                          "--format", "json"])
    assert [r["run"] for r in rows] == ["first.gz", "second.gz"]
    assert rows[1]["delta"] == 0 and rows[1]["ties"] == 100
    assert rows[1]["p_value"] is None and rows[1]["effect_size"] is None  # no variance: no test, no d
    assert name_runs(["x", "x", "y", None], ["d1/r.txt", "d2/r.txt", "s.txt", "t.txt"]) == ["d1/r.txt", "d2/r.txt", "y", "t.txt"]


def test_complete_flag_counts_missing_topics_as_zero(files, tmp_path, capsys):
    qrels, run, _ = files
    lines = gzip.open(run("NLPR03vb10"), "rt").read().splitlines()
    topics = sorted({ln.split()[0] for ln in lines})
    dropped = set(topics[:10])
    short = tmp_path / "short.txt"
    short.write_text("\n".join(ln.replace("NLPR03vb10", "short") for ln in lines if ln.split()[0] not in dropped) + "\n")
    argv = ["compare", str(qrels), str(run("NLPR03vb10")), str(short), "--baseline", "NLPR03vb10",
            "-m", "P_10", "--format", "json"]
    skip = {r["run"]: r for r in _json(capsys, argv)}
    zero = {r["run"]: r for r in _json(capsys, argv + ["-c"])}
    assert skip["short"]["wins"] + skip["short"]["ties"] + skip["short"]["losses"] == 90
    assert zero["short"]["wins"] + zero["short"]["ties"] + zero["short"]["losses"] == 100
    assert zero["short"]["mean"] == pytest.approx(skip["short"]["mean"] * 90 / 100, abs=1e-12)
    assert main(argv[:-2] + ["-c"]) == 0
    assert "Topics missing from a run count as 0" in capsys.readouterr().out


@pytest.mark.parametrize("fmt,needle", [("latex", r"\begin{tabular}"), ("csv", "run,measure,n_queries,mean"),
                                        ("text", "significant:")])
def test_other_formats(files, capsys, fmt, needle):
    qrels, run, _ = files
    assert main(["compare", str(qrels), str(run("NLPR03vb10")), str(run("humR03dc")),
                 "--baseline", "NLPR03vb10", "-m", "map", "--format", fmt]) == 0
    assert needle in capsys.readouterr().out


def test_unknown_baseline_is_a_readable_error(files, capsys):
    qrels, run, _ = files
    assert main(["compare", str(qrels), str(run("NLPR03vb10")), "--baseline", "nope", "-m", "map"]) == 2
    err = capsys.readouterr().err
    assert "The baseline 'nope' is not one of the runs" in err and "NLPR03vb10" in err
