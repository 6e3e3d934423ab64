"""Rank resolution: bootstrap rank intervals and compact-letter groups of runs.

- Rank intervals. One seeded bootstrap draw of the topics (stats._count_blocks: the same draw for
  every run) gives every run a mean in each resample; each resample ranks the runs (1 = best,
  ties share the best rank: 1 + the number of runs with a strictly higher mean), and a run's
  95% rank interval is the 2.5% and 97.5% quantiles of its ranks (inverted-CDF quantiles, so the
  ends are ranks that occurred).
- Compact letters. Runs that share a letter are not significantly different; every pair that is
  not significantly different shares a letter. Built by Piepho's insert-and-absorb algorithm
  from the runs x runs matrix of adjusted p-values (core.stats.multisys), letters ordered by the best
  mean of their runs ('a' holds the top run).

References
- H.-P. Piepho. "An algorithm for a letter-based representation of all-pairwise comparisons."
  Journal of Computational and Graphical Statistics 13(2), 2004.
- B. Efron, R. Tibshirani. "An Introduction to the Bootstrap", 1993 (percentile intervals).
"""
from __future__ import annotations

import string

import numpy as np

from core.stats import paired as stats

LETTERS = string.ascii_lowercase + string.ascii_uppercase


def observed_ranks(means) -> np.ndarray:
    """1 + the number of runs with a strictly higher mean (ties share the best rank)."""
    means = np.asarray(means, dtype=float)
    return 1 + (means[None, :] > means[:, None]).sum(axis=1)


def rank_intervals(X, n_resamples: int = 1000, seed: int = 0,
                   level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank, rank_low, rank_high) of each column of the complete topics x runs matrix X."""
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    rank = observed_ranks(X.mean(axis=0)) if n else np.ones(k, dtype=int)
    if n == 0 or k == 0:
        return rank, rank.copy(), rank.copy()
    hist = np.zeros((k, k), dtype=np.int64)     # hist[j, r - 1]: resamples that put run j at rank r
    for counts in stats._count_blocks(n, n_resamples, seed):
        M = counts @ X
        ranks = 1 + (M[:, None, :] > M[:, :, None]).sum(axis=2)          # resamples x runs
        hist += np.bincount((np.arange(k) * k + ranks - 1).ravel(), minlength=k * k).reshape(k, k)
    tail = (1.0 - level) / 2.0
    cdf = np.cumsum(hist, axis=1) / n_resamples
    low = 1 + (cdf < tail - 1e-12).sum(axis=1)
    high = 1 + (cdf < 1.0 - tail - 1e-12).sum(axis=1)
    return rank, low, high


def _absorb(columns: list[int]) -> list[int]:
    """Drop every column (a bit set of runs) contained in another one, keeping first occurrences."""
    out: list[int] = []
    for i, c in enumerate(columns):
        if c in columns[:i]:
            continue
        if any(o != c and (c & o) == c for o in columns):
            continue
        out.append(c)
    return out


def letter_sets(significant) -> list[int]:
    """Piepho's insert-and-absorb: bit sets of runs such that no set holds a significant pair and
    every non-significant pair lies in some set. `significant` is a symmetric k x k boolean matrix."""
    sig = np.asarray(significant, dtype=bool)
    k = sig.shape[0]
    columns = [(1 << k) - 1] if k else []
    a_idx, b_idx = np.nonzero(np.triu(sig, 1))
    for a, b in zip(a_idx.tolist(), b_idx.tolist()):
        both = (1 << a) | (1 << b)
        split = []
        for c in columns:
            if c & both == both:
                split += [c & ~(1 << a), c & ~(1 << b)]
            else:
                split.append(c)
        columns = _absorb(split)
    return columns


def compact_letters(means, p_matrix, alpha: float = 0.05) -> list[str]:
    """The letters of each run ('a', 'ab', ...): runs sharing a letter have adjusted p >= alpha.

    A pair whose p-value is NaN (not computable) counts as not significantly different."""
    means = np.asarray(means, dtype=float)
    p = np.asarray(p_matrix, dtype=float)
    k = len(means)
    with np.errstate(invalid="ignore"):
        sig = np.nan_to_num(p, nan=1.0) < alpha
    np.fill_diagonal(sig, False)
    sets = letter_sets(sig | sig.T)
    order = np.argsort(-means, kind="stable")
    position = np.empty(k, dtype=int)
    position[order] = np.arange(k)
    members = [[j for j in range(k) if s >> j & 1] for s in sets]
    members.sort(key=lambda js: sorted(position[j] for j in js))
    out = [""] * k
    for i, js in enumerate(members):
        letter = LETTERS[i] if i < len(LETTERS) else f"[{i + 1}]"
        for j in js:
            out[j] += letter
    return out


def format_rank(rank: int, low: int, high: int) -> str:
    """'2 (1–4)'; a rank with no uncertainty is just '1 (1–1)'."""
    return f"{int(rank)} ({int(low)}–{int(high)})"


__all__ = ["observed_ranks", "rank_intervals", "letter_sets", "compact_letters", "format_rank"]
