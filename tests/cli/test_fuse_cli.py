"""`python -m core fuse`: the written run, its ir_metadata header, --tune's report, and one-line errors."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from core.cli import main
from core.engine.relevance import evaluate_frames
from core.formats import read_qrels, read_run
from core.fusion import fuse

DATA = Path(__file__).resolve().parents[2] / "data"
RUNS = [str(DATA / "runs" / f"input.{n}.gz") for n in ("aplrob03a", "UIUC03Rd1", "pircRBa1")]
QRELS = str(DATA / "qrels.robust03.txt.gz")


def frames():
    return [read_run(p).table.to_pandas() for p in RUNS]


def test_the_written_run_is_the_fused_run_with_its_provenance(tmp_path, capsys):
    out = tmp_path / "fused.run"
    assert main(["fuse", *RUNS[:2], "--method", "wsum", "--weights", "0.25,0.75", "--depth", "50", "-o", str(out),
                 "--name", "wsum-two"]) == 0
    assert capsys.readouterr().out == ""
    parsed = read_run(out)
    expected = fuse(frames()[:2], "wsum", weights=[0.25, 0.75], depth=50).table
    got = parsed.table.to_pandas()
    assert got["qid"].tolist() == expected["qid"].tolist() and got["docno"].tolist() == expected["docno"].tolist()
    assert (got["score"].to_numpy() == expected["score"].to_numpy()).all()       # written to the last bit
    assert parsed.tag == "wsum-two"
    fusion = parsed.metadata["method"]["fusion"]
    assert fusion["method"] == "wsum" and fusion["norm"] == "min-max" and fusion["weights"] == ["0.25", "0.75"]
    assert fusion["runs"] == ["input.aplrob03a.gz", "input.UIUC03Rd1.gz"]
    assert [len(h) for h in fusion["run_sha256"]] == [64, 64]


def test_the_run_goes_to_stdout_without_output(capsys):
    assert main(["fuse", *RUNS[:2], "--method", "combmnz", "--norm", "zmuv", "--depth", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# ir_metadata.start" and "#     method: mnz" in out and "#     norm: zmuv" in out
    rows = [line.split() for line in out if not line.startswith("#")]
    assert {r[3] for r in rows} == {"1"} and {r[5] for r in rows} == {"mnz"} and len(rows) == 100


@pytest.mark.parametrize(("argv", "message"), [
    (["missing.run", RUNS[0]], "missing.run: no such file. Check the path."),
    ([RUNS[0]], "fusion needs at least two runs. Give two or more run files."),
    ([RUNS[0], RUNS[1], "--method", "rrff"],
     "unknown fusion method 'rrff'. Did you mean rrf? Use --method with one of: sum, mnz, anz, gmnz, max, min, med, "
     "wsum, wmnz, mixed, condorcet, w_condorcet, rrf, rbc, isr, log_isr, logn_isr, bordafuse, w_bordafuse, posfuse, "
     "probfuse, segfuse, slidefuse, bayesfuse, mapfuse."),
    ([RUNS[0], RUNS[1], "--param", "k"], "--param k: expected KEY=VALUE. Write it as e.g. --param k=60."),
    ([RUNS[0], RUNS[1], "--method", "wsum", "--weights", "0.5,x"],
     "--weights 0.5,x: expected numbers separated by commas. Write it as e.g. --weights 0.3,0.7."),
    ([RUNS[0], RUNS[1], "--method", "wsum", "--weights", "1"],
     "1 weights for 2 runs. Give one weight per run, in the order of the runs."),
    ([RUNS[0], RUNS[1], "--name", "my run"],
     "--name 'my run': a run's name is one word, without spaces. Give e.g. --name rrf-fused."),
    ([RUNS[0], RUNS[1], "--tune", "none.qrels"], "none.qrels: no such file. Check the path."),
    ([RUNS[0], RUNS[1], "--method", "posfuse"],
     "posfuse learns from judged topics. Give --train QRELS (the topics to learn from), or --tune QRELS to learn on "
     "the other folds of topics."),
    ([RUNS[0], RUNS[1], "--train", QRELS], "rrf does not learn from judged topics. Drop --train, or choose posfuse, "
     "probfuse, segfuse, slidefuse, bayesfuse or mapfuse."),
    ([RUNS[0], RUNS[1], "--method", "posfuse", "--train", QRELS, "--tune", QRELS],
     "--train and --tune both name qrels: --tune learns on each fold's other topics. Give one."),
    ([RUNS[0], RUNS[1], "--method", "rbc"],
     "rbc needs phi (the persistence of the user); ranx has no default for it. Give --param phi=VALUE, or --tune "
     "QRELS to choose it."),
])
def test_errors_are_one_line_that_says_what_to_do(argv, message, capsys):
    if "--method" not in argv:
        argv = [*argv, "--method", "rrf"]
    assert main(["fuse", *argv]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {message}\n"


def test_train_learns_from_the_qrels(tmp_path):
    out = tmp_path / "posfuse.run"
    assert main(["fuse", *RUNS[:2], "--method", "posfuse", "--train", QRELS, "-o", str(out)]) == 0
    expected = fuse(frames()[:2], "posfuse", qrels=read_qrels(QRELS).table.to_pandas()).table
    parsed = read_run(out)
    assert parsed.metadata["method"]["fusion"]["train"] == {"qrels": "qrels.robust03.txt.gz"}
    got = parsed.table.to_pandas()
    assert got["docno"].tolist() == expected["docno"].tolist()
    assert (got["score"].to_numpy() == expected["score"].to_numpy()).all()


def test_tune_reports_the_folds_and_writes_each_fold_with_its_parameters(tmp_path, capsys):
    """On the bundled sample the cross-validated wsum of three runs beats its best part on nDCG@10."""
    out = tmp_path / "tuned.run"
    assert main(["fuse", *RUNS, "--method", "wsum", "--tune", QRELS, "-m", "ndcg_cut_10", "--folds", "5",
                 "--seed", "0", "-o", str(out)]) == 0
    report = capsys.readouterr().out.splitlines()
    assert report[0] == "wsum: 66 configurations, 5-fold cross-validation over topics, maximising nDCG@10"
    assert len(report) == 2 + 5 + 2 and report[-1].startswith("tuned on all topics: weights=")
    held_out = float(report[-2].split()[6])
    qrels = read_qrels(QRELS).table.to_pandas()
    parsed = read_run(out)
    assert parsed.metadata["method"]["fusion"]["tune"] == {"qrels": "qrels.robust03.txt.gz", "measure": "nDCG@10",
                                                          "folds": "5", "seed": "0"}
    assert len(parsed.metadata["method"]["fusion"]["fold_params"]) == 5

    def score(table: pd.DataFrame) -> float:
        return evaluate_frames(qrels, table[["qid", "docno", "score"]], ["nDCG@10"]).summary["value"].iloc[0]

    assert score(parsed.table.to_pandas()) == pytest.approx(held_out, abs=5e-5)
    assert held_out > max(score(f) for f in frames())
