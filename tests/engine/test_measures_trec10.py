"""trec_eval 10.0 measures that pytrec_eval (trec_eval 9.0.8) lacks -- dcg, ideal_dcg (with and without custom
gains) and yaap -- against outputs of trec_eval 10.0 built from its source
(tests/reference/trec_eval_test/reference_trec_eval_10.0/, see tests/reference/README.md), byte for byte through the
CLI."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cases.reference import reference_file, reference_text

TE = "trec_eval_test"
CASES = [
    ("out.dcg_yaap.rel_level", ["-m", "dcg", "-m", "ideal_dcg", "-m", "yaap"], "qrels.rel_level", "results.test"),
    ("out.dcg_yaap.comment", ["-m", "dcg", "-m", "ideal_dcg", "-m", "yaap"], "qrels.comment.test",
     "results.comment.test"),
    ("out.dcg_gains.rel_level", ["-m", "dcg.1=3,2=9"], "qrels.rel_level", "results.test"),
    ("out.ideal_dcg_gains.rel_level", ["-m", "ideal_dcg.0=1,2=9"], "qrels.rel_level", "results.test"),
    ("out.yaap_l2.rel_level", ["-l", "2", "-m", "yaap"], "qrels.rel_level", "results.test"),
]


@pytest.mark.parametrize("expected,args,qrels,run", CASES, ids=[c[0] for c in CASES])
def test_trec_eval_10_golden(expected, args, qrels, run):
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "--compat", "10", *args,
                          str(reference_file(f"{TE}/{qrels}.gz")), str(reference_file(f"{TE}/{run}.gz"))],
                         capture_output=True, text=True, check=True).stdout
    assert out == reference_text(f"{TE}/reference_trec_eval_10.0/{expected}.gz")


def _map_of_trunc(*args):
    return subprocess.run([sys.executable, "-m", "core", "evaluate", "-m", "map", *args,
                           str(reference_file(f"{TE}/qrels.test.gz")), str(reference_file(f"{TE}/results.trunc.gz"))],
                          capture_output=True, text=True)


def test_a_run_that_lacks_a_qrels_topic_is_refused_as_trec_eval_10_refuses_it():
    """trec_eval 10.0 (built from its source) on qrels.test and results.trunc, which lacks topic 302, without -c:
    `trec_eval: result qid '302' not found in qrels` on stderr and exit status 4. --compat 10 refuses the run too,
    and says what to do; with -c it gives 10.0's number (its own out.test.aqc, map 0.1016); --compat 9 skips the
    topic with a warning, as trec_eval 9.0.8 does (0.1523)."""
    trunc = reference_file(f"{TE}/results.trunc.gz")
    refused = _map_of_trunc("--compat", "10")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines()[-1] == (
        f"error: qrels topics missing from the run: {trunc} (run STANDARD) lacks topic 302. trec_eval "
        "10.0 stops at the first one (\"result qid '302' not found in qrels\", exit status 4), so --compat 10 refuses "
        "the run too. Add -c to count those topics as retrieving nothing, or use --compat 9 to skip them as "
        "trec_eval 9.0.8 does.")
    complete = _map_of_trunc("--compat", "10", "-c")
    assert complete.returncode == 0 and complete.stdout == "map                   \tall\t0.1016\n"
    skipped = _map_of_trunc("--compat", "9")
    assert skipped.returncode == 0 and skipped.stdout == "map                   \tall\t0.1523\n"
    assert "1 qrels topic(s) not in the run were skipped (use -c to count them as zero): 302" in skipped.stderr
