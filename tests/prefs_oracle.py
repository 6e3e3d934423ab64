"""A plain-Python port of trec_eval's preference measures (form_prefs_counts.c and m_prefs_*.c), loop for loop,
as the reference the vectorised core.engine.prefs.evaluate is tested against. Slow on purpose: it follows the C code."""
from __future__ import annotations

from itertools import groupby


def reference(prefs, run, complete=False, max_depth=None) -> dict[str, dict[str, float]]:
    """prefs: (qid, jg, jsg, docno, rel) tuples; run: (qid, docno, score) -> {qid: {measure: value}}."""
    out = {}
    for q in sorted({p[0] for p in prefs}):
        ranked = [(s, d) for qq, d, s in run if qq == q]
        if not ranked and not complete and q not in {r[0] for r in run}:
            continue
        ranked.sort(key=lambda x: (-x[0], x[1].encode()))      # comp_sim_docno: ties by docno ascending
        if max_depth:
            ranked = ranked[:max_depth]
        out[q] = _topic([p[1:] for p in prefs if p[0] == q], [d for _, d in ranked])
    return out


def _topic(rows, ranked):
    judged = sorted({r[2] for r in rows}, key=str.encode)
    ret = [d for d in ranked if d in set(judged)]
    docid = {d: i for i, d in enumerate(ret)}
    for d in judged:
        if d not in docid:
            docid[d] = len(docid)
    njr, nj = len(ret), len(docid)
    rows = sorted(((jg, jsg, rel, docid[d]) for jg, jsg, d, rel in rows),
                  key=lambda r: (r[0].encode(), r[1].encode(), -r[2], r[3]))
    ca = {}
    jgs = [_jg(list(g), njr, nj, ca) for _, g in groupby(rows, key=lambda r: r[0])]
    return _measures(jgs, ca, njr, nj)


def _area(a, b, njr, jg):
    if a < njr and b < njr:
        jg["fr" if a < b else "nr"] += 1
    elif a < njr:
        jg["fi"] += 1
    elif b < njr:
        jg["ni"] += 1
    else:
        jg["no"] += 1


def _jg(rows, njr, nj, ca):
    jg = dict(fr=0, nr=0, fi=0, ni=0, no=0, rel=0, nonrel=0, rel_ret=0, nonrel_ret=0)
    if len({r[1] for r in rows}) == 1:                            # EC: one subgroup
        ecs = [(lvl, [r[3] for r in g]) for lvl, g in groupby(rows, key=lambda r: r[2])]
        for i, (lvl, docs) in enumerate(ecs):
            nret = sum(1 for d in docs if d < njr)
            if lvl > 0:
                jg["rel"] += len(docs)
                jg["rel_ret"] += nret
            else:
                jg["nonrel"] += len(docs)
                jg["nonrel_ret"] += nret
            for _, lower in ecs[i + 1:]:
                for a in docs:
                    for b in lower:
                        ca[(a, b)] = ca.get((a, b), 0) + 1
                        _area(a, b, njr, jg)
        jg["ecs"] = ecs
        return jg
    pa = [[False] * nj for _ in range(nj)]                        # PA: several subgroups
    rel = [-1.0] * nj
    for i, (_, jsg, lvl, a) in enumerate(rows):
        if (rel[a] > 0 and lvl == 0) or (rel[a] == 0 and lvl > 0):
            raise ValueError("0 and non-0 rel_level")
        rel[a] = lvl
        for _, jsg2, lvl2, b in rows[i + 1:]:
            if jsg2 == jsg and lvl2 < lvl:
                pa[a][b] = True
    for k in range(nj):                                           # Warshall: the same closure
        pa[k][k] = True
        for i in range(nj):
            if pa[i][k]:
                for j in range(nj):
                    pa[i][j] = pa[i][j] or pa[k][j]
    for i in range(nj):
        pa[i][i] = False
    if any(pa[i][j] and pa[j][i] for i in range(nj) for j in range(nj)):
        raise ValueError("inconsistent")
    for i in range(nj):
        if rel[i] > 0:
            jg["rel"] += 1
            jg["rel_ret"] += i < njr
        elif rel[i] == 0:
            jg["nonrel"] += 1
            jg["nonrel_ret"] += i < njr
        for j in range(nj):
            if pa[i][j]:
                ca[(i, j)] = ca.get((i, j), 0) + 1
                _area(i, j, njr, jg)
    jg["pa"], jg["rel_array"] = pa, rel
    return jg


