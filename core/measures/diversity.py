"""The diversity family, as ir_measures computes it through pyndeval (TREC's ndeval.c, version 4.5):
alpha_nDCG, alpha_DCG, ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA and StRecall, over subtopic qrels.

ndeval's numbers, quirks included (each one is checked against pyndeval in tests/engine/test_measures_diversity.py):
- A grade >= rel (default 1) is relevant to its subtopic; S, the topic's subtopics, counts only subtopics with a
  relevant document. A topic with S = 0 scores 0 on every measure (pyndeval gives NaN for nNRBP there: 0/0).
- The run is ranked by score descending, then docno ascending (pyndeval's sort; trec_eval breaks ties the other
  way). A document's gain at rank i is sum over its relevant subtopics s of (1 - alpha)^(documents above i
  relevant to s).
- alpha_DCG@k and ERR_IA@k are "collection-independent": divided by the ideal-ideal value S (1 - alpha)^(i-1)
  summed with the same discount (log2(i+1), resp. i) down to rank k. ndeval skips that division at rank 1, so
  alpha_DCG@1 and ERR_IA@1 are the raw gain of the first document (they can exceed 1).
- alpha_nDCG@k, nERR_IA@k and nNRBP divide by the same measure of ndeval's greedy ideal ranking of the judged
  documents (core.measures.subtopics.greedy_ideal), not of the true optimum (NP-hard to find).
- NRBP and AP_IA read the whole ranking; the @k measures stop at k <= 20 (ndeval's DEPTH; ir_measures refuses more).
"""
from __future__ import annotations

import numpy as np

from core.errors import EvalError
from core.measures.base import JUDGED_ONLY, Family, Param, register
from core.measures.context import safe_div
from core.measures.subtopics import DEPTH, SubtopicCtx, powers

REF = "ndeval 4.5 (TREC Web track) via pyndeval 0.0.8 and ir_measures 0.4.3"
ALPHA = Param("alpha", float, 0.5, minimum=0.0, help="redundancy intolerance: a repeated subtopic gains (1-alpha)^n")
BETA = Param("beta", float, 0.5, minimum=0.0, help="patience: rank i weighs beta^(i-1)")
FAMILIES: set[str] = set()      # the diversity families: they read subtopic qrels (core/engine/diversity.py evaluates them)
NRBP_TAIL = 1e-17               # the greedy ideal stops where beta^i * S / (1 - beta) is below this (ideal NRBP >= 1)


ANY_DEPTH = {"alpha_DCG_raw"}    # textbook forms: not limited to ndeval's DEPTH


def refuse_deep(ms) -> None:
    """Refuse ndeval measures cut deeper than ndeval's DEPTH (ir_measures refuses them too), naming them."""
    deep = [m.name for m in ms if m.cutoff is not None and m.cutoff > DEPTH and m.family.name not in ANY_DEPTH]
    if deep:
        raise EvalError(f"{', '.join(deep)}: ndeval computes the diversity measures down to rank {DEPTH} only "
                        f"(ir_measures refuses deeper cutoffs too). Use a cutoff from 1 to {DEPTH}.")


def _ctx(ctx, m) -> SubtopicCtx:
    if not isinstance(ctx, SubtopicCtx):
        raise EvalError(f"{m.name} is a diversity measure: it needs subtopic qrels (qid subtopic docno rel), as "
                        f"ndeval reads them. Evaluate with --qrels-kind diversity (core.engine.diversity in Python).")
    if m.family.param("alpha") is not None and m.get("alpha") > 1.0:
        raise EvalError(f"{m.name}: alpha is the chance a subtopic already seen is not wanted again, from 0 to 1; "
                        f"{m.get('alpha')!r} would make repeated subtopics count negatively.")
    refuse_deep([m])
    return ctx


def _discount(kind: str) -> np.ndarray:
    i = np.arange(DEPTH, dtype=np.float64)
    return np.log(2.0) / np.log(i + 2.0) if kind == "log" else 1.0 / (i + 1.0)


def _normalised(per_rank: np.ndarray, S: np.ndarray, alpha: float, kind: str) -> np.ndarray:
    """ndeval's computeDCG / computeERR: cumulative discounted gain, divided from rank 2 on by the ideal-ideal."""
    disc = _discount(kind)
    cum = np.cumsum(per_rank * disc, axis=1)
    ideal_ideal = np.cumsum(S[:, None] * powers(1.0 - alpha, DEPTH)[None, :] * disc, axis=1)
    out = cum.copy()
    np.divide(cum[:, 1:], ideal_ideal[:, 1:], out=out[:, 1:], where=ideal_ideal[:, 1:] != 0)
    out[S == 0] = 0.0
    return out


def _alpha(m) -> float:
    """The family's alpha, or ndeval's default 0.5 for the families ir_measures gives no alpha (ERR_IA, ...)."""
    return m.get("alpha") if m.family.param("alpha") is not None else ALPHA.default


