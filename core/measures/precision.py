"""Counts, precision, recall and set measures (trec_eval m_P.c, m_recall.c, m_set_*.c, ...)."""
from __future__ import annotations

import numpy as np

from core.measures.base import JUDGED_ONLY, Family, Param, register
from core.measures.context import safe_div

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC = "trec_eval 9.0.8 (Buckley, NIST), usnistgov/trec_eval"
MRS = "Manning, Raghavan, Schuetze, Introduction to Information Retrieval (2008), ch. 8"
BETA = Param("beta", float, 1.0, minimum=0.0, help="weight of recall relative to precision")


def _num_ret(ctx, m):
    if m.get("rel") is not None:          # ir_measures: NumRet(rel=r) is trec_eval's num_rel_ret at level r
        return ctx.num_rel_ret.astype(np.float64)
    return ctx.num_ret.astype(np.float64)


def _num_rel(ctx, m):
    return ctx.R.astype(np.float64)


def _num_rel_ret(ctx, m):
    return ctx.num_rel_ret.astype(np.float64)


def _nonrel_ret(ctx, m):
    return ctx.segcount(ctx.isnonrel).astype(np.float64)


register(Family("NumRet", "Number of documents retrieved for the topic (after -M/-J); NumRet(rel=r): the retrieved "
                "documents with grade >= r (ir_measures; = NumRelRet(rel=r)).",
                r"|ranking|", TREC + "; ir_measures", _num_ret, trec=("num_ret",), agg="sum", ints=True, rel_param=True))
register(Family("NumRel", "Number of relevant documents in the qrels for the topic.",
                r"R = |\{d : rel(d) \ge \ell\}|", TREC, _num_rel, trec=("num_rel",), agg="sum", ints=True,
                rel_param=True))
register(Family("NumRelRet", "Number of relevant documents retrieved.",
                r"|\{d \in ranking : rel(d) \ge \ell\}|", TREC, _num_rel_ret, trec=("num_rel_ret",),
                agg="sum", ints=True, rel_param=True))
register(Family("NumNonRelJudgedRet", "Number of retrieved documents judged non-relevant (0 <= grade < l).",
                r"|\{d \in ranking : 0 \le rel(d) < \ell\}|", TREC, _nonrel_ret,
                trec=("num_nonrel_judged_ret",), agg="sum", ints=True))


def _p(ctx, m):
    return ctx.rel_within(m.cutoff) / m.cutoff


def _r(ctx, m):
    return safe_div(ctx.rel_within(m.cutoff), ctx.R)


def _rcap(ctx, m):
    return safe_div(ctx.rel_within(m.cutoff), np.minimum(ctx.R, m.cutoff))


def _success(ctx, m):
    found = ctx.num_rel_ret if m.cutoff is None else ctx.rel_within(m.cutoff)
    return (found > 0).astype(np.float64)


register(Family("P", "Precision at k: relevant documents in the top k, divided by k (always k).",
                r"P@k = \frac{|rel \cap top_k|}{k}", TREC, _p, cutoff="required", trec=("P_{cutoff}",),
                trec_defaults=CUTS, rel_param=True, params=(JUDGED_ONLY,), aliases=("Precision",)))
register(Family("R", "Recall at k: relevant documents in the top k, divided by all relevant R.",
                r"R@k = \frac{|rel \cap top_k|}{R}", TREC, _r, cutoff="required", trec=("recall_{cutoff}",),
                trec_defaults=CUTS, rel_param=True, params=(JUDGED_ONLY,), aliases=("Recall",)))
register(Family("Rcap", "Recall at k capped: relevant in the top k divided by min(R, k) (trec_eval relative_P).",
                r"Rcap@k = \frac{|rel \cap top_k|}{\min(R, k)}", "Seed 004 (recall@K capped); " + TREC,
                _rcap, cutoff="required", trec=("relative_P_{cutoff}",), trec_defaults=CUTS, rel_param=True))
