"""trec_eval's preference measures (-R prefs / -R qrels_prefs): the 14 prefs_* families of m_prefs_*.c.

They read preference judgments (a prefs file `qid jg jsg docno rel_level`, or a qrels file read as one), not
graded qrels, so the plain engine cannot compute them: core.engine.prefs.evaluate does (core.engine.prefs.graph and core.engine.prefs.counts
hold the vectorised counting). A preference "a > b" is fulfilled when a is retrieved above b, or a is retrieved
and b is not; "_ret" counts only preferences between two retrieved documents, "_imp" also those with one of them
retrieved, the bare form every preference (neither retrieved = not fulfilled).
"""
from __future__ import annotations

from core.errors import EvalError
from core.measures.base import Family, register

REF = "trec_eval 10.0 (-R prefs; form_prefs_counts.c, m_{name}.c)"
SOURCE = "trec_eval (-R prefs)"


def _needs_prefs(ctx, m):
    raise EvalError(f"{m.name} needs preference judgments: evaluate with -R prefs (a prefs file: qid jg jsg docno "
                    f"rel_level) or -R qrels_prefs (a qrels file read as preferences), e.g. "
                    f"`rankboard evaluate -R prefs -m all_prefs PREFS RUN`.")


# name, description, formula, summed over topics (a count) or averaged
_DECLARED = (
    ("prefs_num_prefs_poss", "Number of preferences, retrieved or not (summed over topics).",
     r"|\{a \succ b\}|", True),
    ("prefs_num_prefs_ful", "Number of preferences fulfilled, including implied ones (summed over topics).",
     r"|\{a \succ b : a \text{ above } b \text{ or only } a \text{ retrieved}\}|", True),
    ("prefs_num_prefs_ful_ret", "Number of preferences fulfilled between two retrieved documents (summed).",
     r"|\{a \succ b : a, b \text{ retrieved}, a \text{ above } b\}|", True),
    ("prefs_simp", "Preferences fulfilled / preferences possible, over all judgment groups (neither retrieved "
     "counts as a failure).", r"\frac{ful_{ret} + ful_{imp}}{poss_{ret} + poss_{imp} + poss_{none}}", False),
    ("prefs_pair", "Mean over document pairs of the share of their preferences (over all judgment groups) that "
     "are fulfilled; a pair with neither retrieved scores 0.", r"\frac{1}{|pairs|}\sum_{\{a,b\}} "
     r"\frac{n(a \succ b)}{n(a \succ b) + n(b \succ a)}", False),
    ("prefs_avgjg", "prefs_simp within each judgment group, averaged over the topic's groups.",
     r"\frac{1}{|J|}\sum_{j} \frac{ful_j}{poss_j}", False),
    ("prefs_avgjg_Rnonrel", "prefs_avgjg with each group's non-relevant documents (rel_level 0) counted as if "
     "there were R of them, R = its relevant documents (akin to bpref).",
     r"\frac{1}{|J|}\sum_{j} \frac{ful_j + R^{ret}_j (R_j - N_j)}{poss_j + R_j (R_j - N_j)}", False),
    ("prefs_simp_ret", "prefs_simp over preferences between two retrieved documents only.",
     r"\frac{ful_{ret}}{poss_{ret}}", False),
    ("prefs_pair_ret", "prefs_pair over pairs of two retrieved documents only.",
     r"\frac{1}{|pairs_{ret}|}\sum \frac{n(a \succ b)}{n(a \succ b) + n(b \succ a)}", False),
    ("prefs_avgjg_ret", "prefs_avgjg over preferences between two retrieved documents only.",
     r"\frac{1}{|J|}\sum_{j} \frac{ful_{ret,j}}{poss_{ret,j}}", False),
    ("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel over retrieved documents only.",
     r"\frac{1}{|J|}\sum_{j} \frac{ful_{ret,j} + R^{ret}_j (R^{ret}_j - N^{ret}_j)}{poss_{ret,j} + R_j "
     r"(R^{ret}_j - N^{ret}_j)}", False),
    ("prefs_simp_imp", "prefs_simp ignoring preferences where neither document is retrieved.",
     r"\frac{ful_{ret} + ful_{imp}}{poss_{ret} + poss_{imp}}", False),
    ("prefs_pair_imp", "prefs_pair ignoring pairs where neither document is retrieved.",
     r"\frac{1}{|pairs_{ret,imp}|}\sum \frac{n(a \succ b)}{n(a \succ b) + n(b \succ a)}", False),
    ("prefs_avgjg_imp", "prefs_avgjg ignoring preferences where neither document is retrieved.",
     r"\frac{1}{|J|}\sum_{j} \frac{ful_{ret,j} + ful_{imp,j}}{poss_{ret,j} + poss_{imp,j}}", False),
)

PREFS_FAMILIES = tuple(name for name, *_ in _DECLARED)
# trec_eval's nicknames (measures.c prefs_names / prefs_off_name; runid and num_q are the header lines)
ALL_PREFS = list(PREFS_FAMILIES)
PREFS_OFFICIAL = list(PREFS_FAMILIES[:6])

for _name, _desc, _formula, _count in _DECLARED:
    register(Family(_name, _desc, _formula, REF.format(name=_name), _needs_prefs, trec=(_name,),
                    agg="sum" if _count else "mean", ints=_count))
