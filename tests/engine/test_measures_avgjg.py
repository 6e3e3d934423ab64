"""trec_eval -R qrels_jg (P_avgjg, map_avgjg, Rprec_mult_avgjg): trec_eval's own test output, byte for byte,
and the definition (the plain measure per judgment group, averaged) on random data."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine.jg import evaluate_jg
from core.errors import EvalError
from core.engine.evaluate import EvalOptions, evaluate_frames
from tests.cases.reference import reference_file, reference_text

TE = "trec_eval_test"


def test_qrels_jg_golden():
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "-m", "qrels_jg", "-R", "qrels_jg",
                          str(reference_file(f"{TE}/qrels.123.gz")), str(reference_file(f"{TE}/results.test.gz"))],
                         capture_output=True, text=True, check=True)
    assert out.stdout == reference_text(f"{TE}/out.test.qrels_jg.gz")


def test_other_measures_are_refused_with_qrels_jg():
    from core.engine.jg import evaluate_jg_files
    with pytest.raises(EvalError, match="judgment-group measures only"):
        evaluate_jg_files(reference_file(f"{TE}/qrels.123.gz"), [reference_file(f"{TE}/results.test.gz")], ["map"])


MEASURES = ["map_avgjg", "P_avgjg@3", "P_avgjg@10", "Rprec_mult_avgjg", "Rprec_mult_avgjg(mult=0.6)"]
PLAIN = {"map_avgjg": "AP", "P_avgjg@3": "P@3", "P_avgjg@10": "P@10", "Rprec_mult_avgjg": "Rprec",
         "Rprec_mult_avgjg(mult=0.6)": "Rprec(mult=0.6)"}


@settings(deadline=None, max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_average_over_groups_of_the_plain_measure(data):
    docs = [f"d{i}" for i in range(8)]
    qrels, run = [], []
    for qid in ("1", "2"):
        for jg in data.draw(st.lists(st.sampled_from(["0", "1", "2"]), unique=True, min_size=1, max_size=3)):
            for d in data.draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=8)):
                qrels.append((qid, jg, d, data.draw(st.integers(-1, 2))))
        ranked = data.draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=8))
        run += [("r", qid, d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    q = pd.DataFrame(qrels, columns=["qid", "jg", "docno", "rel"])
    r = pd.DataFrame(run, columns=["run", "qid", "docno", "score"])
    got = evaluate_jg(q, r, MEASURES, EvalOptions()).per_query.set_index(["qid", "measure"])["value"]
    for qid in ("1", "2"):
        for name in MEASURES:
            values = []
            for jg, part in q[q["qid"] == qid].groupby("jg"):
                pq = evaluate_frames(part[["qid", "docno", "rel"]], r[r["qid"] == qid], [PLAIN[name]]).per_query
                values.append(float(pq["value"].iloc[0]))
            assert got[(qid, name)] == pytest.approx(sum(values) / len(values)), (qid, name)
