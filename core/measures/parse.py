"""Measure names -> Measure values: ir_measures syntax first, trec_eval names as aliases, nickname sets."""
from __future__ import annotations

import ast
import difflib
import re
from functools import lru_cache

from core.errors import EvalError, UnknownMeasureError
from core.measures.ap import IPREC_CUTS
from core.measures.base import REGISTRY, Measure, all_names, family_named, make, trec_patterns
from core.measures.precision import CUTS
from core.measures.prefs import ALL_PREFS, PREFS_OFFICIAL

_IR = re.compile(r"(?P<name>\w+)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<cutoff>[0-9]*\.?[0-9]+))?\Z")
_PARAM = re.compile(r"\s*(?P<key>[A-Za-z_]\w*)\s*=\s*(?P<value>'[^']*'|\"[^\"]*\"|\{[^}]*\}|[^,]+?)\s*(?:,|\Z)")

_IPREC = [f"iprec_at_recall_{x:.2f}" for x in IPREC_CUTS]
MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)      # trec_eval's default Rprec_mult values
OFFICIAL = (["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
            + _IPREC + [f"P_{k}" for k in CUTS])
ALL_TREC_9 = (OFFICIAL + ["relstring"] + [f"recall_{k}" for k in CUTS]
              + ["infAP", "gm_bpref"] + [f"Rprec_mult_{x:.2f}" for x in MULTS]
              + ["utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg"]
              + [f"ndcg_cut_{k}" for k in CUTS] + [f"map_cut_{k}" for k in CUTS]
              + [f"relative_P_{k}" for k in CUTS] + ["success_1", "success_5", "success_10"]
              + ["set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"])
ALL_TREC_10 = ALL_TREC_9 + ["rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]
# trec_eval's `set` nickname (measures.c set_names; runid and num_q are the header lines), in its output order
SET = ["num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_relative_P", "set_recall", "set_map", "set_F"]
QRELS_JG = (["map_avgjg"] + [f"P_avgjg_{k}" for k in CUTS] + [f"Rprec_mult_avgjg_{x:.2f}" for x in MULTS])
# the nicknames -m accepts (all_trec: ALL_TREC_10 under --compat 10); all_prefs and prefs go with -R prefs
NICKNAMES = {"official": OFFICIAL, "all_trec": ALL_TREC_9, "set": SET, "qrels_jg": QRELS_JG,
             "all_prefs": ALL_PREFS, "prefs": PREFS_OFFICIAL}


def nickname(name: str, compat: int = 9) -> list[str] | None:
    if name == "all_trec" and compat >= 10:
        return list(ALL_TREC_10)
    return list(NICKNAMES[name]) if name in NICKNAMES else None


@lru_cache(maxsize=None)
def _trec_table():
    return [(rx, f) for f in REGISTRY for rx in trec_patterns(f)]


def _from_trec(name: str) -> Measure | None:
    for rx, fam in _trec_table():
        mt = rx.match(name)
        if not mt:
            continue
        values = mt.groupdict()
        cutoff = values.pop("cutoff", None)
        return make(fam, values, cutoff)
    return None


def _value(text: str):
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


@lru_cache(maxsize=4096)
def parse_measure(name) -> Measure:
    """'nDCG@10', "nDCG(dcg='exp-log2')@10", 'P(rel=2)@10', or a trec_eval name ('ndcg_cut_10', 'map')."""
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str) or not name.strip():
        raise UnknownMeasureError(f"Measure names are strings like 'nDCG@10', not {name!r}.")
    text = name.strip()
    m = _from_trec(text)
    if m is not None:
        return m
    if _RANX_RBP.match(text):                     # ranx's rbp.95 / rbp@95 (before RBP's own @cutoff check)
        return parse_measure(ranx_name(text))
    mt = _IR.match(text)
    fam = family_named(mt.group("name")) if mt else None
    if fam is None:
        ranx = ranx_name(text)
        if ranx is not None:
            return parse_measure(ranx)
        raise UnknownMeasureError(_unknown(text))
    params = {}
    if mt.group("params"):
        body = mt.group("params")
        pos = 0
        for pm in _PARAM.finditer(body):
            if pm.start() != pos:
                break
            params[pm.group("key")] = _value(pm.group("value"))
            pos = pm.end()
        if pos != len(body.strip()) and body[pos:].strip():
            raise EvalError(f"Cannot read the parameters of {text!r}. Write them as key=value, e.g. P(rel=2)@10.")
    cutoff = mt.group("cutoff")
    if cutoff is not None:
        cutoff = float(cutoff) if fam.cutoff_type is float or "." in cutoff else int(cutoff)
    return make(fam, params, cutoff)


# ranx's metric names (ranx/metrics/__init__.py metric_switch): name -> (without @k, with @k) in Rankboard's terms.
# ranx reads k=0 (no @k) as "every retrieved document". Bare `recall` keeps trec_eval's meaning (-m recall = recall
# at trec_eval's cutoffs); ranx's bare recall is SetR.
RANX = {
    "hits": ("hits", "hits@{k}"), "hit_rate": ("Success", "Success@{k}"), "precision": ("SetP", "P@{k}"),
    "recall": (None, "R@{k}"), "f1": ("SetF", "F@{k}"), "r-precision": ("Rprec", None), "mrr": ("RR", "RR@{k}"),
    "map": ("AP", "AP@{k}"), "ndcg": ("nDCG", "nDCG@{k}"), "dcg": ("DCG", "DCG@{k}"),
    "ndcg_burges": ("nDCG(dcg='exp-log2')", "nDCG(dcg='exp-log2')@{k}"),
    "dcg_burges": ("DCG(dcg='exp-log2')", "DCG(dcg='exp-log2')@{k}"), "bpref": ("Bpref", None),
}
_RANX = re.compile(r"(?P<name>[a-z0-9_\-]+?)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?\Z")


_RANX_RBP = re.compile(r"rbp[.@](?P<p>\d+)(?:-l(?P<level>\d+))?\Z")


def ranx_name(text: str) -> str | None:
    """A ranx metric name ('ndcg_burges@10', 'hits@5-l2', 'r-precision', 'rbp.95') as a Rankboard measure string,
    or None."""
    rbp = _RANX_RBP.match(text)
    if rbp:                                  # ranx reads rbp.95 as p = 0.95, with raw grades as gains
        if rbp.group("level") not in (None, "1"):
            raise EvalError(f"{text!r}: ranx's -l{rbp.group('level')} on rbp is not supported. Drop it, or use "
                            f"ir_measures' binary RBP(rel={rbp.group('level')}).")
        return f"RBP(gain='grade',p={float('0.' + rbp.group('p'))!r})"
    mt = _RANX.match(text)
    if not mt or mt.group("name") not in RANX:
        return None
    bare, cut = RANX[mt.group("name")]
    k = mt.group("k")
    if k is not None and int(k) == 0:
        k = None
    form = bare if k is None else cut
    if form is None:
        return None
    out = form.format(k=k)
    level = mt.group("level")
    if level is not None and int(level) != 1:
        fam = family_named(re.split(r"[(@]", out)[0])
        if fam is None or not fam.rel_param:
            raise EvalError(f"{text!r}: Rankboard has no relevance level for {out}; ranx's -l{level} is not supported "
                            f"there. Drop -l{level}, or choose a measure with rel=, e.g. P(rel={level})@10.")
        out = out.replace("(", f"(rel={level},", 1) if "(" in out else re.sub(r"^(\w+)", rf"\1(rel={level})", out)
    return out


def _unknown(text: str) -> str:
    names = sorted(set(all_names()))
    base, at, cut = text.partition("@")
    close = []
    if at and cut:
        bases = sorted({f.name for f in REGISTRY if f.cutoff != "none"}
                       | {a for f in REGISTRY if f.cutoff != "none" for a in f.aliases})
        close = [b + "@" + cut for b in difflib.get_close_matches(base, bases, n=3, cutoff=0.5)]
    close = close or difflib.get_close_matches(text, names, n=3, cutoff=0.5)
    if not close:
        lower = {n.lower(): n for n in names}
        close = [lower[c] for c in difflib.get_close_matches(text.lower(), list(lower), n=3, cutoff=0.5)]
    hint = f" Did you mean {' or '.join(close)}?" if close else (" Known measures include AP, nDCG@10, P@10, R@1000, RR, Bpref, infAP and every trec_eval name "
                                                    "(map, ndcg_cut_10, P_10, ...).")
    return f"Unknown measure {text!r}.{hint}"


def _expand_trec(text: str) -> list[str] | None:
    """trec_eval's `-m P` (default cutoffs) and `-m P.5,10` forms."""
    base, _, params = text.partition(".")
    if params and _from_trec(f"{base}_{params}") is not None and base in (
            "utility", "ndcg", "11pt_avg", "dcg", "ideal_dcg"):
        return [f"{base}_{params}"]
    for fam in REGISTRY:
        for t in fam.trec:
            if "{cutoff" not in t:
                continue
            prefix = t.split("{")[0]
            if prefix.rstrip("_") != base:
                continue
            cuts = [c for c in params.split(",") if c] if params else list(fam.trec_defaults)
            if not cuts:
                return None
            return [make(fam, {}, fam.cutoff_type(float(c) if fam.cutoff_type is float else int(float(c)))).name
                    for c in cuts]
    if base == "set_F" and params:                      # trec_eval's parameter (beta squared), as SetF's
        try:
            return [f"SetF(beta={float(params)!r})"]
        except ValueError:
            return None
    if base in ("Rprec_mult", "Rprec_mult_avgjg"):
        vals = [float(c) for c in params.split(",") if c] if params else list(MULTS)
        return [f"{base}_{v:.2f}" for v in vals]
    return None


def _expand(n: str, compat: int) -> tuple[list[str], bool]:
    """(the names `n` stands for, whether it was expanded): a nickname's measures, trec_eval's `-m P` and
    `-m P.5,10` forms, or `n` itself when it parses."""
    expanded = nickname(n.strip(), compat)
    if expanded is not None:
        return expanded, True
    try:
        parse_measure(n)
        return [n.strip()], False
    except EvalError:
        expanded = _expand_trec(n.strip())
        if expanded is None:
            raise
        return expanded, True


def parse_measures(names, compat: int = 9) -> list[Measure]:
    """Names, Measures or nicknames ('official', 'all_trec', trec family names like 'P') -> unique Measures."""
    out: list[Measure] = []
    for _, m in labelled(names, compat):
        if m not in out:
            out.append(m)
    return out


def labelled(names, compat: int = 9) -> list[tuple[str, Measure]]:
    """Like parse_measures, but keeps the spelling asked for as the output label: trec_eval names stay
    trec_eval names (so `-m all_trec --format trec` diffs cleanly against trec_eval), others are canonical."""
    if isinstance(names, (str, Measure)):
        names = [names]
    out: list[tuple[str, Measure]] = []
    for n in names:
        if isinstance(n, Measure):
            pairs = [(n.name, n)]
        else:
            spellings, expanded = _expand(n, compat)
            pairs = []
            for e in spellings:
                m = parse_measure(e)
                canonical = (m.trec_name or m.name) if expanded else m.name
                pairs.append((e if _from_trec(e) is not None else canonical, m))
        for label, m in pairs:
            if label not in [l for l, _ in out]:
                out.append((label, m))
    if not out:
        raise EvalError("No measures given. Use for example -m official or -m nDCG@10.")
    return out
