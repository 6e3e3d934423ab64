"""nuggetizer's four scores (core/measures/nuggets.py) against nuggetizer's own calculate_nugget_scores
(tests/nuggetizer_oracle.py, copied from nuggetizer 0.0.5) on 3 runs and 5 topics, and the missing-topic rule."""
from __future__ import annotations

from statistics import mean

import pytest

from core.formats import match_assignments, read_assignments, read_nuggets
from core.measures import NUGGET_SCORES, nugget_scores, score_nugget_files
from tests.cases import nuggets as case
from tests.nuggetizer_oracle import calculate_nugget_scores


def scored(records):
    matched = match_assignments(read_nuggets(case.nuggets_jsonl().encode(), filename="nuggets.jsonl"),
                                read_assignments(case.assignments_jsonl(records).encode(), filename="a.jsonl"))
    return nugget_scores(matched)


def table(result):
    return {(r.run, r.qid, r.measure): r.value for r in result.per_query.itertuples()}


def test_every_score_of_every_run_and_topic_is_nuggetizers():
    records = case.assignments()
    got = table(scored(records))
    assert len(records) == 15 and len(got) == 15 * 4
    for record in records:
        expected = calculate_nugget_scores(record["qid"], record["nuggets"])
        for score in NUGGET_SCORES:
            assert got[(record["run_id"], record["qid"], score.name)] == getattr(expected, score.nuggetizer)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_means_are_nuggetizers_global_metrics(seed):
    records = case.assignments(seed=seed)
    result = scored(records)
    summary = {(r.run, r.measure): r.value for r in result.summary.itertuples()}
    for run in case.RUNS:
        metrics = [calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records if r["run_id"] == run]
        for score in NUGGET_SCORES:
            assert summary[(run, score.name)] == pytest.approx(mean(getattr(m, score.nuggetizer) for m in metrics),
                                                               abs=1e-15)
    assert result.warnings == []


def test_the_scores_are_not_all_alike():
    """The case is not degenerate: the runs differ, and the scores differ from each other."""
    result = scored(case.assignments())
    means = result.summary.pivot(index="run", columns="measure", values="value")
    assert means["all"].nunique() == 3 and len(set(means.loc["rag-bm25"])) == 4


def test_a_topic_a_run_has_no_line_for_scores_0_with_a_warning():
    records = case.assignments(skip=(("rag-bm25", "t1"), ("rag-bm25", "t3"), ("rag-dense", "t4")))
    result = scored(records)
    got = table(result)
    assert [got[("rag-bm25", q, s.name)] for q in ("t1", "t3") for s in NUGGET_SCORES] == [0.0] * 8
    assert result.warnings == ["run 'rag-bm25' has no assignments for 2 topics (t1, t3): they score 0 there",
                               "run 'rag-dense' has no assignments for topic t4: it scores 0 there"]
    full = table(scored(case.assignments()))
    assert got[("rag-dense", "t1", "all")] == full[("rag-dense", "t1", "all")]
    per_run = result.summary.set_index(["run", "measure"])["value"]
    assert per_run[("rag-bm25", "all")] == pytest.approx(
        sum(got[("rag-bm25", q, "all")] for q in ("t1", "t2", "t3", "t4", "t5")) / 5)


def test_the_order_is_runs_then_topics_then_scores():
    result = scored(case.assignments())
    pq = result.per_query
    assert result.runs == list(case.RUNS) and result.topics == ["t1", "t2", "t3", "t4", "t5"]
    assert pq["measure"].tolist()[:4] == ["strict_vital", "strict_all", "vital", "all"]
    assert pq["qid"].tolist()[::4][:5] == ["t1", "t2", "t3", "t4", "t5"]


def test_files_are_read_and_scored_in_one_call(tmp_path):
    nuggets, assigned = case.write(tmp_path)
    matched, result = score_nugget_files(nuggets, assigned)
    assert len(matched.assignments) == 3 * 14 and table(result) == table(scored(case.assignments()))
