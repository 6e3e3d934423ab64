"""Average precision and its relatives: AP, AP@k, gm_map, infAP, bpref, RR, interpolated precision."""
from __future__ import annotations

import numpy as np

from core.errors import EvalError
from core.measures.base import JUDGED_ONLY, Family, Param, register
from core.measures.context import safe_div
from core.measures.precision import CUTS, TREC

INFAP_EPSILON = 0.00001
IPREC_CUTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _ap(ctx, m):
    mask = ctx.isrel if m.cutoff is None else ctx.isrel & ctx.within(m.cutoff)
    total = ctx.segsum(np.where(mask, ctx.prec_at_rel, 0.0))
    if m.get("norm") == "found":
        return safe_div(total, ctx.segcount(mask))
    return safe_div(total, ctx.R)


register(Family("AP", "Average precision: mean of the precision at each relevant document, over R "
                "(norm='found': over the relevant documents found in the top k).",
                r"AP@k = \frac{1}{R} \sum_{i \le k,\, rel_i} P@i",
                TREC + "; seed 001 for norm='found'", _ap, cutoff="optional",
                params=(Param("norm", str, "R", choices=("R", "found")), JUDGED_ONLY),
                trec=("map", "map_cut_{cutoff}"), trec_defaults=CUTS, rel_param=True, aliases=("MAP",)))
register(Family("gm_map", "Geometric mean over topics of AP (per-topic AP floored at 1e-5).",
                r"\exp\left(\frac{1}{|Q|}\sum_q \log \max(AP_q, 10^{-5})\right)",
                "Robertson, On GMAP (CIKM 2006); " + TREC, _ap, trec=("gm_map",), agg="gm", summary_only=True,
                rel_param=True, aliases=("GMAP",)))


def _bpref(ctx, m):
    nb = ctx.nonrel_before
    R, N = ctx.per_row(ctx.R), ctx.per_row(ctx.num_nonrel)
    term = np.where(nb > 0, 1.0 - safe_div(np.minimum(nb, R), np.minimum(N, R)), 1.0)
    return safe_div(ctx.segsum(np.where(ctx.isrel, term, 0.0)), ctx.R)


register(Family("Bpref", "Binary preference: for each relevant document, the fraction of the first R judged "
                "non-relevant documents ranked below it (unjudged documents ignored).",
                r"bpref = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(|n \text{ above } r|, R)}{\min(N, R)}\right)",
                "Buckley & Voorhees, SIGIR 2004; " + TREC, _bpref, trec=("bpref",), rel_param=True, aliases=("bpref", "BPref")))
register(Family("gm_bpref", "Geometric mean over topics of bpref (floored at 1e-5).",
                r"\exp\left(\frac{1}{|Q|}\sum_q \log \max(bpref_q, 10^{-5})\right)", TREC, _bpref,
                trec=("gm_bpref",), agg="gm", summary_only=True))


def _infap(ctx, m):
    j = (ctx.rank - 1).astype(np.float64)
    k = (ctx.relcum - 1).astype(np.float64)
    nb, neg = ctx.nonrel_before.astype(np.float64), ctx.neg_before.astype(np.float64)
    safe_j = np.maximum(j, 1.0)
    term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((k + nb + neg) / safe_j)
            * ((k + INFAP_EPSILON) / (k + nb + 2 * INFAP_EPSILON)))
    term = np.where(j == 0, 1.0, term)
    return safe_div(ctx.segsum(np.where(ctx.isrel, term, 0.0)), ctx.R)


register(Family("infAP", "Inferred AP (Yilmaz & Aslam): AP estimated from a sampled pool; grade -1 = pooled "
                "but unjudged.",
                r"infAP = \frac{1}{R}\sum_{rel\ i} \left(\frac{1}{i} + \frac{i-1}{i}\cdot\frac{|pooled\ above|}{i-1}"
                r"\cdot\frac{|rel\ above|+\epsilon}{|judged\ above| + 2\epsilon}\right)",
                "Yilmaz & Aslam, CIKM 2006; " + TREC, _infap, trec=("infAP",), rel_param=True))


