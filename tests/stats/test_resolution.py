"""core.stats.resolution: the per-query table becomes one complete matrix per measure, and the ranks,
intervals and letters are those of core.stats.ranks / core.stats.multisys on that matrix."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from core.stats import multisys
from core.stats import ranks
from core.errors import EvalError
from core.stats.resolution import complete_matrix, resolve


def _per_query(n=30, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.clip(rng.random(n)[:, None] + 0.08 * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, k)), 0, 1)
    rows = [(f"run{j}", f"q{t:02d}", m, X[t, j] * (1 if m == "AP" else 0.5))
            for t in range(n) for j in range(k) for m in ("AP", "P@10")]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]), X


def test_topics_every_run_has_or_zero_filled():
    pq, X = _per_query()
    pq = pq[~((pq["run"] == "run1") & (pq["qid"] == "q03"))]            # run1 lacks q03
    skip, topics = complete_matrix(pq, "AP", ["run0", "run1", "run2", "run3"])
    assert "q03" not in topics and skip.shape == (29, 4)
    zero, topics = complete_matrix(pq, "AP", ["run0", "run1", "run2", "run3"], missing="zero")
    assert zero[topics.index("q03"), 1] == 0.0 and zero.shape == (30, 4)


def test_resolve_equals_the_matrix_functions():
    pq, X = _per_query()
    res = resolve(pq, measures=["AP", "P@10"], test="tukey", n_resamples=300, seed=2)["AP"]
    rank, low, high = ranks.rank_intervals(X, 300, 2)
    assert res.rank == tuple(rank) and res.rank_low == tuple(low) and res.rank_high == tuple(high)
    np.testing.assert_allclose(res.p, multisys.tukey_hsd(X))
    assert res.group == tuple(ranks.compact_letters(X.mean(axis=0), multisys.tukey_hsd(X), 0.05))
    assert res.of("run3")["rank"] == 1 and res.label("run3").startswith("1 (")
    assert set(res.to_dataframe().columns) >= {"rank", "rank_low", "rank_high", "group"}


@pytest.mark.parametrize("test,correction", [("t", "holm"), ("wilcoxon", "bh"), ("randomization-all", "none"),
                                             ("bootstrap", "bonferroni")])
def test_letters_never_join_significantly_different_runs(test, correction):
    pq, _ = _per_query(40, 6, 5)
    res = resolve(pq, measures=["AP"], test=test, correction=correction, n_resamples=400)["AP"]
    for i, j in itertools.combinations(range(6), 2):
        if set(res.group[i]) & set(res.group[j]):
            assert not res.p[i, j] < 0.05


def test_unknown_test_is_named():
    pq, _ = _per_query()
    with pytest.raises(EvalError, match="Unknown test 'tukee'. Choose one of: t, wilcoxon"):
        resolve(pq, measures=["AP"], test="tukee")


def test_permutation_matrix_does_not_depend_on_the_run_order():
    pq, _ = _per_query(20, 4, 7)
    a = resolve(pq, measures=["AP"], test="randomization-all", n_resamples=300)["AP"]
    b = resolve(pq, measures=["AP"], runs=["run3", "run1", "run0", "run2"], test="randomization-all",
                n_resamples=300)["AP"]
    assert b.p_frame().loc[list(a.runs), list(a.runs)].equals(a.p_frame())
    assert [b.of(r) for r in a.runs] == [a.of(r) for r in a.runs]


def test_a_repeated_row_keeps_its_first_value():
    pq, X = _per_query(10, 3)
    twice = pd.concat([pq, pq.assign(value=-1.0)], ignore_index=True)
    np.testing.assert_array_equal(complete_matrix(twice, "AP", ["run0", "run1", "run2"])[0],
                                  complete_matrix(pq, "AP", ["run0", "run1", "run2"])[0])


def test_wide_tables_equal_pivot_table():
    from core.stats.resolution import share, wide_tables
    pq, _ = _per_query(12, 4, 3)
    pq = pq[~((pq["run"] == "run2") & (pq["qid"].isin(["q01", "q07"])))].sample(frac=1.0, random_state=1)
    pq = pd.concat([pq, pq.head(5).assign(value=9.0)], ignore_index=True)       # repeated keys: the first wins
    runs = ["run3", "run0", "run2", "run1"]
    for m, wide in wide_tables(pq, ["AP", "P@10"], runs).items():
        sub = pq[pq["measure"] == m]
        expected = sub.pivot_table(index="qid", columns="run", values="value", aggfunc="first").reindex(columns=runs)
        pd.testing.assert_frame_equal(wide.sort_index(), expected.sort_index(), check_names=False)
    assert wide_tables(pq, ["nDCG"], runs)["nDCG"].empty
    shared = share(pq.copy())                        # factorised once, over every row: the same tables
    for measures in (["AP", "P@10"], ["AP"], ["P@10", "nDCG"]):
        for cols in (runs, ["run3", "run0", "run2"]):
            plain, kept = wide_tables(pq, measures, cols), wide_tables(shared, measures, cols)
            assert plain.keys() == kept.keys()
            for m in plain:
                pd.testing.assert_frame_equal(kept[m].sort_index(), plain[m].sort_index())
    three = ["run3", "run0", "run2"]                 # run1 is in the table but not asked for: left out
    for m, wide in wide_tables(pq, ["AP"], three).items():
        sub = pq[pq["measure"] == m]
        expected = sub.pivot_table(index="qid", columns="run", values="value", aggfunc="first").reindex(columns=three)
        pd.testing.assert_frame_equal(wide.sort_index(), expected.dropna(how="all").sort_index(), check_names=False)


def test_a_shared_frame_is_forgotten_with_it():
    import gc

    from core.stats import resolution
    pq, _ = _per_query(6, 3, 2)
    frame = resolution.share(pq.copy())
    resolution.wide_tables(frame, ["AP"], ["run0", "run1", "run2"])
    key = id(frame)
    assert resolution._SHARED[key][1] is not None
    del frame
    gc.collect()
    assert key not in resolution._SHARED
