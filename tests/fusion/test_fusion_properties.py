"""Properties of fusion (hypothesis): one run fused with `none` is its own ranking; rrf reads only ranks; weights
summing to 1 permuted with the runs give the same fused run."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.fusion import METHODS, fuse

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GIVEN = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.8}}
# log_isr multiplies by ln(number of runs), 0 for one run: every document then scores 0
ONE_RUN = [m.name for m in METHODS if m.name != "log_isr" and m.train is None]


@st.composite
def runs(draw, n_runs: int | None = None):
    n = n_runs or draw(st.integers(2, 4))
    out = []
    for _ in range(n):
        rows = draw(st.dictionaries(st.tuples(st.sampled_from(["1", "2", "10"]), st.integers(0, 12)),
                                    st.integers(-4, 6).map(lambda x: x / 2), min_size=1, max_size=25))
        out.append(pd.DataFrame([(q, f"d{d}", s) for (q, d), s in rows.items()], columns=["qid", "docno", "score"]))
    return out


def trec_order(run: pd.DataFrame) -> list[tuple[str, str]]:
    ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    return list(zip(ordered["qid"], ordered["docno"]))


@FAST
@given(runs(1), st.sampled_from(ONE_RUN))
def test_one_run_fused_with_none_is_its_own_ranking(one, method):
    fused = fuse(one, method, norm="none", params=GIVEN.get(method), depth=None).table
    assert list(zip(fused["qid"], fused["docno"])) == trec_order(one[0])
    if method in ("sum", "max", "min", "med", "anz", "mnz", "wsum"):
        assert np.allclose(fused["score"], one[0].sort_values(["qid", "score", "docno"],
                                                                  ascending=[True, False, False])["score"])


@FAST
@given(runs(), st.sampled_from(["none", "min-max", "zmuv"]), st.integers(1, 100))
def test_rrf_depends_only_on_the_ranks(many, norm, k):
    """A strictly increasing map of each run's scores keeps its ranking, ties included: rrf does not move."""
    moved = [r.assign(score=np.exp(r["score"]) * (i + 2) - 5) for i, r in enumerate(many)]
    a = fuse(many, "rrf", norm=norm, params={"k": k}, depth=None).table
    b = fuse(moved, "rrf", norm=norm, params={"k": k}, depth=None).table
    pd.testing.assert_frame_equal(a, b)


@FAST
@given(runs(), st.sampled_from([m.name for m in METHODS if m.weighted]), st.data())
def test_weights_summing_to_one_permuted_with_the_runs_give_the_same_fusion(many, method, data):
    raw = np.array(data.draw(st.lists(st.integers(1, 10), min_size=len(many), max_size=len(many))), float)
    weights = raw / raw.sum()
    perm = data.draw(st.permutations(range(len(many))))
    a = fuse(many, method, weights=weights, depth=None).table
    b = fuse([many[i] for i in perm], method, weights=weights[list(perm)], depth=None).table
    both = a.merge(b, on=["qid", "docno"], suffixes=("", "_b"))
    assert len(both) == len(a) == len(b)
    np.testing.assert_allclose(both["score"], both["score_b"], rtol=1e-12, atol=1e-12)
    for _, topic in both.groupby("qid"):
        topic = topic.sort_values("rank")
        apart = topic["score"].to_numpy()[:-1] > topic["score"].to_numpy()[1:] + 1e-9
        assert (topic["rank_b"].to_numpy()[:-1][apart] < topic["rank_b"].to_numpy()[1:][apart]).all()
