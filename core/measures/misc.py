"""relstring (trec_eval's per-topic string of the first grades) and ROC AUC."""
from __future__ import annotations

import numpy as np

from core.measures.base import Family, register
from core.measures.context import safe_div
from core.measures.precision import TREC


def _relstring(ctx, m):
    n = int(m.cutoff or 10)
    chars = np.full((ctx.Q, max(n, 1)), "-", dtype="<U1")
    rows = ctx.rank <= n
    rel = ctx.rel[rows]
    digit = np.where(rel > 9, ">", np.where(rel >= 0, np.clip(rel, 0, 9).astype(str), "."))
    chars[ctx.g[rows], ctx.rank[rows] - 1] = digit
    cols = np.arange(max(n, 1))
    chars[cols[None, :] >= np.minimum(ctx.num_ret, n)[:, None]] = ""
    return np.ascontiguousarray(chars).view(f"<U{max(n, 1)}").ravel().astype(object)


register(Family("relstring", "The grades of the first k retrieved documents as a string "
                "('-' not in the qrels, '.' negative grade, '>' above 9); per topic only.",
                r"rel_1 rel_2 \dots rel_k", TREC + " (m_relstring.c)", _relstring, cutoff="optional",
                trec=("relstring", "relstring_{cutoff}"), agg="text"))


def _auc(ctx, m):
    n_docs = ctx.options.num_docs
    R = ctx.R.astype(np.float64)
    rr = ctx.num_rel_ret.astype(np.float64)
    if n_docs:
        neg_total = np.maximum(float(n_docs) - R, 0.0)
        above = (ctx.rank - 1) - (ctx.relcum - 1)
        neg_unret = np.maximum(neg_total - (ctx.num_ret - rr), 0.0)
    else:
        neg_total = ctx.num_nonrel.astype(np.float64)
        above = ctx.nonrel_before
        neg_unret = neg_total - ctx.segcount(ctx.isnonrel)
    below = ctx.per_row(neg_total) - above
    wins = ctx.segsum(np.where(ctx.isrel, below, 0.0)) + 0.5 * (R - rr) * neg_unret
    return safe_div(wins, R * neg_total)


register(Family("AUC", "Area under the ROC curve over judged documents: relevant = positives, judged non-relevant = "
                "negatives (with -N, every non-relevant document of the collection); unretrieved documents tie "
                "after everything retrieved (a tie counts 1/2); 0 when either class is empty.",
                r"AUC = \frac{|\{(p, n) : p \succ n\}| + \frac12 |\{(p, n) : p \sim n\}|}{|P|\,|N|}",
                "Fawcett, An introduction to ROC analysis, PRL 27 (2006); seed 002", _auc, rel_param=True))
