"""Measures the peers compute that trec_eval's all_trec lacks: NumQ, ERR (gdeval), Accuracy and Compat
(ir_measures), hits (ranx). Each follows its peer's code (named in the reference), vectorised over the judged rows.
"""
from __future__ import annotations

import numpy as np

from core.measures.base import Family, Param, register
from core.measures.context import safe_div

IRM = "ir_measures 0.4.3 (MacAvaney et al., ECIR 2022)"
GDEVAL_MAX_GRADE = 4       # gdeval.pl's $MAX_JUDGMENT


def _num_q(ctx, m):
    return np.ones(ctx.Q)


register(Family("NumQ", "Number of topics evaluated (1 per topic; the summary is the count).", r"|Q|",
                "trec_eval (m_num_q.c); " + IRM, _num_q, trec=("num_q",), agg="sum", ints=True, summary_only=True))


def _err(ctx, m):
    """gdeval.pl's err(): r = (2^g - 1) / 2^4 (grades above 4 count as 4, which gdeval refuses), the user stops at
    rank i with probability r_i prod_{j<i} (1 - r_j). The product runs over judged rows only: an unjudged rank has
    r = 0 and multiplies by 1. Plain equivalent: a loop over ranks multiplying `decay`."""
    g = np.clip(ctx.rel, 0, GDEVAL_MAX_GRADE)
    r = (np.exp2(g) - 1.0) / 2.0 ** GDEVAL_MAX_GRADE
    if m.cutoff is not None:
        r = np.where(ctx.within(m.cutoff), r, 0.0)
    log_keep = np.log1p(-r)                       # r <= 15/16, so 1 - r > 0
    before = ctx.segcum(log_keep) - log_keep      # log prod_{j<i} (1 - r_j)
    return ctx.segsum(r * np.exp(before) / ctx.rank)


register(Family("ERR", "Expected reciprocal rank (cascade model): the user stops at rank i with probability "
                "r_i = (2^g_i - 1)/16 (gdeval's fixed maximum grade 4).",
                r"ERR@k = \sum_{i \le k} \frac{r_i}{i} \prod_{j<i} (1 - r_j),\ r = \frac{2^{g}-1}{2^{4}}",
                "Chapelle et al., CIKM 2009; gdeval.pl 1.2a via " + IRM, _err, cutoff="optional", aliases=("err",)))


def _hits(ctx, m):
    return (ctx.num_rel_ret if m.cutoff is None else ctx.rel_within(m.cutoff)).astype(np.float64)


register(Family("hits", "Number of relevant documents in the top k (ranx's hits; averaged over topics, unlike "
                "NumRelRet, which sums).", r"hits@k = |rel \cap top_k|", "ranx 0.3 (Bassani, ECIR 2022), hits.py",
                _hits, cutoff="optional", rel_param=True, aliases=("Hits",)))


def _accuracy(ctx, m):
    """ir_measures' accuracy provider: among the top k, the fraction of (relevant, non-relevant) pairs ranked in
    that order; an unjudged document counts as non-relevant. 0 with no relevant document in the top k (ir_measures
    reports nothing there), 1 with no non-relevant one (ir_measures divides by zero)."""
    depth = ctx.num_ret if m.cutoff is None else np.minimum(ctx.num_ret, m.cutoff)
    rel = ctx.isrel & ctx.within(depth)
    n_rel = ctx.segcount(rel)
    nonrel_total = depth - n_rel
    wrong = ctx.segsum(np.where(rel, ctx.rank - ctx.relcum, 0))     # non-relevant above each relevant document
    value = 1.0 - safe_div(wrong, nonrel_total * n_rel)
    return np.where(n_rel > 0, value, 0.0)


register(Family("Accuracy", "Probability that a relevant document of the top k is ranked above a non-relevant one "
                "(unjudged = non-relevant); 0 when the top k holds no relevant document, 1 when it holds no "
                "non-relevant one.",
                r"Acc@k = 1 - \frac{\sum_{rel\ i \le k} |nonrel\ above\ i|}{|rel_k| \cdot |nonrel_k|}",
                IRM + ", accuracy_provider.py", _accuracy, cutoff="optional", rel_param=True))


def _compat(ctx, m):
    """ir_measures' compat provider: rank-biased overlap between the ranking and the ideal ranking (every document
    with grade > 0, by grade, then by the run's order), depth max(|ret|, |ideal|). A relevant retrieved document
    x adds sum_{d >= max(rank_x, ideal_x)}^{D} p^(d-1)/d; S is that sum's prefix over d (no loop over documents)."""
    p = m.get("p")
    lv = ctx.d.levels
    n_ideal = lv[:, 1:].sum(axis=1)
    D = np.maximum(ctx.num_ret, n_ideal)
    top = int(D.max(initial=0))
    d = np.arange(1, top + 1, dtype=np.float64)
    S = np.r_[0.0, np.cumsum(np.power(p, d - 1) / d)]         # S[n] = sum_{d<=n} p^(d-1)/d
    C = np.r_[0.0, np.cumsum(S)]                               # C[n] = sum_{i<n} S[i]
    pos = ctx.rel > 0
    grade = np.where(pos, ctx.rel, 0)
    above = np.cumsum(lv[:, ::-1], axis=1)[:, ::-1]            # above[q, g] = judged with grade >= g
    better = np.where(grade + 1 < lv.shape[1], above[ctx.g, np.minimum(grade + 1, lv.shape[1] - 1)], 0)
    same_before = _same_grade_before(ctx.g, grade, pos)
    ideal_rank = better + same_before + 1
    m_x = np.maximum(ctx.rank, ideal_rank)
    Dx = D[ctx.g]
    score = ctx.segsum(np.where(pos, S[Dx] - S[m_x - 1], 0.0))          # m_x <= D always
    if m.get("normalize"):
        best = n_ideal * S[D] - C[n_ideal]
        return safe_div(score, best)
    return safe_div(score, safe_div(1.0 - np.power(p, D), 1.0 - p) if p != 1 else D)


def _same_grade_before(g, grade, pos):
    """For each row, the rows of its ranking with the same positive grade ranked above it."""
    if len(g) == 0:
        return np.zeros(0, dtype=np.int64)
    key = g.astype(np.int64) * (int(grade.max()) + 1) + grade
    order = np.argsort(key, kind="stable")                     # rows are in (ranking, rank) order: stable keeps it
    k = key[order]
    first = np.r_[True, k[1:] != k[:-1]]
    idx = np.arange(len(k))
    start = np.maximum.accumulate(np.where(first, idx, 0))
    out = np.empty(len(g), dtype=np.int64)
    out[order] = idx - start
    return np.where(pos, out, 0)


register(Family("Compat", "Compatibility: rank-biased overlap with the ideal ranking (grade desc, ties in the run's "
                "order; unretrieved relevant documents after the retrieved ones of their grade), normalised by the "
                "ideal's own overlap.",
                r"Compat = \frac{RBO_p(run, ideal)}{RBO_p(ideal, ideal)},\ RBO_p = \sum_{d \le D} p^{d-1}"
                r"\frac{|run_{:d} \cap ideal_{:d}|}{d}",
                "Clarke, Vtyurina & Smucker, ACM TOIS 39(2) 2021; " + IRM + ", compat_provider.py", _compat,
                params=(Param("p", float, 0.95, minimum=0.0, help="persistence"),
                        Param("normalize", bool, True, help="divide by the ideal ranking's own RBO"))))
