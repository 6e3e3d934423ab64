"""`compare --scores` and `load --scores`: per-query values written as trec_eval -q output, compared with and
without a store, against scipy's paired t-test and Wilcoxon test; the user told of a renamed measure; bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from core.cli import main
from core.store.store import Store
from tests.fixtures_store import snapshot

QIDS = [str(q) for q in range(401, 431)]


def _trec_eval_q(path, run: str, values: np.ndarray, measure: str = "P_10") -> None:
    """trec_eval's `-q` layout: `measure<TAB>qid<TAB>value` per topic, then the runid and `all` lines."""
    lines = [f"{measure:<22s}\t{q}\t{v:.4f}\n" for q, v in zip(QIDS, values)]
    lines += [f"{'runid':<22s}\tall\t{run}\n", f"{measure:<22s}\tall\t{values.mean():.4f}\n"]
    path.write_text("".join(lines))


@pytest.fixture
def two_runs(tmp_path):
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, len(QIDS)).round(4)
    b = np.clip(a + rng.normal(0.05, 0.1, len(QIDS)), 0, 1).round(4)
    _trec_eval_q(tmp_path / "a.txt", "sysA", a)
    _trec_eval_q(tmp_path / "b.txt", "sysB", b)
    return tmp_path, a, b


def _rows(capsys, argv) -> dict:
    assert main(argv) == 0
    return {(r["run"], r["measure"]): r for r in json.loads(capsys.readouterr().out)}


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_compare_score_files_gives_scipys_p_values(two_runs, capsys, test):
    folder, a, b = two_runs
    want = (stats.ttest_rel(b, a) if test == "t" else stats.wilcoxon(b - a)).pvalue
    rows = _rows(capsys, ["compare", "--scores", str(folder / "a.txt"), str(folder / "b.txt"), "--baseline", "sysA",
                          "--test", test, "--format", "json"])
    assert set(rows) == {("sysA", "P_10"), ("sysB", "P_10")}
    assert rows[("sysB", "P_10")]["p_value"] == pytest.approx(want, abs=1e-9)
    assert rows[("sysB", "P_10")]["mean"] == pytest.approx(b.mean(), abs=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_loaded_with_scores_then_compared_in_the_store(two_runs, capsys, test):
    folder, a, b = two_runs
    store = str(folder / "s.duckdb")
    assert main(["--store", store, "load", "--collection", "c", "--scores", str(folder / "a.txt"), "--scores",
                 str(folder / "b.txt"), "--source", "trec_eval 9.0.8"]) == 0
    err = capsys.readouterr().err
    assert ("  warning: Rankboard computes a measure named 'P_10' itself, so the imported one is stored as "
            "'imported:P_10'.") in err
    want = (stats.ttest_rel(b, a) if test == "t" else stats.wilcoxon(b - a)).pvalue
    rows = _rows(capsys, ["--store", store, "compare", "--collection", "c", "--baseline", "sysA", "-m",
                          "imported:P_10", "--test", test, "--format", "json"])
    assert rows[("sysB", "imported:P_10")]["p_value"] == pytest.approx(want, abs=1e-9)
    assert main(["--store", store, "list", "--collection", "c"]) == 0
    out = capsys.readouterr().out
    assert "scores only" in out and "imported:P_10" in out and "imported (trec_eval -q, trec_eval 9.0.8)" in out


def test_a_bad_scores_file_loads_nothing(two_runs, capsys):
    folder, _, _ = two_runs
    store = str(folder / "s.duckdb")
    assert main(["--store", store, "load", "--collection", "c", "--scores", str(folder / "a.txt")]) == 0
    (folder / "bad.txt").write_text("P_10\t401\t0.5\nP_10\t402\tn/a\n")
    with Store.open(store) as s:
        before = snapshot(s)
    assert main(["--store", store, "load", "--collection", "c", "--scores", str(folder / "b.txt"), "--scores",
                 str(folder / "bad.txt")]) == 2
    assert ("error: bad.txt, line 2: value 'n/a' of measure 'P_10' for topic '402' is not a number. Give a number "
            "such as 0.25.\n    'P_10\\t402\\tn/a'") in "".join(capsys.readouterr())
    with Store.open(store) as s:
        assert snapshot(s) == before


def test_compare_scores_errors(two_runs, capsys):
    folder, _, _ = two_runs
    a = str(folder / "a.txt")
    assert main(["compare", "--scores", a, a, "--baseline", "sysA"]) == 2
    assert ("error: Run 'sysA' is in a.txt and in a.txt. Give each run in one file, or rename one of them (a "
            "trec_eval file is named by its runid line, else by its file name).") in "".join(capsys.readouterr())
    assert main(["compare", "--scores", a, "--collection", "c", "--baseline", "sysA"]) == 2
    assert ("error: --scores compares score files on their own: give no QRELS, RUN or --collection."
            in "".join(capsys.readouterr()))


def test_evaluate_a_collection_prints_imported_measures_as_loaded(two_runs, capsys):
    folder, a, _ = two_runs
    store = str(folder / "s.duckdb")
    assert main(["--store", store, "load", "--collection", "c", "--scores", str(folder / "a.txt")]) == 0
    capsys.readouterr()
    assert main(["--store", store, "evaluate", "--collection", "c", "-m", "imported:P_10", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:len(QIDS)] == [f"{'imported:P_10':<22s}\t{q}\t{v:.4f}" for q, v in zip(QIDS, a)]
    assert lines[len(QIDS):] == [f"{'imported:P_10':<22s}\tall\t{a.mean():.4f}"]


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_check_gates_an_imported_measure_of_stored_runs(two_runs, capsys, test):
    folder, a, b = two_runs
    store = str(folder / "s.duckdb")
    assert main(["--store", store, "load", "--collection", "c", "--scores", str(folder / "a.txt"), "--scores",
                 str(folder / "b.txt")]) == 0
    capsys.readouterr()
    assert main(["--store", store, "check", "--collection", "c", "--run", "sysA", "--against", "sysB", "-m",
                 "imported:P_10", "--test", test, "--correction", "none", "--format", "json"]) in (0, 1)
    row = json.loads(capsys.readouterr().out)["rows"][0]
    want = (stats.ttest_rel(a, b) if test == "t" else stats.wilcoxon(a - b)).pvalue
    assert row["measure"] == "imported:P_10" and row["p_value"] == pytest.approx(want, abs=1e-9)
    assert row["new_mean"] == pytest.approx(a.mean(), abs=1e-12)


def test_a_topic_only_the_imported_measure_has_prints_no_computed_line(tmp_path, capsys):
    store = str(tmp_path / "s.duckdb")
    (tmp_path / "q.txt").write_text("401 0 d1 1\n401 0 d2 0\n")
    (tmp_path / "r.txt").write_text("401 Q0 d1 1 2.0 r\n401 Q0 d2 2 1.0 r\n")
    (tmp_path / "j.csv").write_text("run,qid,measure,value\nr,401,judge,0.5\nr,999,judge,0.7\n")
    assert main(["--store", store, "load", "--collection", "c", "--qrels", str(tmp_path / "q.txt"), "--run",
                 str(tmp_path / "r.txt"), "--name", "r", "--scores", str(tmp_path / "j.csv")]) == 0
    capsys.readouterr()
    assert main(["--store", store, "evaluate", "--collection", "c", "-m", "map", "-m", "judge", "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{'map':<22s}\t401\t1.0000", f"{'judge':<22s}\t401\t0.5000", f"{'judge':<22s}\t999\t0.7000",
        f"{'map':<22s}\tall\t1.0000", f"{'judge':<22s}\tall\t0.6000"]
