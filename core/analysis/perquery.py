"""Per-query analysis of two runs: which topics differ, by how much, and how differently they rank.

"How different" follows DiffIR (Jose et al., SIGIR 2021 demo): beside the measure delta, two rank
similarities between the two rankings of each topic, over each run's top `depth` documents:

- Kendall's tau-b (scipy.stats.kendalltau) over the UNION of the two lists. A document that one
  run did not retrieve (within depth) is placed in that run after all its retrieved documents, all
  such documents tied; so a document only one run found counts as disagreement, and two disjoint
  lists score below 0 rather than being undefined. (Over the intersection alone, two runs that
  share 2 of 100 documents in the same order would score 1.)
- RBO, rank-biased overlap with persistence p = 0.9, the EXTRAPOLATED form RBO_ext for lists of
  possibly different lengths: W. Webber, A. Moffat, J. Zobel. "A similarity measure for indefinite
  rankings." ACM TOIS 28(4), 2010, eq. (32). 1 = identical, 0 = disjoint (core.repro.ordering.rbo_ext).

Ranks are trec_eval's canonical ranks (score desc, docno desc), the store's `rank` column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sp

from core.analysis.curves import canonical_ranking
from core.repro.ordering import rbo_ext


def query_deltas(per_query: pd.DataFrame, run_a: str, run_b: str, measure: str, *, topics=None) -> pd.DataFrame:
    """Per topic: a, b, delta = b - a and |delta|, largest gain first; `text` from a topics frame."""
    sub = per_query[(per_query["measure"] == measure) & per_query["run"].isin([run_a, run_b])]
    wide = sub.assign(qid=sub["qid"].astype(str)).pivot_table(index="qid", columns="run", values="value",
                                                              aggfunc="first")
    wide = wide.reindex(columns=[run_a, run_b]).dropna()
    out = pd.DataFrame({"qid": wide.index, "a": wide[run_a].to_numpy(), "b": wide[run_b].to_numpy()})
    out["delta"] = out["b"] - out["a"]
    out["abs_delta"] = out["delta"].abs()
    texts = {} if topics is None else dict(zip(topics["qid"].astype(str), topics["text"]))
    out.insert(1, "text", out["qid"].map(texts))
    return out.sort_values(["delta", "qid"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _union_ranks(ranking_a: pd.DataFrame, ranking_b: pd.DataFrame, depth: int | None) -> pd.DataFrame:
    """One row per (qid, docno) in either top-depth list, with rank_a / rank_b (NaN = absent)."""
    parts = []
    for ranking in (ranking_a, ranking_b):
        r = canonical_ranking(ranking)
        parts.append(r.loc[r["rank"] <= (depth or np.inf), ["qid", "docno", "rank"]])
    return parts[0].merge(parts[1], on=["qid", "docno"], how="outer", suffixes=("_a", "_b"))


def kendall_union(both: pd.DataFrame) -> pd.Series:
    """Kendall's tau-b per qid over the union of the two lists (absent = tied after the list), as
    scipy.stats.kendalltau gives it. Rankings (distinct ranks within each list, as canonical ranks are) take a
    vectorised path; lists with tied ranks, one scipy call per topic."""
    fast = _kendall_rankings(both)
    return fast if fast is not None else _kendall_scipy(both)


def _kendall_rankings(both: pd.DataFrame) -> pd.Series | None:
    """tau-b of every topic at once, when each list's present ranks are distinct within a topic (else None).

    With absent documents tied after each list, the pairs fall into kinds whose sign products are known:
    in both lists (I) x in both: concordant unless the two lists order them differently (an inversion);
    I x only in A: +1 when the A-only document is below, -1 above; I x only in B: the same in B;
    only in A x only in B: -1; only-A x only-A and only-B x only-B: tied in one list, 0.
    tau-b = S / sqrt(pairs untied in a * pairs untied in b), untied = all pairs minus those among the absent.
    """
    if both.empty:
        return pd.Series(dtype=float, name="kendall_tau").rename_axis("qid")
    qids, q = np.unique(both["qid"].to_numpy(dtype=str), return_inverse=True)
    ra, rb = both["rank_a"].to_numpy(dtype=float), both["rank_b"].to_numpy(dtype=float)
    in_a, in_b = ~np.isnan(ra), ~np.isnan(rb)
    T = len(qids)
    m = np.bincount(q, minlength=T).astype(float)
    n_oa = np.bincount(q, weights=in_a & ~in_b, minlength=T)
    n_ob = np.bincount(q, weights=in_b & ~in_a, minlength=T)
    sums = []
    for r, present, other in ((ra, in_a, in_b), (rb, in_b, in_a)):
        idx = np.flatnonzero(present)
        order = idx[np.lexsort((r[idx], q[idx]))]
        qs, rs = q[order], r[order]
        if np.any((qs[1:] == qs[:-1]) & (rs[1:] == rs[:-1])):
            return None                                        # tied ranks in a list: the general path
        # for each shared document: (# documents only in this list below it) - (# above it)
        only = (~other[order]).astype(float)
        start = np.r_[0, np.flatnonzero(qs[1:] != qs[:-1]) + 1]
        before = np.cumsum(only) - only
        before -= np.repeat(before[start] if len(start) else before[:0], np.diff(np.r_[start, len(qs)]))
        total_only = np.bincount(q, weights=present & ~other, minlength=T)
        shared = other[order]
        sums.append(np.bincount(qs[shared], weights=total_only[qs[shared]] - 2 * before[shared], minlength=T))
    # inversions among the shared documents: pairs ordered one way by a and the other way by b
    shared = np.flatnonzero(in_a & in_b)
    order = shared[np.lexsort((ra[shared], q[shared]))]
    qs, bs = q[order], rb[order]
    k = np.bincount(qs, minlength=T)
    inv = np.zeros(T)
    if len(qs):
        width = int(k.max())
        pos = np.arange(len(qs)) - (np.cumsum(k) - k)[qs]
        B = np.full((T, width), np.inf)
        B[qs, pos] = bs
        upper = np.triu(np.ones((width, width), dtype=bool), 1)
        step = max(1, (1 << 22) // (width * width))
        for lo in range(0, T, step):
            blk = B[lo:lo + step]
            inv[lo:lo + step] = ((blk[:, :, None] > blk[:, None, :]) & upper).sum(axis=(1, 2))
    s = k * (k - 1) / 2 - 2 * inv + sums[0] + sums[1] - n_oa * n_ob
    pairs = m * (m - 1) / 2
    na, nb = pairs - n_ob * (n_ob - 1) / 2, pairs - n_oa * (n_oa - 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where((na > 0) & (nb > 0) & (m > 1), s / np.sqrt(na * nb), np.nan)
    return pd.Series(tau, index=pd.Index(qids, name="qid"), name="kendall_tau", dtype=float)


def _kendall_scipy(both: pd.DataFrame) -> pd.Series:
    out = {}
    for qid, g in both.groupby("qid", sort=True):  # one scipy call per topic, O(n log n) each
        a, b = g["rank_a"].to_numpy(dtype=float), g["rank_b"].to_numpy(dtype=float)
        a = np.where(np.isnan(a), np.nanmax(a, initial=0) + 1, a)
        b = np.where(np.isnan(b), np.nanmax(b, initial=0) + 1, b)
        out[qid] = sp.kendalltau(a, b).statistic if len(g) > 1 else np.nan
    return pd.Series(out, name="kendall_tau", dtype=float).rename_axis("qid")


def ranking_differences(ranking_a: pd.DataFrame, ranking_b: pd.DataFrame, *, depth: int | None = 100,
                        p: float = 0.9) -> pd.DataFrame:
    """Per topic in both runs: overlap (shared docs in the top depth), kendall_tau, rbo."""
    return differences(_union_ranks(ranking_a, ranking_b, depth), p)


def differences(both: pd.DataFrame, p: float) -> pd.DataFrame:
    """ranking_differences from a `_union_ranks` frame (qid, docno, rank_a, rank_b)."""
    in_both = set(both.loc[both["rank_a"].notna(), "qid"]) & set(both.loc[both["rank_b"].notna(), "qid"])
    both = both[both["qid"].isin(in_both)]
    overlap = (both["rank_a"].notna() & both["rank_b"].notna()).groupby(both["qid"]).sum().rename("overlap")
    return pd.concat([overlap, kendall_union(both), rbo_ext(both, p)], axis=1).reset_index()


def how_different(per_query, ranking_a, ranking_b, run_a: str, run_b: str, measure: str, *, topics=None,
                  depth: int | None = 100, p: float = 0.9) -> pd.DataFrame:
    """query_deltas joined with ranking_differences, most different (largest |delta|) first."""
    return most_different(query_deltas(per_query, run_a, run_b, measure, topics=topics),
                           ranking_differences(ranking_a, ranking_b, depth=depth, p=p))


def most_different(deltas: pd.DataFrame, diff: pd.DataFrame) -> pd.DataFrame:
    out = deltas.merge(diff, on="qid", how="left")
    return out.sort_values(["abs_delta", "rbo", "qid"], ascending=[False, True, True], kind="stable") \
        .reset_index(drop=True)


def side_by_side(ranking_a, ranking_b, qrels: pd.DataFrame, qid: str, *, documents: dict | None = None,
                 depth: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two rankings of one topic: rank, docno, score, grade (None = unjudged), other_rank, text."""
    ra = canonical_ranking(ranking_a[ranking_a["qid"].astype(str) == str(qid)])
    rb = canonical_ranking(ranking_b[ranking_b["qid"].astype(str) == str(qid)])
    mine = qrels[qrels["qid"].astype(str) == str(qid)]
    grades = mine.groupby(mine["docno"].astype(str))["rel"].max()
    return _side(ra, rb, grades, documents, depth), _side(rb, ra, grades, documents, depth)


def _side(r, other, grades, documents, depth) -> pd.DataFrame:
    r = r[r["rank"] <= (depth or np.inf)]
    other_rank = other.set_index("docno")["rank"]
    out = pd.DataFrame({"rank": r["rank"].astype(int).to_numpy(), "docno": r["docno"].to_numpy(),
                        "score": r["score"].to_numpy()})
    out["grade"] = ints(out["docno"].map(grades))
    out["other_rank"] = ints(out["docno"].map(other_rank))
    out["text"] = objects(out["docno"].map(documents or {}))
    return out


def ints(values: pd.Series) -> pd.Series:
    """Whole numbers as Python ints, missing as None (object dtype), without a loop over rows."""
    return objects(pd.to_numeric(values).astype("Int64"))


def objects(values: pd.Series) -> pd.Series:
    return values.astype(object).where(values.notna(), None)


