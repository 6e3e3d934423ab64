"""The C/W/L family (INST, INSQ, BPM, SDCG, NERR8-NERR11, and RBP(rel=r)) as ir_measures computes it through cwl_eval.

C/W/L (Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019): a user at rank i continues with probability C(i);
the weight of rank i is W(i) = prod_{j<i} C(j) / sum_{n<=N} prod_{j<n} C(j) over N = 1000 ranks (cwl_eval's
max_n: the ranking is cut at 1000, padded with zero gain), and the measure is the expected utility
sum_i W(i) g(i). ir_measures scales each grade into [0, 1]: g = (clip(max(rel, 0), min_rel, max_rel) - min_rel)
/ (max_rel - min_rel); an unjudged document gains 0; RBP(rel=r) gains 1 for a grade >= r.

Vectorised: gains go into a dense (topics x 1000) matrix, a block of topics at a time (BLOCK rows, so memory
stays near 8 MB a matrix); C, the running products and the sums are whole-matrix numpy operations.
"""
from __future__ import annotations

import numpy as np

from core.errors import EvalError
from core.measures.base import Family, Param, register

N = 1000                 # cwl_eval's max_n, which ir_measures passes
BLOCK = 1024             # topics per dense block
CWL = "Azzopardi, Thomas & Moffat, cwl_eval (SIGIR 2019) via ir_measures 0.4.3"
MIN_REL = Param("min_rel", int, 0, help="grade scaled to gain 0")
MAX_REL = Param("max_rel", int, None, required=True, help="grade scaled to gain 1 (required, as in ir_measures)")
T = Param("T", float, 1.0, minimum=0.0, help="total gain the user wants")


def _gain(ctx, m) -> np.ndarray:
    if m.family.name == "RBP":
        return (ctx.rel >= m.get("rel")).astype(np.float64)
    lo, hi = m.get("min_rel"), m.get("max_rel")
    if hi <= lo:
        raise EvalError(f"{m.name}: max_rel must be greater than min_rel.")
    return (np.clip(np.maximum(ctx.rel, 0), lo, hi) - lo) / (hi - lo)


def expected_utility(ctx, m, continuation) -> np.ndarray:
    """sum_i W(i) g(i) per topic; continuation(G, cumulative G, ranks 1..N) -> C matrix."""
    gain = _gain(ctx, m)
    keep = ctx.rank <= N
    g, rank, gain = ctx.g[keep], ctx.rank[keep], gain[keep]
    ranks = np.arange(1, N + 1, dtype=np.float64)
    out = np.zeros(ctx.Q)
    for lo in range(0, ctx.Q, BLOCK):
        hi = min(lo + BLOCK, ctx.Q)
        rows = (g >= lo) & (g < hi)
        G = np.zeros((hi - lo, N))
        G[g[rows] - lo, rank[rows] - 1] = gain[rows]
        C = continuation(G, np.cumsum(G, axis=1), ranks)
        P = np.cumprod(np.concatenate([np.ones((hi - lo, 1)), C[:, :-1]], axis=1), axis=1)   # prod_{j<i} C(j)
        out[lo:hi] = (P * G).sum(axis=1) / P.sum(axis=1)
    return out


def _inst(ctx, m):
    t = m.get("T")
    return expected_utility(ctx, m, lambda G, cum, i: ((i + t + (t - cum) - 1.0) / (i + t + (t - cum))) ** 2)


def _insq(ctx, m):
    t = m.get("T")
    return expected_utility(ctx, m, lambda G, cum, i: np.broadcast_to(((i + 2 * t - 1.0) / (i + 2 * t)) ** 2, G.shape))


def _bpm(ctx, m):
    t, k = m.get("T"), m.cutoff
    return expected_utility(ctx, m, lambda G, cum, i: ((cum < t) & (i < k)).astype(np.float64))


def _sdcg(ctx, m):
    k = m.cutoff
    c = np.where(np.arange(1, N + 1) < k, np.log2(np.arange(2, N + 2)) / np.log2(np.arange(3, N + 3)), 0.0)
    return expected_utility(ctx, m, lambda G, cum, i: np.broadcast_to(c, G.shape))


