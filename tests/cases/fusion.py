"""ranx as the oracle of core.fusion: runs given to ranx in Rankboard's order, random runs, and ranx's fused run
as a frame.

ranx keeps a ranking as a dict in its sorted order, and sorts equal scores with numba's quicksort, whose order is
not defined. `to_ranx` hands ranx each ranking already in trec_eval's order (score descending, docno descending),
so that the methods that read places see the places Rankboard sees.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def to_ranx(run: pd.DataFrame, topics: list[str]):
    """A ranx.Run holding `run` (qid, docno, score) in trec_eval's order, every topic of `topics` present."""
    import ranx
    from numba import types
    from numba.typed import Dict
    inner = types.DictType(types.unicode_type, types.float64)
    d = Dict.empty(types.unicode_type, inner)
    ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    for qid in sorted(topics):
        ranking = Dict.empty(types.unicode_type, types.float64)
        rows = ordered[ordered["qid"] == qid]
        for docno, score in zip(rows["docno"], rows["score"]):
            ranking[str(docno)] = float(score)
        d[qid] = ranking
    out = ranx.Run()
    out.run, out.sorted = d, True
    return out


def ranx_frame(run) -> pd.DataFrame:
    """ranx's fused run as (qid, docno, score, place), place 0-based in ranx's order."""
    rows = [(q, doc, float(s), i) for q in run.run.keys() for i, (doc, s) in enumerate(run.run[q].items())]
    return pd.DataFrame(rows, columns=["qid", "docno", "score", "place"])


def random_runs(seed: int, *, ties: bool = True, n_runs: int | None = None, n_topics: int = 3) -> list[pd.DataFrame]:
    """Random runs over the same topics: each retrieves a random subset (so documents go missing from some runs) of
    a random depth; with `ties`, scores come from few values, so runs hold ties."""
    rng = np.random.default_rng(seed)
    n_runs = n_runs or int(rng.integers(2, 5))
    runs = []
    for _ in range(n_runs):
        parts = []
        for t in range(n_topics):
            depth = int(rng.integers(1, 25))
            docs = rng.choice(30, size=depth, replace=False)
            score = rng.integers(-3, 5, depth) * 0.5 if ties else rng.normal(size=depth) * 3
            parts.append(pd.DataFrame({"qid": f"q{t + 1}", "docno": [f"d{d:02d}" for d in docs], "score": score}))
        runs.append(pd.concat(parts, ignore_index=True))
    return runs


def condorcet_runs(seed: int) -> list[pd.DataFrame]:
    """Three runs whose majorities are a strict order: the first two rank the same documents the same way, the
    third a random part of them in a random order (so ranx's sort meets a consistent comparison)."""
    rng = np.random.default_rng(seed)
    a_parts, c_parts = [], []
    for t in range(3):
        depth = int(rng.integers(2, 20))
        docs = [f"d{d:02d}" for d in rng.choice(30, size=depth, replace=False)]
        a_parts.append(pd.DataFrame({"qid": f"q{t + 1}", "docno": docs, "score": np.arange(depth, 0, -1.0)}))
        sub = list(rng.permutation(docs)[: int(rng.integers(1, depth + 1))])
        c_parts.append(pd.DataFrame({"qid": f"q{t + 1}", "docno": sub, "score": np.arange(len(sub), 0, -1.0)}))
    a = pd.concat(a_parts, ignore_index=True)
    return [a, a.copy(), pd.concat(c_parts, ignore_index=True)]
