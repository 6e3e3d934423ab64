"""ranx 0.3.21 is the oracle of every fusion method and normalisation: the same fused scores to 1e-6 and the same
document order wherever the scores are not tied, on random runs with ties, missing documents and runs of
different depths."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.fusion import METHODS, NORMS, fuse, method_named
from tests.cases.fusion import condorcet_runs, random_runs, ranx_frame, to_ranx

ranx = pytest.importorskip("ranx")

# parameters ranx has no default for
GIVEN = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.8}}
# methods that read places: ranx takes places from its dict order, which after borda is the order of a set of
# strings (it changes with the hash seed), and after min-max-inverted is numba's quicksort among equal scores
BY_PLACE = {"rrf", "rbc", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet"}
NORM_NAMES = [n.name for n in NORMS]
CONDORCET = {"condorcet", "w_condorcet"}
# every (method, normalisation) but condorcet's (compared below on runs whose majorities are a strict order) and
# the methods that read places after borda (ranx's places are then the order of a set of strings)
# (the methods that learn from judged topics are compared in test_fusion_learned.py)
UNSUPERVISED = [m for m in METHODS if m.train is None]
CASES = [(m.name, n) for m in UNSUPERVISED for n in NORM_NAMES
         if m.name not in CONDORCET and not (m.name in BY_PLACE and n == "borda")]


def ranx_fuse(runs, method, norm, params):
    topics = sorted(set().union(*(set(r["qid"]) for r in runs)))
    fused = ranx.fuse([to_ranx(r, topics) for r in runs], norm=None if norm == "none" else norm,
                      method=method_named(method).name, params=params)
    return ranx_frame(fused)


def params_for(method, n_runs, rng):
    params = dict(GIVEN.get(method, {}))
    weights = None
    if method_named(method).weighted:
        weights = list(np.round(rng.uniform(0.1, 1.0, n_runs), 2))
        params["weights"] = weights
    return params, weights


def check_same(ours: pd.DataFrame, theirs: pd.DataFrame):
    both = ours.merge(theirs, on=["qid", "docno"], how="outer", suffixes=("", "_ranx"), indicator=True)
    assert (both["_merge"] == "both").all(), both[both["_merge"] != "both"]
    np.testing.assert_allclose(both["score"], both["score_ranx"], rtol=1e-9, atol=1e-6)
    for _, topic in both.sort_values(["qid", "rank"]).groupby("qid"):
        s, place = topic["score"].to_numpy(), topic["place"].to_numpy()
        apart = s[:-1] > s[1:] + 1e-6                    # consecutive documents whose scores are not tied
        assert (place[:-1][apart] < place[1:][apart]).all()


def fused_pair(runs, method, norm, seed):
    params, weights = params_for(method, len(runs), np.random.default_rng(seed))
    ours = fuse(runs, method, norm=norm, params=GIVEN.get(method), weights=weights, depth=None).table
    return ours, ranx_fuse(runs, method, norm, params)


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_every_method_and_normalisation_gives_ranx_scores(method, norm):
    for seed in range(3):
        runs = random_runs(seed, ties=not (method in BY_PLACE and norm == "min-max-inverted"))
        check_same(*fused_pair(runs, method, norm, seed))


@pytest.mark.parametrize("method", sorted(CONDORCET))
@pytest.mark.parametrize("norm", [n for n in NORM_NAMES if n not in ("borda", "min-max-inverted")])
def test_condorcet_gives_ranx_scores_when_the_majorities_are_a_strict_order(method, norm):
    for seed in range(3):
        runs = condorcet_runs(seed)
        params, weights = params_for(method, 3, np.random.default_rng(seed))
        if weights is not None:                      # the two equal runs outweigh the third
            weights = [0.3, 0.3, 0.4]
            params["weights"] = weights
        ours = fuse(runs, method, norm=norm, weights=weights, depth=None).table
        check_same(ours, ranx_fuse(runs, method, norm, params))


def test_every_method_uses_ranx_default_normalisation():
    for method in METHODS:
        assert method.default_norm == "min-max"        # ranx.fuse(norm="min-max")
    runs = random_runs(7)
    ours = fuse(runs, "sum", depth=None).table
    check_same(ours, ranx_fuse(runs, "sum", "min-max", {}))


def test_a_cycle_of_majorities_scores_each_document_by_its_wins():
    """a > b > c > a by 2 runs to 1 each: every document beats one other, so all score 2 (ranx's answer would
    depend on the order its sort visits them)."""
    rows = [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    runs = [pd.DataFrame({"qid": "1", "docno": list(r), "score": [3.0, 2.0, 1.0]}) for r in rows]
    table = fuse(runs, "condorcet", depth=None).table
    assert table["score"].tolist() == [2.0, 2.0, 2.0]
    assert table["docno"].tolist() == ["c", "b", "a"]          # ties by docno descending


def test_every_registered_method_and_normalisation_is_compared_with_ranx():
    import ranx.fusion as rf
    for method in UNSUPERVISED:
        assert method.ranx and hasattr(rf, method.ranx), method.name
        assert any(m == method.name for m, _ in CASES) or method.name in CONDORCET
    assert {n for _, n in CASES} == set(NORM_NAMES)
