"""trec_eval 10.0 measures that pytrec_eval (trec_eval 9.0.8) lacks -- dcg, ideal_dcg (with and without custom
gains) and yaap -- against outputs of trec_eval 10.0 built from its source (tests/data/trec_eval/README.txt),
byte for byte through the CLI."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
CASES = [
    ("out.dcg_yaap.rel_level", ["-m", "dcg", "-m", "ideal_dcg", "-m", "yaap"], "qrels.rel_level", "results.test"),
    ("out.dcg_yaap.comment", ["-m", "dcg", "-m", "ideal_dcg", "-m", "yaap"], "qrels.comment.test",
     "results.comment.test"),
    ("out.dcg_gains.rel_level", ["-m", "dcg.1=3,2=9"], "qrels.rel_level", "results.test"),
    ("out.ideal_dcg_gains.rel_level", ["-m", "ideal_dcg.0=1,2=9"], "qrels.rel_level", "results.test"),
    ("out.yaap_l2.rel_level", ["-l", "2", "-m", "yaap"], "qrels.rel_level", "results.test"),
]


@pytest.mark.parametrize("expected,args,qrels,run", CASES, ids=[c[0] for c in CASES])
def test_trec_eval_10_golden(shared, expected, args, qrels, run):
    te = shared / "reference" / "trec_eval_test"
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "--compat", "10", *args, str(te / qrels),
                          str(te / run)], capture_output=True, text=True, check=True).stdout
    assert out == (DATA / expected).read_text()
