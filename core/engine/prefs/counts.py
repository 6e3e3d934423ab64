"""trec_eval's 14 preference measures (m_prefs_*.c) from the preference graph (core.engine.prefs.graph).

Each preference a > b (as docids: smaller = retrieved earlier; >= NJR = not retrieved) falls in one of
form_prefs_counts.c's five areas: fulfilled among retrieved (a < b < NJR), not fulfilled among retrieved
(b < a < NJR), implied fulfilled (a < NJR <= b), implied not fulfilled (b < NJR <= a), neither retrieved.
They are counted per judgment group with np.bincount over all preference pairs at once, in chunks of whole
topics (EDGES pairs at most, unless one topic alone has more) so that memory stays bounded. The pair measures
need the pairs of every group of a topic together (pref_counts in trec_eval): np.unique over (topic, lo, hi).
"""
from __future__ import annotations

import numpy as np

from core.engine.prefs.graph import Graph, expand, pa_group
from core.engine.prefs.levels import level_counts
from core.measures.context import safe_div        # 0 for a zero count of pairs, as trec_eval leaves it

EDGES = 1_000_000
# A topic with one judgment group holds each document pair at most once, in one direction (an EC group puts a
# document at one level; a PA group's closure is checked for contradictions), so its pair measures follow from the
# five area counts (fulfilled pairs score 1, the others 0) without np.unique over its pairs, and when that group is
# an EC group core.engine.prefs.levels counts its areas without listing its pairs at all. The plain form (PAIR_FREE =
# False) lists every pair and sends every topic through _pairs; tests/engine/test_measures_prefs.py compares the two and
# benchmarks/prefs_timing.py times them.
PAIR_FREE = True
COUNTS = ("fr", "nr", "fi", "ni", "no", "num_rel", "num_nonrel", "num_rel_ret", "num_nonrel_ret",
          "rc_ful", "rc_poss", "rc_ful_ret", "rc_poss_ret")
PAIRS = ("sum_ret", "n_ret", "sum_imp", "n_imp", "n_no")
# area of a pair a > b from (a retrieved, b retrieved, a before b) = 4*ar + 2*br + ab: 0 fulfilled among retrieved,
# 1 not fulfilled among retrieved, 2 implied fulfilled (only a retrieved), 3 implied not, 4 neither retrieved
AREA = np.array([4, 4, 3, 3, 2, 2, 1, 0])


def prefs_values(graph: Graph) -> dict[str, np.ndarray]:
    """trec_eval's 14 prefs_* values per evaluated topic (in graph.topics order)."""
    G, T = graph.n_groups, len(graph.topics)
    c = {k: np.zeros(G) for k in COUNTS}
    p = {k: np.zeros(T) for k in PAIRS}
    pa_edges = _pa_groups(graph, c)
    _ec_levels(graph, c)
    single = np.bincount(graph.group_topic, minlength=T) == 1
    free = (PAIR_FREE & ~graph.is_pa & single[graph.group_topic])[graph.g]      # per row: counted by levels
    level_counts(graph, c, np.flatnonzero(free))
    listed = ~free & ~graph.is_pa[graph.g]                                       # per row: pairs listed here
    for lo, hi in _chunks(graph, listed):
        _count(graph, c, p, lo, hi, pa_edges, listed)
    return _measures(graph, c, p)


