"""Golden tests: `evaluate --format trec -q -m all_trec` output equals trec_eval's, byte for byte.

Every reference output in tests/reference (trec_eval 9.0.8 and 10.0 on the 17 Robust 2003 runs,
the 5 CAsT 2021 runs with and without -l2, trec_eval's own test files, and the RAG 2024 run) is one
test case, so a failure names its file and lists the differing lines.
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd
import pytest

from core.cli.evaluate import format_trec
from core.engine.evaluate import EvalOptions, evaluate_files, evaluate_frames
from core.measures import labelled
from tests.cases.golden import CASES, Case
from tests.cases.reference import reference_file, reference_text


def _raw_frames(case: Case):
    """trec_eval reads only the first six fields of a run line; results.trunc has junk after them."""
    rows = [line.split() for line in reference_text(case.run).splitlines() if line.strip()]
    run = pd.DataFrame({"run": [r[5] for r in rows], "qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                        "score": [float(r[4]) for r in rows]})
    rows = [line.split() for line in reference_text(case.qrels).splitlines() if line.strip()]
    qrels = pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                          "rel": [int(r[3]) for r in rows]})
    return qrels, run


@lru_cache(maxsize=None)
def output(case: Case) -> str:
    """Evaluated once per session per case."""
    options = EvalOptions(compat=case.compat, **dict(case.options))
    pairs = labelled(list(case.measures), compat=case.compat)
    measures = [m for _, m in pairs]
    if case.raw_run:
        qrels, run = _raw_frames(case)
        result = evaluate_frames(qrels, run, measures, options)
    else:
        result = evaluate_files(reference_file(case.qrels), [reference_file(case.run)], measures, options)
    return format_trec(result, pairs, per_query=case.per_query, header=case.header)


def _key(line: str):
    name, qid, value = line.split("\t")
    return name.strip(), qid


def assert_same_output(got: str, want: str, ref: str) -> None:
    if got == want:
        return
    g = dict((_key(l), l.split("\t")[2]) for l in got.splitlines())
    w = dict((_key(l), l.split("\t")[2]) for l in want.splitlines())
    diffs = [f"{k[0]} {k[1]}: got {g.get(k)!r}, trec_eval {v!r}" for k, v in w.items() if g.get(k) != v]
    extra = [f"{k[0]} {k[1]}: not in trec_eval's output" for k in g if k not in w]
    order = [] if diffs or extra else ["same values, different line order or layout"]
    problems = diffs + extra + order
    pytest.fail(f"{ref}: {len(problems)} difference(s) from trec_eval ({len(w)} values):\n  "
                + "\n  ".join(problems[:15]))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_trec_eval(case: Case):
    want = reference_text(case.ref)
    assert_same_output(output(case), want, case.ref)


def test_every_value_compared():
    """Guard against a vacuous pass: the references hold >600k values and every line is compared."""
    total = sum(len(reference_text(c.ref).splitlines()) for c in CASES)
    assert total > 600_000
