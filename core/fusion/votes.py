"""The rows of a normalised Stack grouped by fused document (topic, doc): what every fusion method reads.

`Votes` sorts the rows once by (topic, doc); a method then sums, counts, or takes the extremes of per-row values
with ufunc reductions over those groups, never a Python loop over documents.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.fusion.stack import Stack

__all__ = ["Votes", "votes"]


@dataclass(frozen=True)
class Votes:
    stack: Stack
    weights: np.ndarray        # one per run
    order: np.ndarray          # stack rows sorted by (topic, doc)
    start: np.ndarray          # first sorted row of each fused document
    topic: np.ndarray          # each fused document's topic code
    doc: np.ndarray            # each fused document's doc code
    count: np.ndarray          # how many runs retrieved it (after normalisation)
    group: np.ndarray          # each sorted row's fused document

    def total(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row `values` (in stack order) over each fused document's rows."""
        return self.reduce(np.add, values)

    def reduce(self, ufunc, values: np.ndarray) -> np.ndarray:
        if len(self.start) == 0:
            return np.zeros(0)
        return ufunc.reduceat(np.asarray(values, float)[self.order], self.start)

    def median(self, values: np.ndarray) -> np.ndarray:
        """np.median of each fused document's values (the mean of the middle two for an even count)."""
        if len(self.start) == 0:
            return np.zeros(0)
        v = np.asarray(values, float)[self.order]
        v = v[np.lexsort((v, self.group))]
        low = self.start + (self.count - 1) // 2
        high = self.start + self.count // 2
        return (v[low] + v[high]) / 2

    def by_run(self, values: np.ndarray, out: np.ndarray) -> np.ndarray:
        """`out` (runs x fused documents) with each run's per-row `values` (in stack order) put in its row at
        the fused documents it retrieved; the other cells keep what `out` held."""
        out[self.stack.run[self.order], self.group] = np.asarray(values)[self.order]
        return out

    @property
    def w(self) -> np.ndarray:
        """Each row's run weight, in stack order."""
        return self.weights[self.stack.run]


def votes(s: Stack, weights: np.ndarray) -> Votes:
    key = s.topic * max(len(s.docs), 1) + s.doc
    order = np.argsort(key, kind="stable")
    k = key[order]
    new = np.r_[True, k[1:] != k[:-1]] if len(k) else np.zeros(0, bool)
    start = np.flatnonzero(new)
    count = np.diff(np.r_[start, len(k)])
    return Votes(s, np.asarray(weights, float), order, start, s.topic[order][start], s.doc[order][start], count,
                 np.repeat(np.arange(len(start)), count))