def _pa_groups(graph: Graph, c: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Close each preference-array group (a loop over those groups; numpy inside) -> their edges (g, a, b)."""
    bounds = np.searchsorted(graph.g, np.arange(graph.n_groups + 1))
    gs, as_, bs = [], [], []
    for g in np.flatnonzero(graph.is_pa):
        out = pa_group(graph, int(g), int(bounds[g]), int(bounds[g + 1]))
        for k in ("num_rel", "num_nonrel", "num_rel_ret", "num_nonrel_ret", "rc_ful", "rc_poss", "rc_ful_ret",
                  "rc_poss_ret"):
            c[k][g] = out[k]
        gs.append(np.full(len(out["a"]), g, np.int64))
        as_.append(out["a"])
        bs.append(out["b"])
    if not gs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(gs), np.concatenate(as_), np.concatenate(bs)


def _ec_levels(graph: Graph, c: dict) -> None:
    """Relevant (rel_level > 0) and non-relevant (<= 0) rows of the EC groups, and their retrieved part."""
    ec = ~graph.is_pa[graph.g]
    g, ret = graph.g[ec], graph.docid[ec] < graph.njr[graph.group_topic[graph.g[ec]]]
    rel = graph.rel[ec] > 0
    G = graph.n_groups
    c["num_rel"] += np.bincount(g[rel], minlength=G)
    c["num_nonrel"] += np.bincount(g[~rel], minlength=G)
    c["num_rel_ret"] += np.bincount(g[rel & ret], minlength=G)
    c["num_nonrel_ret"] += np.bincount(g[~rel & ret], minlength=G)
    # Rnonrel's recount pairs the lowest level's first R rows with every row of that level (self-pairs included)
    last = ec & graph.last
    g_last = graph.g[last]
    n_last = np.bincount(g_last, minlength=G)
    k = np.bincount(g_last[graph.docid[last] < graph.njr[graph.group_topic[g_last]]], minlength=G)
    m = np.minimum(c["num_rel"], n_last)
    j = np.minimum(m, k)
    pa = graph.is_pa
    c["rc_ful"] += np.where(pa, 0, j * (j - 1) / 2 + k * np.maximum(m - k, 0))
    c["rc_poss"] += np.where(pa, 0, n_last * m)
    m = np.minimum(c["num_rel_ret"], k)
    c["rc_ful_ret"] += np.where(pa, 0, m * (m - 1) / 2)
    c["rc_poss_ret"] += np.where(pa, 0, k * m)


def _chunks(graph: Graph, listed: np.ndarray):
    """Row ranges of whole topics, a new range each time the running count of EC pairs passes a multiple of EDGES."""
    n = len(graph.g)
    if n == 0:
        return
    topic = graph.group_topic[graph.g]
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    counts = np.where(listed, graph.end - graph.start, 0)
    before = np.r_[0, np.cumsum(counts)][starts]            # pairs before each topic
    chunk = before // EDGES
    bounds = np.r_[starts[np.r_[True, chunk[1:] != chunk[:-1]]], n]
    yield from zip(bounds[:-1].tolist(), bounds[1:].tolist())


def _count(graph: Graph, c: dict, p: dict, lo: int, hi: int, pa_edges, listed) -> None:
    rows = np.arange(lo, hi)
    rows = rows[listed[lo:hi]]
    a_row, b_row = expand(graph.start, graph.end, rows)
    g_ec, a_ec, b_ec = graph.g[a_row], graph.docid[a_row], graph.docid[b_row]
    G = graph.n_groups
    njr = graph.njr[graph.group_topic[g_ec]]
    # Rnonrel's recount (EC groups): pairs into the lowest level keep only its first R (R_ret) rows
    ar, br, ab = a_ec < njr, b_ec < njr, a_ec < b_ec
    b_last, b_pos = graph.last[b_row], graph.pos[b_row]
    keep = ~b_last | (b_pos < c["num_rel"][g_ec])
    k = _tally(g_ec, keep * (1 + (ab & ar)), 3, G)          # 0 left out, 1 kept, 2 kept and fulfilled
    c["rc_ful"] += k[:, 2]
    c["rc_poss"] += k[:, 1] + k[:, 2]
    keep = ar & br & (~b_last | (b_pos < c["num_rel_ret"][g_ec]))
    k = _tally(g_ec, keep * (1 + ab), 3, G)
    c["rc_ful_ret"] += k[:, 2]
    c["rc_poss_ret"] += k[:, 1] + k[:, 2]
    if len(pa_edges[0]):
        t0, t1 = graph.group_topic[graph.g[lo]], graph.group_topic[graph.g[hi - 1]]
        topic = graph.group_topic[pa_edges[0]]
        sel = (topic >= t0) & (topic <= t1)
        g = np.r_[g_ec, pa_edges[0][sel]]
        a, b = np.r_[a_ec, pa_edges[1][sel]], np.r_[b_ec, pa_edges[2][sel]]
        njr = graph.njr[graph.group_topic[g]]
        ar, br, ab = a < njr, b < njr, a < b
    else:
        g, a, b = g_ec, a_ec, b_ec
    k = _tally(g, AREA[ar * 4 + br * 2 + ab], 5, G)
    for i, key in enumerate(("fr", "nr", "fi", "ni", "no")):
        c[key] += k[:, i]
    t = graph.group_topic[g]
    if PAIR_FREE:
        several = (np.bincount(graph.group_topic, minlength=len(graph.topics)) > 1)[t]
        t, a, b = t[several], a[several], b[several]
    _pairs(graph, p, t, a, b)


def _tally(g: np.ndarray, code: np.ndarray, n_codes: int, G: int) -> np.ndarray:
    """(group, code) -> number of pairs: one bincount for all codes (plain form: one masked bincount per code)."""
    return np.bincount(g * n_codes + code, minlength=G * n_codes).reshape(G, n_codes)


def _pairs(graph: Graph, p: dict, t: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """pref_counts: for each unordered document pair of a topic, the share of its preferences (over all judgment
    groups) that point the fulfilled way (to the later docid)."""
    if len(t) == 0:
        return
    width = np.int64(max(int(a.max()), int(b.max())) + 1)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = (t.astype(np.int64) * width + lo) * width + hi
    uniq, inverse = np.unique(key, return_inverse=True)
    ratio = np.bincount(inverse, weights=a < b) / np.bincount(inverse)
    pt, rest = np.divmod(uniq, width * width)
    plo, phi = np.divmod(rest, width)
    njr = graph.njr[pt]
    T = len(graph.topics)
    both, one = phi < njr, (plo < njr) & (phi >= njr)
    p["sum_ret"] += np.bincount(pt[both], weights=ratio[both], minlength=T)
    p["n_ret"] += np.bincount(pt[both], minlength=T)
    p["sum_imp"] += np.bincount(pt[one], weights=ratio[one], minlength=T)
    p["n_imp"] += np.bincount(pt[one], minlength=T)
    p["n_no"] += np.bincount(pt[plo >= njr], minlength=T)


def _measures(graph: Graph, c: dict, p: dict) -> dict[str, np.ndarray]:
    T, t = len(graph.topics), graph.group_topic

    def per_topic(v):
        return np.bincount(t, weights=v, minlength=T)

    ful_ret, ful_imp = c["fr"], c["fi"]
    poss_ret, poss_imp, notoccur = c["fr"] + c["nr"], c["fi"] + c["ni"], c["no"]
    n_jgs = np.bincount(t, minlength=T)

    def avgjg(num, den, nan_ok=False):
        if nan_ok:                       # Rnonrel: 0/0 is NaN in C, which makes the topic's sum fail "> 0"
            with np.errstate(divide="ignore", invalid="ignore"):
                s = per_topic(num / den)
        else:
            s = per_topic(safe_div(num, den))
        with np.errstate(invalid="ignore"):
            return np.where(s > 0, s / np.maximum(n_jgs, 1), 0.0)

    R, N = c["num_rel"], c["num_nonrel"]
    extra = R - N
    rn_num = np.where(extra >= 0, ful_ret + ful_imp + c["num_rel_ret"] * extra, c["rc_ful"])
    rn_den = np.where(extra >= 0, poss_ret + poss_imp + notoccur + R * extra, c["rc_poss"])
    R, N = c["num_rel_ret"], c["num_nonrel_ret"]
    extra = R - N
    rr_num = np.where(extra >= 0, ful_ret + R * extra, c["rc_ful_ret"])
    rr_den = np.where(extra >= 0, poss_ret + c["num_rel"] * extra, c["rc_poss_ret"])
    if PAIR_FREE:
        one = n_jgs == 1
        for key, v in (("sum_ret", ful_ret), ("n_ret", poss_ret), ("sum_imp", ful_imp), ("n_imp", poss_imp),
                       ("n_no", notoccur)):
            p[key] = np.where(one, per_topic(v), p[key])
    pairs_all = p["n_ret"] + p["n_imp"] + p["n_no"]
    return {
        "prefs_num_prefs_poss": per_topic(poss_ret + poss_imp + notoccur),
        "prefs_num_prefs_ful": per_topic(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": per_topic(ful_ret),
        "prefs_simp": safe_div(per_topic(ful_ret + ful_imp), per_topic(poss_ret + poss_imp + notoccur)),
        "prefs_pair": safe_div(p["sum_ret"] + p["sum_imp"], pairs_all),
        "prefs_avgjg": avgjg(ful_ret + ful_imp, poss_ret + poss_imp + notoccur),
        "prefs_avgjg_Rnonrel": avgjg(rn_num, rn_den, nan_ok=True),
        "prefs_simp_ret": safe_div(per_topic(ful_ret), per_topic(poss_ret)),
        "prefs_pair_ret": safe_div(p["sum_ret"], p["n_ret"]),
        "prefs_avgjg_ret": avgjg(ful_ret, poss_ret),
        "prefs_avgjg_Rnonrel_ret": avgjg(rr_num, rr_den, nan_ok=True),
        "prefs_simp_imp": safe_div(per_topic(ful_ret + ful_imp), per_topic(poss_ret + poss_imp)),
        "prefs_pair_imp": safe_div(p["sum_ret"] + p["sum_imp"], p["n_ret"] + p["n_imp"]),
        "prefs_avgjg_imp": avgjg(ful_ret + ful_imp, poss_ret + poss_imp),
    }