register(Family("Success", "1 if a relevant document appears in the top k (without @k: anywhere), else 0.",
                r"Success@k = [\,|rel \cap top_k| > 0\,]", TREC, _success, cutoff="optional",
                trec=("success_{cutoff}",), trec_defaults=(1, 5, 10), rel_param=True, params=(JUDGED_ONLY,)))


def _rprec(ctx, m):
    mult = m.get("mult")
    cut = (mult * ctx.R.astype(np.float64) + 0.9).astype(np.int64)   # trec_eval: (long)(x*R + 0.9)
    return safe_div(ctx.rel_within(cut), cut)


register(Family("Rprec", "Precision at rank mult*R (R-precision for mult=1).",
                r"Rprec = \frac{|rel \cap top_{\lfloor mult \cdot R + 0.9 \rfloor}|}{\lfloor mult \cdot R + 0.9\rfloor}",
                TREC, _rprec, params=(Param("mult", float, 1.0, minimum=0.0), JUDGED_ONLY),
                trec=("Rprec", "Rprec_mult_{mult:.2f}"), rel_param=True, aliases=("RPrec",)))


def _set_p(ctx, m):
    if m.get("relative"):                 # ir_measures: SetRelP is SetP(relative=True)
        return _set_rel_p(ctx, m)
    return safe_div(ctx.num_rel_ret, ctx.num_ret)


def _set_r(ctx, m):
    return safe_div(ctx.num_rel_ret, ctx.R)


def _set_rel_p(ctx, m):
    return safe_div(ctx.num_rel_ret, np.minimum(ctx.num_ret, ctx.R))


def _set_ap(ctx, m):
    return safe_div(ctx.num_rel_ret.astype(np.float64) ** 2, ctx.num_ret * ctx.R.astype(np.float64))


def f_beta(p, r, beta):
    b2 = beta * beta
    return safe_div((1.0 + b2) * p * r, b2 * p + r)


def _set_f(ctx, m):
    """trec_eval m_set_F.c: (1 + b) P R / (b P + R) with b its parameter (so b is beta squared); ir_measures
    hands SetF(beta=b) to trec_eval's set_F.b unchanged, so this is ir_measures' SetF too."""
    b = m.get("beta")
    p, r = _set_p(ctx, m), _set_r(ctx, m)
    return safe_div((1.0 + b) * p * r, b * p + r)


def _set_f_beta(ctx, m):
    return f_beta(_set_p(ctx, m), _set_r(ctx, m), m.get("beta"))


register(Family("SetP", "Precision of the whole retrieved set.", r"\frac{|rel \cap ret|}{|ret|}", TREC, _set_p,
                trec=("set_P",), rel_param=True,
                params=(Param("relative", bool, False, help="over min(|ret|, R): SetRelP"), JUDGED_ONLY)))
register(Family("SetR", "Recall of the whole retrieved set.", r"\frac{|rel \cap ret|}{R}", TREC, _set_r,
                trec=("set_recall",), rel_param=True))
register(Family("SetRelP", "Set precision relative to the best possible: rel retrieved / min(|ret|, R).",
                r"\frac{|rel \cap ret|}{\min(|ret|, R)}", TREC, _set_rel_p, trec=("set_relative_P",),
                rel_param=True, params=(JUDGED_ONLY,)))
register(Family("SetAP", "Unranked set AP: set precision times set recall.",
                r"\frac{|rel \cap ret|^2}{|ret| \cdot R}", TREC, _set_ap, trec=("set_map",),
                rel_param=True, params=(JUDGED_ONLY,)))
register(Family("SetF", "F-measure of the retrieved set as trec_eval's set_F and ir_measures compute it: the parameter "
                "is beta squared (SetF(beta=0.25) weighs recall half as much as precision). The textbook beta is "
                "SetFbeta.",
                r"SetF_b = \frac{(1+b) P R}{b P + R}\quad(b = \beta^2)", TREC + " (m_set_F.c); ir_measures", _set_f,
                params=(Param("beta", float, 1.0, minimum=0.0, help="trec_eval's set_F parameter: beta squared"), JUDGED_ONLY),
                trec=("set_F", "set_F_{beta:g}"), rel_param=True))
