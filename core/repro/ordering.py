"""How alike two runs order their documents, topic by topic: Kendall's tau union (KTU) and the extrapolated
rank-biased overlap (RBO), as repro_eval defines them for reproducibility.

Both read each run's ranking in trec_eval's order (score descending, then docno descending), cut at `depth`
documents (repro_eval's default: 1000), and are computed on the topics both runs have.

- KTU (Breuer et al., "How to measure the reproducibility of system-oriented IR experiments", SIGIR 2020;
  repro_eval's `KTU`): the documents of both rankings are numbered by their place in the sorted union of the two
  lists; Kendall's tau (scipy's tau-b) then compares the two lists of numbers position by position. 1 when the lists
  are the same. Each document's number here is its place among all documents of both runs (one sorted numbering
  for every topic): tau depends only on the order of the numbers, so it equals the union's numbering. repro_eval
  needs lists of equal length; lists of different lengths are compared on their first min(length) positions.
- RBO (Webber, Moffat and Zobel, "A similarity measure for indefinite rankings", TOIS 28(4), 2010, equation 32,
  the extrapolated RBO_ext that repro_eval computed for the SIGIR 2020 paper with p = 0.8): with X_d the number of
  documents in both top-d lists (the shorter list whole past its length s; l is the longer list's length),
  RBO_ext = (1-p)/p [sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d-s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l.
  1 when the lists are the same. (repro_eval 0.5.0 defaults to another RBO, Clarke et al.'s truncated and
  normalised one with p = 0.95.)

X_d comes from the documents both lists hold: a document counts from depth max(its two ranks) on, so X is a
cumulative sum of one bincount over every topic, with no loop over documents or topics (`rbo_ext`, which
core.analysis.perquery also uses).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.errors import OptionError

DEPTH = 1000
RBO_P = 0.8


def ranked(table, depth: int = DEPTH) -> pd.DataFrame:
    """A run's (qid, docno, score) table (pyarrow or pandas) -> qid, docno, rank (0-based) in trec_eval's order,
    the first `depth` documents of each topic."""
    df = table.to_pandas() if hasattr(table, "to_pandas") and not isinstance(table, pd.DataFrame) else table
    df = df[["qid", "docno", "score"]].astype({"qid": str, "docno": str, "score": float})
    df = df.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
    df = df.assign(rank=df.groupby("qid", sort=False).cumcount())
    return df.loc[df["rank"] < depth, ["qid", "docno", "rank"]].reset_index(drop=True)


def ktu(original: pd.DataFrame, reproduced: pd.DataFrame) -> pd.Series:
    """Kendall's tau union per topic (index qid), from two `ranked` tables; NaN where fewer than 2 positions."""
    from scipy.stats import kendalltau
    codes, _ = pd.factorize(pd.concat([original["docno"], reproduced["docno"]], ignore_index=True), sort=True)
    a, b = codes[:len(original)], codes[len(original):]
    topics = sorted(set(original["qid"]) & set(reproduced["qid"]))
    so, sr = (df.groupby("qid", sort=False).indices for df in (original, reproduced))   # qid -> its rows, by rank
    out = np.full(len(topics), np.nan)
    for i, q in enumerate(topics):
        x, y = a[so[q]], b[sr[q]]
        n = min(len(x), len(y))
        if n >= 2:
            out[i] = kendalltau(x[:n], y[:n]).statistic
    return pd.Series(out, index=pd.Index(topics, name="qid"), name="ktu")


def rbo(original: pd.DataFrame, reproduced: pd.DataFrame, p: float = RBO_P) -> pd.Series:
    """Extrapolated RBO per topic (index qid), from two `ranked` tables, on the topics both have."""
    if not 0 < p < 1:
        raise OptionError(f"RBO's p must be between 0 and 1 (e.g. 0.8), not {p!r}.")
    both = original.merge(reproduced, on=["qid", "docno"], how="outer", suffixes=("_a", "_b"))
    both = both[both["qid"].isin(set(original["qid"]) & set(reproduced["qid"]))]
    return rbo_ext(both.assign(rank_a=both["rank_a"] + 1, rank_b=both["rank_b"] + 1), p)


def rbo_ext(both: pd.DataFrame, p: float) -> pd.Series:
    """RBO_ext per qid (eq. 32 above) from one row per (qid, document) in either list, with its 1-based rank_a and
    rank_b (NaN: not in that list); every topic at once. A topic with one empty list scores 0 (NaN: both empty)."""
    qids, q = np.unique(both["qid"].to_numpy(dtype=str), return_inverse=True)
    ra, rb = both["rank_a"].to_numpy(dtype=float), both["rank_b"].to_numpy(dtype=float)
    len_a = np.bincount(q, weights=~np.isnan(ra), minlength=len(qids))
    len_b = np.bincount(q, weights=~np.isnan(rb), minlength=len(qids))
    s, l = np.minimum(len_a, len_b).astype(int), np.maximum(len_a, len_b).astype(int)
    L = max(int(l.max(initial=0)), 1)
    shared = ~np.isnan(ra) & ~np.isnan(rb)
    enter = np.maximum(ra[shared], rb[shared]).astype(int)  # depth at which the document is in both prefixes
    X = np.bincount(q[shared] * L + enter - 1, minlength=len(qids) * L).reshape(len(qids), L).cumsum(axis=1)
    d = np.arange(1, L + 1)
    rows = np.arange(len(qids))
    X_s = X[rows, np.maximum(s, 1) - 1]
    X_l = X[rows, np.maximum(l, 1) - 1]
    weight = p ** d
    within = d[None, :] <= l[:, None]
    beyond = within & (d[None, :] > s[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        first = (X / d * weight * within).sum(axis=1)
        second = (X_s[:, None] * (d - s[:, None]) / (s[:, None] * d) * weight * beyond).sum(axis=1)
        value = (1 - p) / p * (first + np.where(s > 0, second, 0.0)) \
            + ((X_l - X_s) / l + np.where(s > 0, X_s / np.maximum(s, 1), 0.0)) * p ** l
    value = np.where(s == 0, np.where(l > 0, 0.0, np.nan), value)
    return pd.Series(value, index=pd.Index(qids, name="qid"), name="rbo")


__all__ = ["ranked", "ktu", "rbo", "rbo_ext", "DEPTH", "RBO_P"]
