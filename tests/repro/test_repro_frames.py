"""The Reproduction's tables and its CSV hold the same numbers as the value itself."""
from __future__ import annotations

import io

import pandas as pd
import pytest

from core.repro import ranked, reproduce


def _case():
    per_query = pd.DataFrame(
        [(run, q, "AP", v) for run, vals in (("o", [0.5, 0.75]), ("r", [0.5, 0.5]), ("ob", [0.25, 0.25]),
                                               ("rb", [0.25, 0.5])) for q, v in zip(["1", "2"], vals)],
        columns=["run", "qid", "measure", "value"])
    lists = {"o": {"1": "abcd", "2": "xy"}, "r": {"1": "bace", "2": "xy"}, "ob": {"1": "ab", "2": "xy"},
             "rb": {"1": "ab", "2": "yx"}}
    rankings = {role: ranked(pd.DataFrame([(q, d, float(-i)) for q, docs in lists[run].items()
                                           for i, d in enumerate(docs)], columns=["qid", "docno", "score"]))
                for role, run in (("original", "o"), ("reproduced", "r"), ("original_baseline", "ob"),
                                  ("reproduced_baseline", "rb"))}
    names = {"original": "o", "reproduced": "r", "original_baseline": "ob", "reproduced_baseline": "rb"}
    return reproduce(per_query, per_query, names, ["AP"], rankings=rankings)


def test_frames_and_csv():
    result = _case()
    per_topic = result.per_topic_frame()
    assert list(per_topic.columns) == ["pair", "qid", "ktu", "rbo"]
    assert per_topic[per_topic["pair"] == "run"]["ktu"].tolist() == pytest.approx([4 / 6, 1.0])
    assert per_topic[per_topic["pair"] == "baseline"]["ktu"].tolist() == pytest.approx([1.0, -1.0])
    measures = result.measures_frame()
    assert measures[["measure", "pair", "n_topics"]].values.tolist() == [["AP", "run", 2], ["AP", "baseline", 2]]
    assert measures["rmse"].tolist() == pytest.approx([(0.25 ** 2 / 2) ** 0.5, (0.25 ** 2 / 2) ** 0.5])
    effects = result.effects_frame()
    assert effects.values.tolist() == [["AP", 1 / 3, 1.5 - 1 / 3]]
    csv = pd.read_csv(io.StringIO(result.to_csv()), dtype={"qid": str})
    assert list(csv.columns) == ["section", "pair", "measure", "qid", "statistic", "value"]
    mean_ktu = csv[(csv["section"] == "ordering") & (csv["pair"] == "run") & (csv["qid"] == "all")
                   & (csv["statistic"] == "ktu")]["value"]
    assert mean_ktu.tolist() == pytest.approx([result.agreement[0].ktu])
    er = csv[(csv["section"] == "effect") & (csv["statistic"] == "effect_ratio")]["value"]
    assert er.tolist() == pytest.approx([1 / 3])
    assert len(csv) == 2 * 2 + 2 * 2 * 2 + 2 * 5 + 2


def test_without_orderings_or_baselines_the_frames_are_empty_with_their_columns():
    per_query = pd.DataFrame([("o", "1", "AP", 0.5), ("r", "1", "AP", 0.5)], columns=["run", "qid", "measure", "value"])
    result = reproduce(per_query, per_query, {"original": "o", "reproduced": "r"}, ["AP"])
    assert result.per_topic_frame().empty and list(result.per_topic_frame().columns) == ["pair", "qid", "ktu", "rbo"]
    assert result.effects_frame().empty and list(result.effects_frame().columns) == ["measure", "effect_ratio",
                                                                                       "delta_ri"]
