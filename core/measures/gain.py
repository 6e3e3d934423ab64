"""Graded-gain measures: nDCG/DCG (three forms), ndcg_rel, Rndcg, G, RBP and its residual.

trec_eval semantics: the gain of a document is its grade (grades <= 0 and unjudged give 0), whatever
-l is; the ideal ranking is built from every judged document of the topic in the qrels.
"""
from __future__ import annotations

import numpy as np

from core.errors import EvalError
from core.measures.base import JUDGED_ONLY, Family, Param, register
from core.measures.context import discount, discount_prefix, gain_of, safe_div
from core.measures.precision import CUTS, TREC

KJ = "Jarvelin & Kekalainen, ACM TOIS 20(4) 2002"
DCG_FORMS = {"log2": ("linear", "log2"), "exp-log2": ("exp", "log2"), "jk": ("linear", "jk")}
DCG_PARAM = Param("dcg", str, "log2", choices=tuple(DCG_FORMS),
                  help="'log2': rel/log2(i+1) (trec_eval); 'exp-log2': (2^rel-1)/log2(i+1); "
                       "'jk': rel_1 + sum_{i>=2} rel_i/log2(i)")
def gains_from_dict(family: str, value):
    """ir_measures' nDCG(gains={0: 1, 1: 4}) -> trec_eval's '0=1,1=4'. ir_measures maps the qrels grades through the
    dict before trec_eval reads them; for grades >= 0 that is exactly trec_eval's custom gains. For a negative grade
    the two differ (trec_eval gains by -1 = unjudged, -2 = negative grade), so ir_measures' form refuses them."""
    if not isinstance(value, dict):
        return value
    bad = [k for k in value if not isinstance(k, int) or k < 0]
    if bad:
        raise EvalError(f"{family}: gains={{...}} takes grades >= 0 (ir_measures remaps the qrels grade, trec_eval "
                        f"reads -1 as unjudged and -2 as a negative grade); got {bad[0]!r}. For trec_eval's meaning "
                        f"write the trec_eval name, e.g. ndcg_-1=0.5,1=1.")
    try:
        return ",".join(f"{k}={float(v):g}" for k, v in sorted(value.items()))
    except (TypeError, ValueError):
        raise EvalError(f"{family}: gains must map grades to numbers, e.g. gains={{0: 1, 1: 4}}.") from None


GAINS_PARAM = Param("gains", str, "", pattern=r"-?\d+=-?[\d.]+(?:,-?\d+=-?[\d.]+)*", convert=gains_from_dict,
                    help="custom gain per grade: trec_eval's '1=3,2=9,4=4.5' or ir_measures' {1: 3, 2: 9} "
                         "(other grades keep gain = grade; -1 = unjudged and -2 = negative grade, as trec_eval reads them)")
FORMULA = (r"DCG@k = \sum_{i \le k} \frac{g(rel_i)}{d(i)},\ nDCG@k = \frac{DCG@k}{IDCG@k};\ "
           r"log2: g=rel, d=\log_2(i+1);\ exp\text{-}log2: g=2^{rel}-1;\ jk: d(1)=1, d(i)=\log_2 i")


def parse_gains(text: str) -> dict:
    try:
        return {int(k): float(v) for k, v in (item.split("=") for item in text.split(",") if item)}
    except ValueError:
        raise EvalError(f"gains must look like '1=3,2=9', not {text!r}.") from None


def _gain_rows(ctx, kind):
    g = np.where(ctx.rel >= 0, gain_of(ctx.rel, kind), 0.0)
    return g != 0, g


# trec_eval's form_res_rels gives a retrieved document absent from the qrels the level -1 (RELVALUE_NONPOOL) and one
# with a negative grade the level -2 (RELVALUE_UNJUDGED); get_gain looks those levels up like any other, so
# `ndcg.-1=x` gains x for every unjudged document and `ndcg.-2=y` gains y for every negative grade.
NONPOOL, UNJUDGED = -1, -2


def _custom_dcg(ctx, gains: dict, disc_kind: str, cutoff):
    """DCG with trec_eval's custom gains (setup_gains/get_gain in gain_init.c): a grade >= 0 gains its listed
    value (else the grade itself), a negative grade gains the value listed for -2, an unjudged document the value
    listed for -1; 0 when not listed."""
    g = np.where(ctx.rel >= 0, gain_of(ctx.rel, gains), gains.get(UNJUDGED, 0.0))
    w = g * discount(ctx.rank, disc_kind)
    depth = ctx.num_ret if cutoff is None else np.minimum(ctx.num_ret, cutoff)
    if cutoff is not None:
        w = np.where(ctx.within(cutoff), w, 0.0)
    dcg = ctx.segsum(w)
    unjudged_gain = gains.get(NONPOOL, 0.0)
    if unjudged_gain:          # every rank up to depth that holds no judged document
        H = discount_prefix(int(depth.max(initial=0)), disc_kind)
        judged_w = ctx.segsum(np.where(ctx.within(depth), discount(ctx.rank, disc_kind), 0.0))
        dcg = dcg + unjudged_gain * (H[depth] - judged_w)
    return dcg