def _rr(ctx, m):
    first = ctx.isrel & (ctx.relcum == 1)
    if m.cutoff is not None:
        first &= ctx.within(m.cutoff)
    return ctx.segsum(np.where(first, 1.0 / ctx.rank, 0.0))


register(Family("RR", "Reciprocal rank of the first relevant document (0 if none, or none in the top k).",
                r"RR = \frac{1}{rank_1}", "Voorhees, TREC-8 QA (1999); " + TREC, _rr, cutoff="optional",
                trec=("recip_rank",), rel_param=True, params=(JUDGED_ONLY,), aliases=("MRR", "RecipRank")))


def iprec_cut(ctx, pct: float) -> np.ndarray:
    """Number of relevant documents that recall level pct stands for, per topic: trec_eval 9.x truncates
    pct*R + 0.9 (so 0.4*13 = 5.2 -> 6), trec_eval 10.0 rounds (lround: 5.2 -> 5). Verified on the references."""
    x = pct * ctx.R.astype(np.float64)
    if ctx.options.compat >= 10:
        return np.floor(x + 0.5).astype(np.int64)    # lround (x >= 0)
    return (x + 0.9).astype(np.int64)


def iprec(ctx, pct: float) -> np.ndarray:
    cut = iprec_cut(ctx, pct)
    ok = ctx.isrel & (ctx.relcum >= ctx.per_row(cut))
    val = ctx.segmax(ctx.prec_at_rel, ok)
    return np.where(cut <= ctx.num_rel_ret, val, 0.0)


def _iprec(ctx, m):
    return iprec(ctx, float(m.cutoff))


def _11pt(ctx, m):
    text = m.get("levels")
    try:
        levels = [float(x) for x in text.split(",") if x] if text else list(IPREC_CUTS)
    except ValueError:
        raise EvalError(f"11pt_avg levels must be recall levels like '.25,.5,.75', not {text!r}.") from None
    return sum(iprec(ctx, p) for p in levels) / len(levels)


register(Family("IPrec", "Interpolated precision at recall level x: the best precision at any rank whose recall "
                "is at least x.",
                r"IPrec@x = \max_{i : recall@i \ge x} P@i", TREC + " (iprec_at_recall; --compat 10 rounding)",
                _iprec, cutoff="required", cutoff_type=float, trec=("iprec_at_recall_{cutoff:.2f}",),
                trec_defaults=IPREC_CUTS, rel_param=True, params=(JUDGED_ONLY,)))
register(Family("11pt_avg", "Mean of interpolated precision at the 11 recall levels 0.0, 0.1, ..., 1.0.",
                r"\frac{1}{11}\sum_{x \in \{0, .1, \dots, 1\}} IPrec@x", TREC, _11pt, trec=("11pt_avg", "11pt_avg_{levels}"),
                params=(Param("levels", str, "", pattern=r"[\d.]+(?:,[\d.]+)*",
                              help="recall levels to average, default 0.0,0.1,...,1.0"),)))


def _yaap(ctx, m):
    """trec_eval 10.0 m_yaap.c: log((1 + S) / (1 + R - S)), S = the sum of the precisions at the relevant ranks."""
    s = ctx.segsum(np.where(ctx.isrel, ctx.prec_at_rel, 0.0))
    return np.log((1.0 + s) / (1.0 + ctx.R - s))


register(Family("yaap", "Yet another average precision (Robertson): AP smoothed onto a log-odds scale, so it averages "
                "better over topics.", r"yaap = \log \frac{1 + \sum_{rel\ i} P@i}{1 + R - \sum_{rel\ i} P@i}",
                "Robertson, On smoothing average precision, ECIR 2012; trec_eval 10.0 (m_yaap.c)", _yaap,
                trec=("yaap",), rel_param=True))


def _bing(ctx, m):
    term = 1.0 / np.log2(2.0 + ctx.rank - ctx.relcum)
    return safe_div(ctx.segsum(np.where(ctx.isrel, term, 0.0)), ctx.R)


register(Family("binG", "Binary G: mean over relevant documents of 1/log2(2 + non-relevant retrieved before it).",
                r"binG = \frac{1}{R}\sum_{rel\ i} \frac{1}{\log_2(2 + |nonrel\ above\ i|)}", TREC + " (m_binG.c)",
                _bing, trec=("binG",)))
