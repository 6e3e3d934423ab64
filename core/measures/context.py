"""Per-query data the measures read: judged retrieved rows plus per-query counts, as numpy columns.

`Data` holds what the SQL stage produced (one entry per evaluated (run, qid) "group"):
  num_ret[g], levels[g, l] = number of qrels documents with grade l >= 0,
  and, for every *judged* retrieved document (grade may be negative), its group g, rank and grade,
  sorted by (g, rank). Unjudged retrieved documents are never materialised: every trec_eval measure
  needs only the ranks of the judged ones plus num_ret.
`Ctx` is that data seen at one relevance level (-l or a measure's rel=...). All helpers work on whole
columns (bincount, cumsum, ufunc.at); nothing loops over documents.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np


class Data:
    def __init__(self, num_ret, levels, g, rank, rel, options):
        self.num_ret = np.asarray(num_ret, dtype=np.int64)
        levels = np.asarray(levels, dtype=np.int64)
        self.levels = levels.reshape(len(self.num_ret), levels.shape[1] if levels.ndim == 2 else 1)
        self.g = np.asarray(g, dtype=np.int64)
        self.rank = np.asarray(rank, dtype=np.int64)
        self.rel = np.asarray(rel, dtype=np.int64)
        self.options = options
        self._ctx: dict[int, Ctx] = {}
        self._judged: Data | None = None

    @property
    def n_groups(self) -> int:
        return len(self.num_ret)

    def judged_only(self) -> "Data":
        """The same rankings with every unjudged (or negative-grade) document dropped and the ranks closed up:
        trec_eval's -J, for one measure (ir_measures' judged_only=True)."""
        if self._judged is None:
            num_ret, g, rank, rel = closed_up(self.g, self.rel, self.n_groups)
            self._judged = Data(num_ret, self.levels, g, rank, rel, self.options)
        return self._judged

    def ctx(self, rel_level: int) -> "Ctx":
        if rel_level not in self._ctx:
            self._ctx[rel_level] = Ctx(self, int(rel_level))
        return self._ctx[rel_level]


def closed_up(g: np.ndarray, rel: np.ndarray, n_groups: int):
    """(num_ret, g, rank, rel) of judged rows sorted by (group, rank) with the unjudged (negative-grade) ones
    dropped and each group's ranks closed up: trec_eval's -J."""
    keep = rel >= 0
    g, rel = g[keep], rel[keep]
    num_ret = np.bincount(g, minlength=n_groups).astype(np.int64)
    starts = np.r_[0, np.cumsum(num_ret)[:-1]]
    return num_ret, g, np.arange(len(g)) - starts[g] + 1, rel


def safe_div(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


SEGCUM_CELLS = 1 << 22        # cells of the padded (groups x longest group) block segcum_floats sums at once


def segcum_floats(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Cumulative sums within contiguous groups (`starts`: each row's group's first row), each group summed
    sequentially from its own first row: np.cumsum along the rows of a zero-padded (groups x longest) block, a
    block of groups at a time. Plain equivalent: np.concatenate([np.cumsum(x[a:b]) for a, b in groups])
    (tests/distributed/test_distributed.py compares the two)."""
    n = len(x)
    first = np.flatnonzero(np.r_[True, starts[1:] != starts[:-1]])
    lengths = np.diff(np.r_[first, n])
    pos = np.arange(n) - starts
    out = np.empty(n, dtype=np.float64)
    group = np.repeat(np.arange(len(first)), lengths)
    wide = int(lengths.max())
    per_block = max(1, SEGCUM_CELLS // wide)         # groups per block: a few blocks even for millions of rows
    for a in range(0, len(first), per_block):
        b = min(a + per_block, len(first))
        lo, hi = first[a], first[b] if b < len(first) else n
        block = np.zeros((b - a, wide), dtype=np.float64)
        block[group[lo:hi] - a, pos[lo:hi]] = x[lo:hi]
        out[lo:hi] = np.cumsum(block, axis=1)[group[lo:hi] - a, pos[lo:hi]]
    return out


class Ctx:
    """The data at relevance level L: `isrel` = grade >= L (grades < 0 are never relevant)."""

    def __init__(self, data: Data, L: int):
        self.d = data
        self.L = L
        self.Q = data.n_groups
        self.g, self.rank, self.rel = data.g, data.rank, data.rel
        self.num_ret = data.num_ret
        self.options = data.options

    # --- segment helpers -------------------------------------------------------------------
    def segsum(self, w) -> np.ndarray:
        return np.bincount(self.g, weights=np.asarray(w, dtype=np.float64), minlength=self.Q)

    def segcount(self, mask) -> np.ndarray:
        return np.bincount(self.g[mask], minlength=self.Q).astype(np.int64)

    def segmax(self, values, mask, empty=0.0) -> np.ndarray:
        out = np.full(self.Q, empty, dtype=np.float64)
        np.maximum.at(out, self.g[mask], np.asarray(values, dtype=np.float64)[mask])
        return out

    @cached_property
    def starts(self) -> np.ndarray:
        """Index of each row's group's first row."""
        if len(self.g) == 0:
            return np.zeros(0, dtype=np.int64)
        first = np.r_[True, self.g[1:] != self.g[:-1]]
        return np.maximum.accumulate(np.where(first, np.arange(len(self.g)), 0))

    def segcum(self, x) -> np.ndarray:
        """Inclusive cumulative sum of x within each group. Integers: one cumsum over every row minus the sum
        before the group (exact). Other floats: each group summed from its own first row (segcum_floats), so a
        topic's value does not depend on which other topics or runs are evaluated with it (a Dask bucket of
        topics gives the bits the whole run gives); the global cumsum would carry the rounding of every earlier
        group into it."""
        x = np.asarray(x)
        if x.dtype.kind == "f" and len(x) and not np.array_equal(x, np.round(x)):
            return segcum_floats(x, self.starts)
        cs = np.cumsum(x)
        return cs - (cs - x)[self.starts]

    def per_row(self, per_group) -> np.ndarray:
        return np.asarray(per_group)[self.g]

    def within(self, k) -> np.ndarray:
        """rank <= k, k a scalar or a per-group array."""
        k = np.asarray(k)
        return self.rank <= (k[self.g] if k.ndim else k)

    # --- relevance ---------------------------------------------------------------------------
    @cached_property
    def isrel(self):
        return (self.rel >= self.L) & (self.rel >= 0)

    @cached_property
    def isnonrel(self):
        return (self.rel >= 0) & (self.rel < self.L)

    @cached_property
    def isneg(self):
        return self.rel < 0

    @cached_property
    def relcum(self):
        return self.segcum(self.isrel.astype(np.int64))

    @cached_property
    def nonrel_before(self):
        x = self.isnonrel.astype(np.int64)
        return self.segcum(x) - x

    @cached_property
    def neg_before(self):
        x = self.isneg.astype(np.int64)
        return self.segcum(x) - x

    @cached_property
    def R(self):
        lv = self.d.levels
        return lv[:, max(self.L, 0):].sum(axis=1) if self.L < lv.shape[1] else np.zeros(self.Q, np.int64)

    @cached_property
    def num_nonrel(self):
        return self.d.levels[:, :max(self.L, 0)].sum(axis=1)

    @cached_property
    def num_rel_ret(self):
        return self.segcount(self.isrel)

    def rel_within(self, k) -> np.ndarray:
        return self.segcount(self.isrel & self.within(k))

    @cached_property
    def prec_at_rel(self):
        """Precision at each row (meaningful on relevant rows)."""
        return self.relcum / self.rank

    # --- graded gains (independent of L, as in trec_eval) ---------------------------------------
    @cached_property
    def npos(self):
        return self.d.levels[:, 1:].sum(axis=1)

    def ideal(self, k, gain="linear", disc="log2", groups=None) -> np.ndarray:
        """Ideal cumulative discounted gain over the first k ideal positions (k per group or per item).
        `gain` is 'linear', 'exp' or a {grade: gain} dict (trec_eval's ndcg.1=3,2=9 form)."""
        lv = self.d.levels if groups is None else self.d.levels[groups]
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (lv.shape[0],))
        gains = {lvl: float(gain_of(lvl, gain)) for lvl in range(lv.shape[1])}
        order = sorted((lvl for lvl, g in gains.items() if g > 0), key=lambda lvl: -gains[lvl])
        H = discount_prefix(int(lv[:, order].sum(axis=1).max(initial=0)) + 1, disc)
        total = np.zeros(lv.shape[0])
        above = np.zeros(lv.shape[0], dtype=np.int64)
        for level in order:
            c = lv[:, level]
            m = np.clip(k - above, 0, c)
            total += gains[level] * (H[above + m] - H[above])
            above = above + c
        return total


def gain_of(level, kind="linear"):
    if isinstance(kind, dict):
        lv = np.asarray(level)
        out = np.where(lv > 0, lv, 0).astype(np.float64)
        for grade, g in kind.items():
            out = np.where(lv == grade, g, out)
        return out
    level = np.asarray(level, dtype=np.float64)
    if kind == "exp":
        return np.where(level > 0, np.exp2(level) - 1.0, 0.0)
    return np.where(level > 0, level, 0.0)


def discount(rank, kind="log2"):
    """Weight of rank r (1-based): 1/log2(r+1) (trec_eval), 1/log2(r) for r>=2 and 1 at r=1 ('jk'),
    or 1 ('none', plain cumulative gain)."""
    r = np.asarray(rank, dtype=np.float64)
    if kind == "jk":
        return np.where(r <= 1, 1.0, 1.0 / np.log2(np.maximum(r, 2.0)))
    if kind == "none":
        return np.ones_like(r)
    return 1.0 / np.log2(r + 1.0)


def discount_prefix(n, kind="log2") -> np.ndarray:
    """H[i] = sum of discount(1..i), H[0] = 0."""
    return np.r_[0.0, np.cumsum(discount(np.arange(1, n + 1), kind))]