def _dcg_parts(ctx, m):
    gain_kind, disc_kind = DCG_FORMS[m.get("dcg")]
    if m.get("gains"):
        gains = parse_gains(m.get("gains"))
        dcg = _custom_dcg(ctx, gains, disc_kind, m.cutoff)
        lv = ctx.d.levels                    # the ideal ranks every judged document whose grade (>= 0) gains > 0
        positive = gain_of(np.arange(lv.shape[1]), gains) > 0
        n = lv[:, positive].sum(axis=1)
        k = n if m.cutoff is None else np.minimum(n, m.cutoff)
        return dcg, ctx.ideal(k, gains, disc_kind)
    pos, gain = _gain_rows(ctx, gain_kind)
    w = gain * discount(ctx.rank, disc_kind)
    if m.cutoff is not None:
        w = np.where(ctx.within(m.cutoff), w, 0.0)
    dcg = ctx.segsum(w)
    k = ctx.npos if m.cutoff is None else np.minimum(ctx.npos, m.cutoff)
    return dcg, ctx.ideal(k, gain_kind, disc_kind)


def _ndcg(ctx, m):
    dcg, ideal = _dcg_parts(ctx, m)
    return safe_div(dcg, ideal)


def _dcg(ctx, m):
    return _dcg_parts(ctx, m)[0]


register(Family("nDCG", "Normalised discounted cumulative gain (ideal ranking from all judged documents). Custom gains "
                "(gains=) follow trec_eval, except that the ideal orders gains by value where trec_eval's comparator "
                "truncates gains less than 1 apart to equal.",
                FORMULA, KJ + "; " + TREC + "; seeds 000/002/004", _ndcg, cutoff="optional",
                params=(DCG_PARAM, GAINS_PARAM, JUDGED_ONLY),
                trec=("ndcg", "ndcg_cut_{cutoff}", "ndcg_{gains}"), trec_defaults=CUTS, aliases=("NDCG", "ndcg")))
register(Family("DCG", "Discounted cumulative gain, not normalised (trec_eval 10.0's dcg without a cutoff).", FORMULA,
                KJ + "; seeds 000/002; trec_eval 10.0 (m_ndcg.c dcg)", _dcg, cutoff="optional",
                params=(DCG_PARAM, GAINS_PARAM), trec=("dcg", "dcg_{gains}")))


def _idcg(ctx, m):
    return _dcg_parts(ctx, m)[1]


register(Family("IDCG", "Ideal DCG: the DCG of the best ordering of every judged document of the topic "
                "(trec_eval 10.0's ideal_dcg).", r"IDCG@k = \sum_{i \le k} \frac{g(rel^{*}_i)}{d(i)}",
                KJ + "; trec_eval 10.0 (m_ndcg.c ideal_dcg)", _idcg, cutoff="optional", params=(DCG_PARAM, GAINS_PARAM),
                trec=("ideal_dcg", "ideal_dcg_{gains}")))


def _ndcg_rel(ctx, m):
    pos, gain = _gain_rows(ctx, "linear")
    cum = ctx.segcum(gain / np.log2(ctx.rank + 1.0))
    npos = ctx.npos
    gi = ctx.g[pos]
    ideal_here = ctx.ideal(np.minimum(ctx.rank[pos], npos[gi]), groups=gi)
    partial = np.bincount(gi, weights=cum[pos] / ideal_here, minlength=ctx.Q)
    final_dcg = ctx.segsum(gain / np.log2(ctx.rank + 1.0))
    full = ctx.ideal(npos)
    total = partial + (npos - ctx.segcount(pos)) * safe_div(final_dcg, full)
    return np.where(total > 0, safe_div(total, npos), 0.0)


def _dcg_upto(ctx, gain, b):
    return ctx.segsum(np.where(ctx.within(b), gain / np.log2(ctx.rank + 1.0), 0.0))


def _rndcg(ctx, m):
    _, gain = _gain_rows(ctx, "linear")
    lv = ctx.d.levels
    npos = ctx.npos
    total = np.zeros(ctx.Q)
    count = np.zeros(ctx.Q)
    above = np.zeros(ctx.Q, dtype=np.int64)
    for level in range(lv.shape[1] - 1, 0, -1):          # boundaries where the ideal gain changes
        b = above
        ok = (b > 0) & (lv[:, level] > 0)
        ratio = safe_div(_dcg_upto(ctx, gain, np.minimum(b, ctx.num_ret)), ctx.ideal(b))
        total += np.where(ok, ratio, 0.0)
        count += ok
        above = above + lv[:, level]
    ok = npos > 0
    total += np.where(ok, safe_div(_dcg_upto(ctx, gain, np.minimum(npos, ctx.num_ret)), ctx.ideal(npos)), 0.0)
    count += ok
    tail = ok & (npos + 1 < ctx.num_ret)
    total += np.where(tail, safe_div(ctx.segsum(gain / np.log2(ctx.rank + 1.0)), ctx.ideal(npos)), 0.0)
    count += tail
    return np.where(ctx.R > 0, safe_div(total, count), 0.0)