def _recalc(jg, njr, nj, ret_only):
    """m_prefs_avgjg_Rnonrel(_ret).c recalculate(), loop for loop."""
    ful = poss = 0
    R = jg["rel_ret"] if ret_only else jg["rel"]
    if "ecs" in jg:
        ecs = jg["ecs"]
        new = ecs[-1][1][:R]
        keep = (lambda d: d < njr) if ret_only else (lambda d: True)
        for e1 in range(len(ecs)):
            for e2 in range(e1 + 1, len(ecs) - 1):
                for a in _prefix(ecs[e1][1], keep):
                    for b in _prefix(ecs[e2][1], keep):
                        if a < b and (ret_only or a < njr):
                            ful += 1
                        else:
                            poss += 1
        for e1 in range(len(ecs)):
            for a in _prefix(ecs[e1][1], keep):
                for b in _prefix(new, keep):
                    if a < b and (ret_only or a < njr):
                        ful += 1
                    else:
                        poss += 1
        return ful, poss + ful
    pa, rel = jg["pa"], jg["rel_array"]
    seen, first = 0, (njr if ret_only else nj)
    for i in range(njr if ret_only else nj):
        if rel[i] == 0:
            seen += 1
            if seen == jg["rel"] + 1:
                first = i
                break
    dropped = [i >= first and rel[i] == 0 for i in range(nj)]
    for i in range(nj):
        for j in range(nj):
            if not pa[i][j] or dropped[i] or dropped[j] or (ret_only and (i >= njr or j >= njr)):
                continue
            if i < j and i < njr:
                ful += 1
            else:
                poss += 1
    return ful, poss + ful


def _prefix(docs, keep):
    out = []
    for d in docs:                      # the C loops stop at the first document that fails the test
        if not keep(d):
            break
        out.append(d)
    return out


def _div(a, b):
    return a / b if b else 0.0


def _nan_div(a, b):
    return a / b if b else float("nan") if a == 0 else float("inf")


def _measures(jgs, ca, njr, nj):
    fr = sum(j["fr"] for j in jgs)
    fi = sum(j["fi"] for j in jgs)
    pr = sum(j["fr"] + j["nr"] for j in jgs)
    pi = sum(j["fi"] + j["ni"] for j in jgs)
    no = sum(j["no"] for j in jgs)
    v = {"prefs_num_prefs_poss": pr + pi + no, "prefs_num_prefs_ful": fr + fi, "prefs_num_prefs_ful_ret": fr,
         "prefs_simp": _div(fr + fi, pr + pi + no), "prefs_simp_ret": _div(fr, pr), "prefs_simp_imp": _div(fr + fi, pr + pi)}
    for name, f in (("prefs_avgjg", lambda j: (j["fr"] + j["fi"], j["fr"] + j["nr"] + j["fi"] + j["ni"] + j["no"])),
                    ("prefs_avgjg_ret", lambda j: (j["fr"], j["fr"] + j["nr"])),
                    ("prefs_avgjg_imp", lambda j: (j["fr"] + j["fi"], j["fr"] + j["nr"] + j["fi"] + j["ni"]))):
        s = sum(_div(*f(j)) for j in jgs)
        v[name] = s / len(jgs) if s > 0 else 0.0
    for name, ret in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        s = 0.0
        for j in jgs:
            R, N = (j["rel_ret"], j["nonrel_ret"]) if ret else (j["rel"], j["nonrel"])
            if R >= N:
                ful = j["fr"] + (0 if ret else j["fi"]) + j["rel_ret"] * (R - N)
                poss = j["fr"] + j["nr"] + (0 if ret else j["fi"] + j["ni"] + j["no"]) + j["rel"] * (R - N)
            else:
                ful, poss = _recalc(j, njr, nj, ret)
            s += _nan_div(ful, poss)
        v[name] = s / len(jgs) if s > 0 else 0.0
    sums, counts = {"ret": 0.0, "imp": 0.0}, {"ret": 0, "imp": 0, "no": 0}
    for i in range(nj):
        for j in range(i + 1, nj):
            cij, cji = ca.get((i, j), 0), ca.get((j, i), 0)
            if cij or cji:
                kind = "ret" if j < njr else "imp" if i < njr else "no"
                counts[kind] += 1
                if kind != "no":
                    sums[kind] += cij / (cij + cji)
    v["prefs_pair"] = _div(sums["ret"] + sums["imp"], sum(counts.values()))
    v["prefs_pair_ret"] = _div(sums["ret"], counts["ret"])
    v["prefs_pair_imp"] = _div(sums["ret"] + sums["imp"], counts["ret"] + counts["imp"])
    return v
