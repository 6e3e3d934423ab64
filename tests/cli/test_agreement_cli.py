"""`python -m core agreement`: text and JSON output on real qrels files."""
from __future__ import annotations

import argparse
import json

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from core.cli import agreement as cli_agreement
from core.errors import EvalError
from tests.cases.reference import reference_file


def run_cli(capsys, *argv) -> str:
    parser = argparse.ArgumentParser()
    cli_agreement.add_arguments(parser)
    assert cli_agreement.run(parser.parse_args([str(a) for a in argv])) == 0
    return capsys.readouterr().out


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "judge_a.qrels"
    b = tmp_path / "judge_b.qrels"
    c = tmp_path / "judge_c.qrels"
    a.write_text("1 0 d1 0\n1 0 d2 1\n1 0 d3 2\n1 0 d4 1\n2 0 d5 0\n2 0 d6 2\n")
    b.write_text("1 0 d1 0\n1 0 d2 2\n1 0 d3 2\n2 0 d5 1\n2 0 d6 2\n2 0 d7 0\n")
    c.write_text("1 0 d1 1\n1 0 d2 1\n1 0 d3 2\n2 0 d5 0\n2 0 d6 2\n")
    return a, b, c


def test_json_for_two_files(capsys, files):
    a, b, _ = files
    doc = json.loads(run_cli(capsys, a, b, "--format", "json"))
    assert isinstance(doc, list) and len(doc) == 1
    pair = doc[0]
    for key in ("cohen_kappa", "pooled_kappa", "p_observed", "p_expected", "n_common", "only_a", "only_b",
                "confusion"):
        assert key in pair
    assert "fleiss_kappa" not in pair and "krippendorff_alpha" not in pair and "all_assessors" not in pair
    assert (pair["a"], pair["b"]) == ("judge_a.qrels", "judge_b.qrels")
    assert (pair["n_common"], pair["only_a"], pair["only_b"]) == (5, 1, 1)
    assert pair["cohen_kappa"] == pytest.approx(cohen_kappa_score([0, 1, 2, 0, 2], [0, 2, 2, 1, 2]))
    assert pair["confusion"]["labels"] == [0, 1, 2]
    assert pair["confusion"]["counts"] == [[1, 1, 0], [0, 0, 1], [0, 0, 2]]
    assert pair["p_observed"] == pytest.approx(3 / 5)
    alpha = krippendorff.alpha(reliability_data=[[0, 1, 2, 0, 2], [0, 2, 2, 1, 2]], level_of_measurement="nominal")
    assert pair["pair_krippendorff_alpha"]["nominal"] == pytest.approx(alpha, abs=1e-12)


def test_json_three_files_binary_weighted(capsys, files):
    doc = json.loads(run_cli(capsys, *files, "-l", "2", "--weights", "quadratic", "--format", "json"))
    assert isinstance(doc, list)
    assert [(p["a"], p["b"]) for p in doc] == [("judge_a.qrels", "judge_b.qrels"), ("judge_a.qrels", "judge_c.qrels"),
                                               ("judge_b.qrels", "judge_c.qrels")]
    assert doc[0]["rel_level"] == 2 and doc[0]["confusion"]["labels"] == [0, 1]
    assert doc[0]["weighted_kappa"] is not None
    # Fleiss on the 5 pairs all three judged (d1 d2 d3 d5 d6), binary at grade >= 2, against statsmodels
    a, b, c = [1 if g >= 2 else 0 for g in (0, 1, 2, 0, 2)], [0, 1, 1, 0, 1], [0, 0, 1, 0, 1]
    table, _ = aggregate_raters(np.array([a, b, c]).T)
    for pair in doc:                       # the all-assessor values are shared by every pair object
        assert pair["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-12)
        assert pair["all_assessors"]["n_items_all"] == 5
        assert pair["krippendorff_alpha"] == pair["all_assessors"]["krippendorff_alpha_by_level"]["nominal"]
        assert isinstance(pair["pair_krippendorff_alpha"], dict)
    assert doc[0]["krippendorff_alpha"] != doc[0]["pair_krippendorff_alpha"]["nominal"]


def test_text_output(capsys, files):
    out = run_cli(capsys, *files, "--weights", "linear")
    assert "judge_a.qrels vs judge_b.qrels (raw grades)" in out
    assert "Cohen's kappa" in out and "Scott's pi (pooled)" in out and "weighted kappa (linear)" in out
    assert "Fleiss' kappa" in out
    assert "binary Cohen's kappa    >=1 " in out


def test_groups_reads_a_qrels_jg_file(capsys):
    doc = json.loads(run_cli(capsys, reference_file("trec_eval_test/qrels.123.gz"), "--groups", "-l", "1",
                             "--format", "json"))
    assert [(p["a"], p["b"]) for p in doc] == [("jg0", "jg1"), ("jg0", "jg2"), ("jg1", "jg2")]
    assert doc[0]["cohen_kappa"] == pytest.approx(0.923155, abs=5.1e-7)   # kappa_reference CSV
    assert doc[0]["all_assessors"]["n_items_all"] == 2644


def test_one_assessor_or_a_missing_file_is_an_error(files):
    with pytest.raises(EvalError, match="at least two assessors"):
        cli_agreement.load_assessors([str(files[0])], groups=False)
    with pytest.raises(EvalError, match="one qrels_jg file with --groups"):
        cli_agreement.load_assessors([str(reference_file("trec_eval_test/qrels.123.gz"))], groups=False)
    with pytest.raises(EvalError, match="no such file"):
        cli_agreement.load_assessors([str(files[0]), str(files[0]) + ".missing"], groups=False)


def test_through_the_command_router(capsys, files):
    from core.cli import main
    assert main(["agreement", str(files[0]), str(files[1]), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["n_common"] == 5
    assert main(["agreement", str(files[0])]) == 2
    assert "at least two assessors" in capsys.readouterr().err


def test_files_that_share_no_pairs_say_so(capsys, tmp_path, files):
    other = tmp_path / "other.qrels"
    other.write_text("9 0 d1 1\n9 0 d2 0\n")
    out = run_cli(capsys, files[0], other)
    assert out == ("judge_a.qrels vs other.qrels (raw grades)\n"
                   "  judged by both 0, only judge_a.qrels 6, only other.qrels 2\n"
                   "  no (topic, document) pair was judged by both, so there is nothing to compare: "
                   "check that the two files judge the same topics\n")
    pair = json.loads(run_cli(capsys, files[0], other, "--format", "json"))[0]
    assert pair["n_common"] == 0 and pair["cohen_kappa"] is None and pair["confusion"]["counts"] == []