def _g(ctx, m):
    pos, gain = _gain_rows(ctx, "linear")
    npos = ctx.npos
    gi, r = ctx.g[pos], ctx.rank[pos]
    sum_results = ctx.segcum(gain)[pos]
    k = np.minimum(r, npos[gi])
    cost = ctx.ideal(k, disc="none", groups=gi) + np.maximum(0, r - npos[gi])
    contrib = gain[pos] / np.log2(2.0 + cost - sum_results)
    return safe_div(np.bincount(gi, weights=contrib, minlength=ctx.Q), ctx.ideal(npos, disc="none"))


register(Family("ndcg_rel", "nDCG averaged over the relevant documents (trec_eval's experimental ndcg_rel).",
                r"\frac{1}{|pos|}\sum_{d \in pos} nDCG@rank(d)\ (unretrieved: nDCG at the end)", TREC, _ndcg_rel,
                trec=("ndcg_rel",)))
register(Family("Rndcg", "nDCG averaged at the R-level boundaries of the ideal ranking (trec_eval experimental).",
                r"\frac{1}{|B|}\sum_{b \in B} nDCG@b", TREC, _rndcg, trec=("Rndcg",)))
register(Family("G", "trec_eval's normalised gain G: each gain discounted by log2(2 + ideal-so-far - gained-so-far).",
                r"G = \frac{1}{\sum g}\sum_i \frac{g_i}{\log_2(2 + cost_i - \sum_{j \le i} g_j)}", TREC + " (m_G.c)",
                _g, trec=("G",)))


TREC_RBP_P, IRM_RBP_P = 0.9, 0.8       # the default persistence of trec_eval's rbp and of ir_measures' RBP


def _rbp(ctx, m):
    if m.get("rel") is not None:        # ir_measures' RBP(rel=r): binary gains, through cwl_eval
        from core.measures.cwl import rbp_binary
        return rbp_binary(ctx, m, IRM_RBP_P if m.get("p") is None else m.get("p"))
    p = TREC_RBP_P if m.get("p") is None else m.get("p")
    if m.get("gain") == "grade":        # ranx's rbp: the raw grade (grades >= 1), not scaled
        return (1.0 - p) * ctx.segsum(np.where(ctx.rel > 0, ctx.rel, 0) * np.power(p, ctx.rank - 1.0))
    lv = ctx.d.levels
    present = lv > 0
    max_level = np.where(present.any(axis=1), lv.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1), 0)
    scale = np.where(max_level > 1, max_level, 1).astype(np.float64)   # trec_eval normalises gains into [0, 1]
    gain = np.where(ctx.rel > 0, ctx.rel / ctx.per_row(scale), 0.0)
    return (1.0 - p) * ctx.segsum(gain * np.power(p, ctx.rank - 1.0))


def _rbp_resid(ctx, m):
    p = 0.9
    judged = ctx.rel >= 0
    seen = ctx.segsum(np.where(judged, np.power(p, ctx.rank - 1.0), 0.0))
    return np.where(ctx.num_ret > ctx.segcount(judged), 1.0 - (1.0 - p) * seen, 0.0)


register(Family("RBP", "Rank-biased precision with persistence p; grades scaled into [0, 1] by the topic's top grade "
                "(trec_eval 10.0 rbp, default p=0.9). RBP(rel=r) is ir_measures' binary form (cwl_eval; default p=0.8, "
                "weights normalised over 1000 ranks).",
                r"RBP = (1-p)\sum_i g_i\, p^{i-1}", "Moffat & Zobel, ACM TOIS 27(1) 2008; trec_eval 10.0 (m_rbp.c)",
                _rbp, params=(Param("p", float, None, minimum=0.0, help="persistence; default 0.9 (trec_eval), 0.8 with rel="),
                              Param("gain", str, "scaled", choices=("scaled", "grade"),
                                    help="'scaled': grade / top grade (trec_eval); 'grade': the raw grade (ranx's rbp)")),
                trec=("rbp",), aliases=("rbp",), rel_param=True))
register(Family("rbp_resid", "RBP residual: the weight (1-p) p^(i-1) carried by unjudged ranks plus the tail p^n "
                "(0 when every retrieved document is judged).",
                r"p^{n} + (1-p)\sum_{i\ unjudged} p^{i-1}", "trec_eval 10.0 (m_rbp_resid.c)", _rbp_resid,
                trec=("rbp_resid",)))
