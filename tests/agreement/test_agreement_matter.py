"""'Does it matter?' (Voorhees 2000) on the bundled sample collection, checked against pytrec_eval
per qrels set, scipy's Kendall tau and a direct transcription of tau_AP."""
from __future__ import annotations

import pandas as pd
import pytest
import pytrec_eval
from scipy import stats

from core.agreement.consensus import to_trec_text
from core.errors import EvalError
from core.service.compare import does_it_matter
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store


def _tau_ap(truth: pd.Series, est: pd.Series) -> float:
    """Yilmaz et al. (2008), eq. 2, as a loop (no ties in the sample's MAP scores)."""
    order = est.sort_values(ascending=False).index.tolist()
    total = sum(sum(truth[order[j]] > truth[order[i]] for j in range(i)) / i for i in range(1, len(order)))
    return 2.0 / (len(order) - 1) * total - 1.0


def _independent_scores(store) -> pd.DataFrame:
    """MAP of every stored run under every stored qrels set, with pytrec_eval."""
    columns = {}
    for s in store.qrels_sets(SAMPLE_COLLECTION).itertuples():
        q = store.qrels(int(s.qrels_id))
        qrels = {qid: dict(zip(g["docno"], g["rel"].astype(int))) for qid, g in q.groupby("qid")}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"})
        scores = {}
        for r in store.runs(SAMPLE_COLLECTION).itertuples():
            rows = store.run_rows(int(r.run_id))
            run = {qid: dict(zip(g["docno"], g["score"].astype(float))) for qid, g in rows.groupby("qid")}
            per_query = evaluator.evaluate(run)
            scores[r.name] = sum(v["map"] for v in per_query.values()) / len(per_query)
        columns[s.assessor] = pd.Series(scores)
    return pd.DataFrame(columns)


def test_does_it_matter_on_the_sample_collection(tmp_path):
    with sample_store(tmp_path) as store:
        two = does_it_matter(store, SAMPLE_COLLECTION, "map")
        # A third set, assessor B on 8 topics only, does reorder the systems, so the taus are also
        # checked away from 1; it is stored from TREC text and evaluated like any other set.
        ids = store.qrels_sets(SAMPLE_COLLECTION)["qrels_id"].tolist()
        b = store.qrels(ids[1])
        few = b[b["qid"].isin(sorted(b["qid"].unique())[:8])]
        store.add_qrels(SAMPLE_COLLECTION, to_trec_text(few), filename="b8.qrels", assessor="B, 8 topics")
        three = does_it_matter(store, SAMPLE_COLLECTION, "AP")
        expected = _independent_scores(store)
        swapped = does_it_matter(store, SAMPLE_COLLECTION, "AP", qrels_ids=[ids[1], ids[0]])
        with pytest.raises(EvalError, match="not in this collection"):
            does_it_matter(store, SAMPLE_COLLECTION, "AP", qrels_ids=[ids[0], 999])
    assert list(swapped.scores.columns) == ["simulated-B", "NIST"]
    assert swapped.qrels_ids == {"simulated-B": ids[1], "NIST": ids[0]}
    assert two.measure == three.measure == "AP"
    assert list(two.scores.columns) == ["NIST", "simulated-B"]
    assert list(three.scores.columns) == list(expected.columns) == ["NIST", "simulated-B", "B, 8 topics"]
    assert sorted(two.scores.index) == sorted(expected.index) and len(expected) == 5
    assert two.scores.loc[expected.index].to_numpy() == pytest.approx(expected.iloc[:, :2].to_numpy(), abs=1e-9)
    assert three.scores.loc[expected.index].to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-9)
    assert len(two.correlations) == 1 and len(three.correlations) == 3
    _check_correlations(two.correlations, expected)
    _check_correlations(three.correlations, expected)
    # Voorhees (2000): the secondary assessor's MAP is far lower, yet the ordering does not change;
    # eight topics are too few for a stable ordering.
    assert (expected["simulated-B"] < expected["NIST"]).all()
    assert two.correlations["kendall_tau"].iloc[0] == pytest.approx(1.0)
    assert three.correlations["kendall_tau"].iloc[1] < 0.99


def _check_correlations(table: pd.DataFrame, expected: pd.DataFrame) -> None:
    for row in table.itertuples():
        assert row.kendall_tau == pytest.approx(stats.kendalltau(expected[row.a], expected[row.b]).statistic)
        assert row.tau_ap == pytest.approx(_tau_ap(expected[row.a], expected[row.b]))
        assert row.tau_ap_reversed == pytest.approx(_tau_ap(expected[row.b], expected[row.a]))
