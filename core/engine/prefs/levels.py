"""Area counts of equivalence-class (EC) judgment groups without listing their preference pairs.

In an EC group every row prefers every row of each lower rel_level, and each level's rows are sorted by docid.
So instead of the pairs (row, row below) it is enough to visit the items (row, level below): the number of rows
of that level with docid in an interval is a difference of two np.searchsorted positions in one sorted key array
(level * width + docid). A topic's ~rel x nonrel pairs become ~rel x (number of lower levels) items. The plain
form is core.engine.prefs.counts' pair expansion (prefs_counts.PAIR_FREE = False), which tests compare with this.
"""
from __future__ import annotations

import numpy as np

from core.engine.prefs.graph import Graph

ITEMS = 2_000_000                   # (row, lower level) items handled at once: bounded memory


def level_counts(graph: Graph, c: dict, rows: np.ndarray) -> None:
    """Add the five area counts and the Rnonrel recounts of `rows` (all rows of some EC groups) to `c`."""
    if len(rows) == 0:
        return
    level = np.cumsum(graph.pos == 0) - 1                      # level run of every row, in row order
    level_lo = np.flatnonzero(graph.pos == 0)
    level_hi = np.r_[level_lo[1:], len(graph.g)]
    width = np.int64(graph.docid.max() + 2)
    keys = level * width + graph.docid                         # ascending: levels in row order, docids sorted
    has = graph.start[rows] < graph.end[rows]
    rows = rows[has]
    first = level[graph.start[rows]]
    n_items = level[graph.end[rows] - 1] - first + 1
    bounds = np.searchsorted(np.cumsum(n_items), np.arange(ITEMS, n_items.sum() + ITEMS, ITEMS), side="right")
    lo = 0
    for hi in np.r_[bounds, len(rows)]:
        if hi > lo:
            _items(graph, c, rows[lo:hi], first[lo:hi], n_items[lo:hi], level_lo, level_hi, keys, width)
        lo = max(lo, hi)


def _items(graph: Graph, c: dict, rows, first, n_items, level_lo, level_hi, keys, width) -> None:
    a = np.repeat(rows, n_items)
    m = np.repeat(first, n_items) + (np.arange(len(a)) - np.repeat(np.cumsum(n_items) - n_items, n_items))
    g, ad = graph.g[a], graph.docid[a]
    njr = graph.njr[graph.group_topic[g]]
    size = level_hi[m] - level_lo[m]

    def below(doc):                                            # rows of level m with docid < doc
        return np.searchsorted(keys, m * width + doc, side="left") - level_lo[m]

    ret_m = below(njr)                                         # retrieved rows of level m
    upto_a = np.searchsorted(keys, m * width + ad, side="right") - level_lo[m]     # docid <= ad
    a_ret = ad < njr
    between = np.where(a_ret, ret_m - upto_a, 0)              # ad < docid < njr: fulfilled among retrieved
    G = graph.n_groups

    def add(key, v):
        c[key] += np.bincount(g, weights=v, minlength=G)

    add("fr", between)
    add("nr", np.where(a_ret, ret_m - between, 0))
    add("fi", np.where(a_ret, size - ret_m, 0))
    add("ni", np.where(a_ret, 0, ret_m))
    add("no", np.where(a_ret, 0, size - ret_m))
    # Rnonrel's recount: the lowest level keeps its first R rows (first R_ret retrieved rows for _ret)
    last = level_hi[m] == graph.end[a]
    kept = np.where(last, np.minimum(c["num_rel"][g], size), size)
    add("rc_poss", kept)
    add("rc_ful", np.where(a_ret, np.maximum(kept - upto_a, 0), 0))
    kept = np.where(last, np.minimum(c["num_rel_ret"][g], ret_m), ret_m)
    add("rc_poss_ret", np.where(a_ret, kept, 0))
    add("rc_ful_ret", np.where(a_ret, np.maximum(kept - upto_a, 0), 0))
