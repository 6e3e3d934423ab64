"""Property tests: our kappa family against sklearn, statsmodels and krippendorff on random labels."""
from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from core.agreement.qrels import agreement, multi_agreement

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning",
                                      "ignore::sklearn.exceptions.UndefinedMetricWarning")

grades = st.lists(st.integers(min_value=0, max_value=4), min_size=2, max_size=40)


def frame(labels, qids=None) -> pd.DataFrame:
    n = len(labels)
    return pd.DataFrame({"qid": qids if qids is not None else [f"t{i % 3}" for i in range(n)],
                         "docno": [f"d{i}" for i in range(n)], "rel": labels})


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_two_judges_match_the_oracles(data):
    a = data.draw(grades)
    b = data.draw(st.lists(st.integers(0, 4), min_size=len(a), max_size=len(a)))
    res = agreement(frame(a), frame(b))
    sk = cohen_kappa_score(a, b)
    if np.isfinite(sk):
        assert res.cohen_kappa == pytest.approx(sk, abs=1e-12)
    else:
        assert np.isnan(res.cohen_kappa)
    # Scott's pi is Fleiss' kappa with two raters.
    table, _ = aggregate_raters(np.array([a, b]).T)
    fk = fleiss_kappa(table)
    if np.isfinite(fk):
        assert res.pooled_kappa == pytest.approx(fk, abs=1e-12)
    assert res.confusion.to_numpy().sum() == len(a)
    assert res.p_observed == pytest.approx(np.mean(np.array(a) == np.array(b)))
    if len(set(a) | set(b)) > 1:
        for level in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(reliability_data=[a, b], level_of_measurement=level)
            assert res.alpha[level] == pytest.approx(expected, abs=1e-9), level


@settings(max_examples=20, deadline=None)
@given(st.integers(3, 5), st.integers(3, 30), st.data())
def test_several_judges_with_missing_labels_match_krippendorff(n_judges, n_items, data):
    matrix = np.array(data.draw(st.lists(st.lists(st.integers(-1, 3), min_size=n_items, max_size=n_items),
                                         min_size=n_judges, max_size=n_judges)), dtype=float)
    matrix[matrix < 0] = np.nan                      # -1 = not judged by this judge
    judges = []
    for row in matrix:
        keep = ~np.isnan(row)
        judges.append(pd.DataFrame({"qid": "1", "docno": [f"d{i}" for i in np.flatnonzero(keep)],
                                    "rel": row[keep].astype(int)}))
    res = multi_agreement(judges)
    values = np.unique(matrix[~np.isnan(matrix)])
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    if len(values) > 1 and pairable.any() and len(np.unique(matrix[:, pairable][~np.isnan(matrix[:, pairable])])) > 1:
        for level in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(reliability_data=matrix[:, pairable], level_of_measurement=level)
            assert res.alpha[level] == pytest.approx(expected, abs=1e-9), level
    complete = ~np.isnan(matrix).any(axis=0)
    assert res.n_items_all == int(complete.sum())
    if complete.sum() >= 1:
        table, _ = aggregate_raters(matrix[:, complete].T.astype(int))
        expected = fleiss_kappa(table)
        if np.isfinite(expected):
            assert res.fleiss_kappa == pytest.approx(expected, abs=1e-12)