register(Family("SetFbeta", "Textbook F_beta of the retrieved set (beta is beta: beta=2 weighs recall twice as much). "
                "SetFbeta(beta=b) = SetF(beta=b*b).",
                r"F_\beta = \frac{(1+\beta^2) P R}{\beta^2 P + R}", "van Rijsbergen (1979); " + MRS, _set_f_beta,
                params=(BETA,), rel_param=True))


def _f(ctx, m):
    return f_beta(_p(ctx, m), _r(ctx, m), m.get("beta"))


def _e(ctx, m):
    return 1.0 - _f(ctx, m)


register(Family("F", "F-measure of P@k and R@k (beta weights recall; default the harmonic mean F1).",
                r"F_\beta@k = \frac{(1+\beta^2)\, P@k\, R@k}{\beta^2 P@k + R@k}", MRS + "; seed 002", _f,
                params=(BETA,), cutoff="required", rel_param=True))
register(Family("E", "van Rijsbergen's E at k: 1 - F_beta@k.", r"E_\beta@k = 1 - F_\beta@k",
                "van Rijsbergen (1979); seed 002", _e, params=(BETA,), cutoff="required", rel_param=True))


def _judged(ctx, m):
    """ir_measures' judged provider: documents of the top k found in the qrels (any grade, negative included: it
    tests `docno in qrels`) over min(k, |ret|); without a cutoff over |ret|; 0 for an empty ranking."""
    depth = ctx.num_ret if m.cutoff is None else np.minimum(ctx.num_ret, m.cutoff)
    rows = ctx.g if m.cutoff is None else ctx.g[ctx.within(m.cutoff)]
    return safe_div(np.bincount(rows, minlength=ctx.Q), depth)


def _judged_k(ctx, m):
    return ctx.segcount((ctx.rel >= 0) & ctx.within(m.cutoff)) / m.cutoff


def _unj(ctx, m):
    k = m.cutoff
    judged = ctx.segcount((ctx.rel >= 0) & ctx.within(k))
    return (np.minimum(ctx.num_ret, k) - judged) / k


register(Family("Judged", "Judgment rate as ir_measures computes it: the fraction of the top k found in the qrels "
                "(any grade, negative too), over min(k, number retrieved); without @k over everything retrieved.",
                r"Judged@k = \frac{|\{d \in top_k : d \in qrels\}|}{\min(k, |ret|)}",
                "ir_measures (MacAvaney et al., ECIR 2022), judged_provider.py", _judged, cutoff="optional"))
register(Family("JudgedK", "Textbook judgment rate at k: the fraction of the top k with a grade >= 0, always over k "
                "(short rankings count their missing ranks as unjudged).",
                r"JudgedK@k = \frac{|\{d \in top_k : rel(d) \ge 0\}|}{k}", "textbook judged fraction at k (Rankboard's Judged@k before it followed ir_measures)",
                _judged_k, cutoff="required"))
register(Family("Unj", "Fraction of the top k that is unjudged (not in the qrels, or a negative grade).",
                r"Unj@k = \frac{\min(k, |ret|) - |judged \cap top_k|}{k}", "trec_eval 10.0 (m_unjudged.c)",
                _unj, cutoff="required", trec=("unj_{cutoff}",), trec_defaults=(5, 10, 20)))


def _utility(ctx, m):
    a, b, c, d = (m.get(k) for k in "abcd")
    rr, ret, R = ctx.num_rel_ret, ctx.num_ret, ctx.R
    n = ctx.options.num_docs or 0
    return a * rr + b * (ret - rr) + c * (R - rr) + d * (n + rr - ret - R)


register(Family("utility", "Set utility a*relret + b*nonrelret + c*relmissed + d*nonrelmissed.",
                r"u = a\,|rel \cap ret| + b\,|\overline{rel} \cap ret| + c\,|rel \setminus ret| + d\,|\overline{rel} \setminus ret|",
                TREC, _utility,
                params=(Param("a", float, 1.0), Param("b", float, -1.0), Param("c", float, 0.0), Param("d", float, 0.0)),
                trec=("utility", "utility_{a:g},{b:g},{c:g},{d:g}")))