def _cumulative(ctx: SubtopicCtx, m, kind: str) -> np.ndarray:
    return _normalised(ctx.per_rank(_alpha(m)), ctx.S, _alpha(m), kind)[:, m.cutoff - 1]


def _ideal_cumulative(ctx: SubtopicCtx, m, kind: str) -> np.ndarray:
    alpha = _alpha(m)
    ideal = ctx.ideal(alpha, DEPTH)[ctx.d.topic_of_group]
    return _normalised(ideal, ctx.S, alpha, kind)[:, m.cutoff - 1]


def _ratio(run: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """ndeval's renormalize: run / ideal where the run's value is non-zero, else 0."""
    out = np.zeros(len(run))
    np.divide(run, ideal, out=out, where=(run != 0) & (ideal != 0))
    return out


def _alpha_dcg(ctx, m):
    return _cumulative(_ctx(ctx, m), m, "log")


def _alpha_dcg_raw(ctx, m):
    """Clarke et al.'s alpha-DCG@k: the plain sum, at any depth (ndeval's alpha_DCG divides it by the ideal-ideal)."""
    ctx = _ctx(ctx, m)
    top = ctx.rank <= m.cutoff
    weights = ctx.gains(m.get("alpha"))[top] / np.log2(ctx.rank[top] + 1.0)
    return np.bincount(ctx.g[top], weights=weights, minlength=ctx.Q)


def _alpha_ndcg(ctx, m):
    ctx = _ctx(ctx, m)
    return _ratio(_cumulative(ctx, m, "log"), _ideal_cumulative(ctx, m, "log"))


def _err_ia(ctx, m):
    return _cumulative(_ctx(ctx, m), m, "rank")


def _nerr_ia(ctx, m):
    ctx = _ctx(ctx, m)
    return _ratio(_cumulative(ctx, m, "rank"), _ideal_cumulative(ctx, m, "rank"))


def _nrbp(ctx, m):
    ctx = _ctx(ctx, m)
    alpha, beta = m.get("alpha"), m.get("beta")
    decay = powers(beta, int(ctx.rank.max(initial=1)))[ctx.rank - 1]
    total = np.bincount(ctx.g, weights=ctx.gains(alpha) * decay, minlength=ctx.Q)
    return safe_div(total * (1.0 - (1.0 - alpha) * beta), ctx.S)


def _nrbp_steps(ctx: SubtopicCtx, beta: float) -> int:
    """Ranks of the greedy ideal that nNRBP needs: all relevant documents, or fewer once beta^i * S / (1 - beta)
    (what every later rank can add, at most) is below NRBP_TAIL."""
    n = max(ctx.max_relevant_docs, 1)
    if beta <= 0.0:
        return 1
    if beta >= 1.0:
        return n
    s = max(float(ctx.S.max(initial=1.0)), 1.0)
    tail = int(np.ceil(np.log(NRBP_TAIL * (1.0 - beta) / s) / np.log(beta)))
    return int(min(n, max(tail, DEPTH)))


def _nnrbp(ctx, m):
    ctx = _ctx(ctx, m)
    alpha, beta = m.get("alpha"), m.get("beta")
    steps = _nrbp_steps(ctx, beta)
    ideal = ctx.ideal(alpha, steps)
    ideal_total = (ideal * powers(beta, steps)[None, :]).sum(axis=1)[ctx.d.topic_of_group]
    return _ratio(_nrbp(ctx, m), safe_div(ideal_total * (1.0 - (1.0 - alpha) * beta), ctx.S))


def _ap_ia(ctx, m):
    ctx = _ctx(ctx, m)
    key = ctx.g * ctx.W + ctx.sub
    total = np.bincount(key, weights=(ctx.seen + 1.0) / ctx.rank, minlength=ctx.Q * ctx.W).reshape(ctx.Q, ctx.W)
    per_sub = safe_div(total, ctx.nrel_sub[ctx.d.topic_of_group])
    return safe_div(per_sub.sum(axis=1), ctx.S)


def _p_ia(ctx, m):
    ctx = _ctx(ctx, m)
    hits = np.bincount(ctx.g[ctx.rank <= m.cutoff], minlength=ctx.Q)
    return safe_div(hits, m.cutoff * ctx.S)


def _strecall(ctx, m):
    ctx = _ctx(ctx, m)
    covered = np.bincount(ctx.g[(ctx.rank <= m.cutoff) & (ctx.seen == 0)], minlength=ctx.Q)
    return safe_div(covered, ctx.S)


def _register(family: Family) -> None:
    FAMILIES.add(family.name)
    register(family)


GAIN = r"g_i = \sum_{s \in rel(d_i)} (1-\alpha)^{c_s(i)},\ c_s(i) = |\{j < i : d_j \in rel_s\}|,\ "
II = r"\mathrm{II}_k = \sum_{i \le k} S (1-\alpha)^{i-1}"
_register(Family("alpha_nDCG", "alpha-nDCG: nDCG where a subtopic's gain decays by (1-alpha) each time it is seen "
                 "again; divided by ndeval's greedy ideal ranking.", GAIN + r"\alpha\text{-nDCG@k} = "
                 r"\frac{\sum_{i \le k} g_i / \log_2(i+1)}{\text{same for the greedy ideal}}",
                 "Clarke et al., SIGIR 2008; " + REF, _alpha_ndcg, params=(ALPHA, JUDGED_ONLY), cutoff="required",
                 aliases=("α_nDCG",), rel_param=True))
_register(Family("alpha_DCG", "alpha-DCG, collection-independent: divided by the ideal-ideal (every subtopic new at "
                 "every rank), except at rank 1.", GAIN + r"\alpha\text{-DCG@k} = \frac{\sum_{i \le k} g_i / "
                 r"\log_2(i+1)}{" + II + r" / \log_2(i+1)}\ (k \ge 2)", "Clarke et al., SIGIR 2008; " + REF,
                 _alpha_dcg, params=(ALPHA, JUDGED_ONLY), cutoff="required", aliases=("α_DCG",), rel_param=True))
_register(Family("alpha_DCG_raw", "Textbook alpha-DCG: the plain discounted sum of the novelty gains, at any depth "
                 "(alpha_DCG is ndeval's, divided by the ideal-ideal).", GAIN + r"\alpha\text{-DCG@k} = \sum_{i \le k} "
                 r"g_i / \log_2(i+1)", "Clarke et al., SIGIR 2008 (eq. 3)", _alpha_dcg_raw,
                 params=(ALPHA, JUDGED_ONLY), cutoff="required", rel_param=True))
_register(Family("ERR_IA", "Intent-aware ERR as ndeval computes it: alpha-DCG's gains with a 1/i discount, divided "
                 "by the ideal-ideal (except at rank 1).", GAIN + r"\text{ERR-IA@k} = \frac{\sum_{i \le k} g_i / i}"
                 r"{" + II + r" / i}\ (k \ge 2)", "Chapelle et al., CIKM 2009; " + REF, _err_ia,
                 params=(JUDGED_ONLY,), cutoff="required", rel_param=True))
_register(Family("nERR_IA", "ERR_IA divided by the ERR_IA of ndeval's greedy ideal ranking.",
                 r"\text{nERR-IA@k} = \text{ERR-IA@k} / \text{ERR-IA@k(greedy ideal)}",
                 "Chapelle et al., CIKM 2009; " + REF, _nerr_ia, params=(JUDGED_ONLY,), cutoff="required",
                 rel_param=True))
_register(Family("NRBP", "Novelty- and rank-biased precision over the whole ranking (alpha: redundancy, beta: "
                 "patience).", GAIN + r"\text{NRBP} = \frac{1 - (1-\alpha)\beta}{S} \sum_i \beta^{i-1} g_i",
                 "Clarke, Kolla & Vechtomova, ICTIR 2009; " + REF, _nrbp, params=(ALPHA, BETA), rel_param=True))
_register(Family("nNRBP", "NRBP divided by the NRBP of ndeval's greedy ideal ranking.",
                 r"\text{nNRBP} = \text{NRBP} / \text{NRBP(greedy ideal)}",
                 "Clarke, Kolla & Vechtomova, ICTIR 2009; " + REF, _nnrbp, params=(ALPHA, BETA), rel_param=True))
_register(Family("AP_IA", "Intent-aware average precision: AP per subtopic, averaged over the topic's S subtopics.",
                 r"\text{AP-IA} = \frac{1}{S} \sum_s \frac{1}{R_s} \sum_{i: d_i \in rel_s} P_s@i",
                 "Agrawal et al., WSDM 2009; " + REF, _ap_ia, params=(JUDGED_ONLY,), aliases=("MAP_IA",),
                 rel_param=True))
_register(Family("P_IA", "Intent-aware precision at k: relevant (document, subtopic) pairs in the top k over k S.",
                 r"\text{P-IA@k} = \frac{1}{kS} \sum_{i \le k} |rel(d_i)|", "Agrawal et al., WSDM 2009; " + REF,
                 _p_ia, params=(JUDGED_ONLY,), cutoff="required", rel_param=True))
_register(Family("StRecall", "Subtopic recall: the fraction of the topic's subtopics covered by the top k.",
                 r"\text{S-recall@k} = |\bigcup_{i \le k} rel(d_i)| / S", "Zhai, Cohen & Lafferty, SIGIR 2003; " + REF,
                 _strecall, cutoff="required", rel_param=True))