def _nerr8(ctx, m):
    return expected_utility(ctx, m, lambda G, cum, i: np.where(i < m.cutoff, 1.0 - G, 0.0))


def _nerr9(ctx, m):
    return expected_utility(ctx, m, lambda G, cum, i: np.where(i < m.cutoff, i / (i + 1.0) * (1.0 - G), 0.0))


def _nerr10(ctx, m):
    return expected_utility(ctx, m, lambda G, cum, i: m.get("p") * (1.0 - G))


def _nerr11(ctx, m):
    t = m.get("T")
    return expected_utility(ctx, m, lambda G, cum, i: ((i + 2 * t - 1.0) / (i + 2 * t)) ** 2 * (1.0 - G))


def rbp_binary(ctx, m, p: float):
    """ir_measures' RBP(rel=r) (cwl_eval): gain 1 for a grade >= r, C = p, weights normalised over 1000 ranks."""
    return expected_utility(ctx, m, lambda G, cum, i: np.full(G.shape, p))


W = r"W(i) = \frac{\prod_{j<i} C(j)}{\sum_{n \le 1000} \prod_{j<n} C(j)},\ "
register(Family("INST", "Adaptive C/W/L measure: the user wants T units of gain and is more likely to stop as gain "
                "accumulates.", W + r"C(i) = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2,\ T_i = T - \sum_{j \le i} g_j",
                "Moffat, Bailey, Scholer & Thomas, ADCS 2015; " + CWL, _inst, params=(T, MIN_REL, MAX_REL)))
register(Family("INSQ", "INST's static predecessor: C(i) depends on the rank and T only.",
                W + r"C(i) = \left(\frac{i + 2T - 1}{i + 2T}\right)^2", "Moffat, Scholer & Thomas, ADCS 2012; " + CWL,
                _insq, params=(T, MIN_REL, MAX_REL)))
register(Family("BPM", "Bejeweled player model (static): the user stops after T units of gain or k documents.",
                W + r"C(i) = [\sum_{j \le i} g_j < T \wedge i < k]", "Zhang et al., SIGIR 2017; " + CWL, _bpm,
                cutoff="required", params=(T, MIN_REL, MAX_REL)))
register(Family("SDCG", "Scaled DCG@k: DCG@k with grades scaled into [0, 1], divided by the sum of the discounts.",
                r"SDCG@k = \frac{\sum_{i \le k} g_i / \log_2(i+1)}{\sum_{i \le k} 1 / \log_2(i+1)}",
                "Jarvelin & Kekalainen 2002; " + CWL, _sdcg, cutoff="required",
                params=(Param("dcg", str, "log2", choices=("log2",)), MIN_REL, MAX_REL)))
register(Family("NERR8", "Not-quite ERR, eq. 8: C(i) = 1 - g_i up to rank k-1.", W + r"C(i) = (1 - g_i)[i < k]",
                "Azzopardi, Mackenzie & Moffat, ICTIR 2021; " + CWL, _nerr8, cutoff="required", params=(MIN_REL, MAX_REL)))
register(Family("NERR9", "Not-quite ERR, eq. 9: C(i) = i/(i+1) (1 - g_i) up to rank k-1.",
                W + r"C(i) = \frac{i}{i+1}(1 - g_i)[i < k]", "Azzopardi, Mackenzie & Moffat, ICTIR 2021; " + CWL,
                _nerr9, cutoff="required", params=(MIN_REL, MAX_REL)))
register(Family("NERR10", "Not-quite ERR, eq. 10: C(i) = p (1 - g_i), to full depth.", W + r"C(i) = p (1 - g_i)",
                "Azzopardi, Mackenzie & Moffat, ICTIR 2021; " + CWL, _nerr10,
                params=(Param("p", float, 0.9, minimum=0.0), MIN_REL, MAX_REL)))
register(Family("NERR11", "Not-quite ERR, eq. 11: INSQ's continuation times (1 - g_i).",
                W + r"C(i) = \left(\frac{i + 2T - 1}{i + 2T}\right)^2 (1 - g_i)",
                "Azzopardi, Mackenzie & Moffat, ICTIR 2021; " + CWL, _nerr11, params=(T, MIN_REL, MAX_REL)))
