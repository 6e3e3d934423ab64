"""-J (judged documents only) has no trec_eval reference file: check it against pytrec_eval's C code
(trec_eval 9.x) on trec_eval's own test files, for every numeric all_trec measure, per topic."""
from __future__ import annotations

import gzip
import math

import pytest
import pytrec_eval

from core.engine.evaluate import EvalOptions, evaluate_files
from core.measures import parse_measures
from tests.cases.reference import reference_file

TE = "trec_eval_test"


@pytest.mark.parametrize("qrels_file", ["qrels.test", "qrels.rel_level"])
@pytest.mark.parametrize("level", [1, 2])
def test_judged_only_matches_pytrec_eval(qrels_file, level):
    qrels_path, run_path = reference_file(f"{TE}/{qrels_file}.gz"), reference_file(f"{TE}/results.test.gz")
    with gzip.open(qrels_path, "rt") as f:
        qrels = pytrec_eval.parse_qrel(f)
    with gzip.open(run_path, "rt") as f:
        run = pytrec_eval.parse_run(f)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level,
                                         judged_docs_only_flag=True).evaluate(run)
    ms = [m for m in parse_measures(["all_trec"]) if m.trec_name and m.family.agg != "text"]
    res = evaluate_files(qrels_path, [run_path], ms, EvalOptions(judged_only=True, rel_level=level))
    got = {(r.qid, r.measure): r.value for r in res.per_query.itertuples()}
    compared, bad = 0, []
    for m in ms:
        for qid, values in ref.items():
            if m.trec_name not in values:
                continue
            want = values[m.trec_name]
            want = math.exp(want) if m.family.agg == "gm" else want      # pytrec_eval reports log(gm) per topic
            compared += 1
            if abs(got[(qid, m.name)] - want) > 1e-9 and not (m.family.agg == "gm" and want <= 1e-5):
                bad.append(f"{m.trec_name} {qid}: {got[(qid, m.name)]} != {want}")
    assert compared >= 250
    assert not bad, "\n".join(bad[:10])
