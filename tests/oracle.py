"""A naive, obviously-correct reference implementation of the Rankboard measures.

This is the test oracle: plain Python loops, written from the definitions, never vectorised,
and independent of ``core``. It follows trec_eval 9.0.8's conventions (usnistgov/trec_eval,
``form_res_rels.c`` and the ``m_*.c`` files):

* a query's ranking is its run rows sorted by score descending, ties broken by docno
  descending (byte order), the file's rank column ignored;
* every retrieved document gets a grade: its qrels label, or ``None`` when it is not in the
  qrels (trec_eval's RELVALUE_NONPOOL); a negative qrels label is "in the pool but unjudged"
  (RELVALUE_UNJUDGED): neither relevant nor judged non-relevant;
* relevant means grade >= rel_level (default 1); num_rel counts the whole qrels of the query;
* P@k always divides by k; AP and map_cut divide by num_rel;
* the gain-based measures (nDCG, DCG) use the positive grades, whatever rel_level is.

The textbook variants (seeds 000-004) are here too: DCG(dcg='jk'), nDCG(dcg='exp-log2'),
Rcap, AP(norm='found'), F, E, SetF(beta=b), Judged, AUC.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

INFAP_EPSILON = 0.00001
GM_FLOOR = 0.00001  # trec_eval's gm_map floor (MIN_GEO_MEAN)

Grade = int | None  # None = not in the qrels


# ---------------------------------------------------------------- ranking

def canonical_order(run_q: dict[str, float]) -> list[str]:
    """Docnos sorted as trec_eval sorts them: score descending, then docno descending."""
    docs = sorted(run_q, reverse=True)            # docno descending (code point = byte order)
    return sorted(docs, key=lambda d: -run_q[d])  # stable: score descending keeps docno order


@dataclass
class Query:
    """One query's ranked grades plus the whole qrels of the query."""

    ranked: list[Grade]
    qrels: list[int] = field(default_factory=list)
    rel_level: int = 1
    num_docs: int | None = None   # collection size (-N), used by AUC only

    # ---- helpers -------------------------------------------------------
    def is_rel(self, g: Grade, level: int | None = None) -> bool:
        lvl = self.rel_level if level is None else level
        return g is not None and g >= 0 and g >= lvl

    def is_judged_nonrel(self, g: Grade, level: int | None = None) -> bool:
        lvl = self.rel_level if level is None else level
        return g is not None and 0 <= g < lvl

    def num_rel(self, level: int | None = None) -> int:
        return sum(1 for g in self.qrels if self.is_rel(g, level))

    def num_ret(self) -> int:
        return len(self.ranked)

    def rel_in_top(self, k: int, level: int | None = None) -> int:
        return sum(1 for g in self.ranked[:k] if self.is_rel(g, level))

    def num_rel_ret(self, level: int | None = None) -> int:
        return self.rel_in_top(len(self.ranked), level)


def from_pattern(pattern: str | list, total_rel: int | None = None, *, extra: tuple = ()) -> Query:
    """A Query from "R R N ..." (or "RRN..."), or from a list of grades.

    For an R/N pattern, unretrieved relevant documents are added to the qrels until there are
    ``total_rel`` relevant ones. For a graded list, ``extra`` lists grades of unretrieved judged
    documents (the qrels are the retrieved grades plus ``extra``).
    """
    if isinstance(pattern, str):
        letters = [c for c in pattern if c in "RN"]
        ranked: list[Grade] = [1 if c == "R" else 0 for c in letters]
        qrels = list(ranked)
        found = sum(ranked)
        if total_rel is not None:
            if total_rel < found:
                raise ValueError("total_rel smaller than the relevant documents in the pattern")
            qrels += [1] * (total_rel - found)
        return Query(ranked, qrels + list(extra))
    ranked = list(pattern)
    return Query(ranked, [g for g in ranked if g is not None] + list(extra))


# ---------------------------------------------------------------- measures

def precision_at(q: Query, k: int, level: int | None = None) -> float:
    return q.rel_in_top(k, level) / k


def recall_at(q: Query, k: int) -> float:
    r = q.num_rel()
    return q.rel_in_top(k) / r if r else 0.0


def rcap_at(q: Query, k: int) -> float:
    """Seed 004: recall@K = #rel in top K / min(#rel, K) (= trec_eval's relative_P)."""
    r = q.num_rel()
    return q.rel_in_top(k) / min(r, k) if r else 0.0


def average_precision(q: Query, k: int | None = None, norm: str = "rel") -> float:
    """AP (trec map), AP@k (trec map_cut: still / num_rel), AP(norm='found')@k (seed 001)."""
    ranked = q.ranked if k is None else q.ranked[:k]
    total, found = 0.0, 0
    for i, g in enumerate(ranked, start=1):
        if q.is_rel(g):
            found += 1
            total += found / i
    denom = q.num_rel() if norm == "rel" else found
    return total / denom if denom else 0.0


def reciprocal_rank(q: Query, k: int | None = None) -> float:
    ranked = q.ranked if k is None else q.ranked[:k]
    for i, g in enumerate(ranked, start=1):
        if q.is_rel(g):
            return 1.0 / i
    return 0.0


def r_precision(q: Query) -> float:
    r = q.num_rel()
    return q.rel_in_top(r) / r if r else 0.0


def rprec_mult(q: Query, mult: float) -> float:
    """trec_eval Rprec_mult: precision at cutoff (long)(mult*R + 0.9)."""
    r = q.num_rel()
    cut = int(mult * r + 0.9)
    if cut == 0:
        return 0.0
    return q.rel_in_top(cut) / cut


def success_at(q: Query, k: int) -> float:
    return 1.0 if q.rel_in_top(k) > 0 else 0.0


def bpref(q: Query) -> float:
    """Buckley & Voorhees 2004, exactly as trec_eval's m_bpref.c."""
    r = q.num_rel()
    if r == 0:
        return 0.0
    num_nonrel = sum(1 for g in q.qrels if q.is_judged_nonrel(g))
    nonrel_so_far, total = 0, 0.0
    for g in q.ranked:
        if g is None or g < 0:
            continue
        if q.is_judged_nonrel(g):
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, r) / min(num_nonrel, r)
            else:
                total += 1.0
    return total / r


def inf_ap(q: Query) -> float:
    """Yilmaz & Aslam 2006, as trec_eval's m_infap.c."""
    rel_so_far = nonrel_so_far = unjudged_so_far = 0
    total = 0.0
    for j, g in enumerate(q.ranked):
        if g is None:
            continue
        if g < 0:
            unjudged_so_far += 1
            continue
        if q.is_judged_nonrel(g):
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            total += 1.0
        else:
            total += 1.0 / (j + 1) + (j / (j + 1)) * (
                (rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / j
            ) * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))
    r = q.num_rel()
    return total / r if r else 0.0


def iprec_at_recall(q: Query, recall: float, compat: int = 9) -> float:
    """Interpolated precision: max precision at any rank whose recall reaches the cutoff.

    The recall cutoff is turned into a number of relevant documents as trec_eval does:
    9.0.8: (long)(recall * R + 0.9); 10.0: lround(recall * R).
    """
    r = q.num_rel()
    if compat == 9:
        need = int(recall * r + 0.9)
    else:
        need = int(math.floor(recall * r + 0.5))
    if q.num_rel_ret() == 0 or need > q.num_rel_ret():
        return 0.0
    # rank of the need-th relevant document (need 0: the first one)
    found, start = 0, None
    for i, g in enumerate(q.ranked, start=1):
        if q.is_rel(g):
            found += 1
            if found == max(need, 1):
                start = i
                break
    # Int_Prec = MAX(Prec(rank Y)) over all ranks Y >= that rank
    best = 0.0
    for i in range(start, len(q.ranked) + 1):
        best = max(best, q.rel_in_top(i) / i)
    return best


def eleven_pt_avg(q: Query, compat: int = 9) -> float:
    return sum(iprec_at_recall(q, i / 10, compat) for i in range(11)) / 11


def _gain(g: Grade, form: str) -> float:
    if g is None or g <= 0:
        return 0.0
    if form == "exp-log2":
        return 2.0 ** g - 1.0
    return float(g)


def _discount(i: int, form: str) -> float:
    """Weight of rank i (1-based)."""
    if form == "jk":
        return 1.0 if i == 1 else 1.0 / math.log2(i)
    return 1.0 / math.log2(i + 1)


def dcg(grades: list[Grade], k: int | None = None, form: str = "log2") -> float:
    """form: 'log2' (trec_eval: g/log2(i+1)), 'jk' (g_1 + sum_{i>=2} g/log2 i),
    'exp-log2' ((2^g - 1)/log2(i+1))."""
    top = grades if k is None else grades[:k]
    return sum(_gain(g, form) * _discount(i, form) for i, g in enumerate(top, start=1))


def ndcg(q: Query, k: int | None = None, form: str = "log2") -> float:
    ideal = sorted((g for g in q.qrels if g is not None and g > 0), reverse=True)
    idcg = dcg(ideal, k, form)
    return dcg(q.ranked, k, form) / idcg if idcg > 0 else 0.0


def f_at(q: Query, k: int, beta: float = 1.0) -> float:
    p, r = precision_at(q, k), recall_at(q, k)
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if (p + r) > 0 else 0.0


def set_p(q: Query) -> float:
    return q.num_rel_ret() / q.num_ret() if q.num_ret() else 0.0


def set_r(q: Query) -> float:
    r = q.num_rel()
    return q.num_rel_ret() / r if r else 0.0


def set_f(q: Query, beta: float = 1.0) -> float:
    p, r = set_p(q), set_r(q)
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if (p + r) > 0 else 0.0


def judged_at(q: Query, k: int | None) -> float:
    """ir_measures Judged@k (judged_provider.py): documents of the top k that appear in the qrels (any
    grade), over min(k, number retrieved); no cutoff = everything retrieved."""
    top = q.ranked if k is None else q.ranked[:k]
    return sum(1 for g in top if g is not None) / len(top) if top else 0.0


def judged_k(q: Query, k: int) -> float:
    """Textbook judged fraction: grade >= 0 in the top k, over k."""
    return sum(1 for g in q.ranked[:k] if g is not None and g >= 0) / k


def auc(q: Query) -> float:
    """ROC area: relevant = positives, judged non-relevant = negatives. Unretrieved judged
    documents are tied after every retrieved one. With num_docs, unjudged documents of the
    collection count as negatives (the retrieved ones at their rank)."""
    retrieved = list(q.ranked)
    n_pos_ret = sum(1 for g in retrieved if q.is_rel(g))
    pos_total = q.num_rel()
    if q.num_docs is None:
        neg_flags = [q.is_judged_nonrel(g) for g in retrieved]
        neg_total = sum(1 for g in q.qrels if q.is_judged_nonrel(g))
    else:
        neg_flags = [not q.is_rel(g) for g in retrieved]
        neg_total = q.num_docs - pos_total  # every document of the collection that is not relevant
    pos_unret = pos_total - n_pos_ret
    neg_ret = sum(neg_flags)
    neg_unret = neg_total - neg_ret
    if pos_total == 0 or neg_total == 0:
        return 0.0
    wins = 0.0
    negs_above = 0
    for g, is_neg in zip(retrieved, neg_flags):
        if is_neg:
            negs_above += 1
        elif q.is_rel(g):
            wins += (neg_ret - negs_above) + neg_unret  # beats every neg below it
    wins += 0.5 * pos_unret * neg_unret
    return wins / (pos_total * neg_total)


# ---------------------------------------------------------------- names

_NAME = re.compile(r"^(?P<fam>[A-Za-z_]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?$")


def parse(name: str) -> tuple[str, dict, str | None]:
    m = _NAME.match(name.replace(" ", ""))
    if not m:
        raise ValueError(f"oracle cannot parse measure {name!r}")
    params: dict = {}
    if m.group("params"):
        for part in m.group("params").split(","):
            key, value = part.split("=")
            value = value.strip("'\"")
            try:
                params[key] = int(value)
            except ValueError:
                try:
                    params[key] = float(value)
                except ValueError:
                    params[key] = value
    return m.group("fam"), params, m.group("cut")


COUNT_MEASURES = {"NumRet", "NumRel", "NumRelRet", "NumQ"}


def measure(name: str, q: Query, *, compat: int = 9) -> float:
    """The value of one measure (ir_measures-style name) on one query."""
    fam, params, cut = parse(name)
    k = int(cut) if cut is not None and fam != "IPrec" else None
    if "rel" in params and fam not in ("P",):
        q = Query(q.ranked, q.qrels, int(params["rel"]), q.num_docs)
    if fam == "P":
        return precision_at(q, k, params.get("rel")) if k else set_p(q)
    if fam == "R":
        return recall_at(q, k) if k else set_r(q)
    if fam == "Rcap":
        return rcap_at(q, k)
    if fam == "AP":
        return average_precision(q, k, params.get("norm", "rel"))
    if fam == "RR":
        return reciprocal_rank(q, k)
    if fam == "Rprec":
        return r_precision(q)
    if fam == "Rprec_mult":
        return rprec_mult(q, float(params.get("mult", cut)))
    if fam == "Success":
        return success_at(q, k)
    if fam == "Bpref":
        return bpref(q)
    if fam == "infAP":
        return inf_ap(q)
    if fam == "IPrec":
        return iprec_at_recall(q, float(cut), compat)
    if fam == "nDCG":
        return ndcg(q, k, params.get("dcg", "log2"))
    if fam == "DCG":
        return dcg(q.ranked, k, params.get("dcg", "log2"))
    if fam == "F":
        return f_at(q, k, float(params.get("beta", 1.0)))
    if fam == "E":
        return 1.0 - f_at(q, k, float(params.get("beta", 1.0)))
    if fam == "SetP":
        return set_p(q)
    if fam == "SetR":
        return set_r(q)
    if fam == "SetF":          # trec_eval's set_F parameter is beta squared
        return set_f(q, math.sqrt(float(params.get("beta", 1.0))))
    if fam == "SetFbeta":
        return set_f(q, float(params.get("beta", 1.0)))
    if fam == "Judged":
        return judged_at(q, k)
    if fam == "JudgedK":
        return judged_k(q, k)
    if fam == "AUC":
        return auc(q)
    if fam == "NumRet":
        return float(q.num_ret())
    if fam == "NumRel":
        return float(q.num_rel())
    if fam == "NumRelRet":
        return float(q.num_rel_ret())
    if fam == "gm_map":
        return average_precision(q)
    raise ValueError(f"oracle has no measure {name!r}")


# ---------------------------------------------------------------- whole runs

def build_queries(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
                  rel_level: int = 1) -> dict[str, Query]:
    """trec_eval's evaluated topics (without -c): those in both the run and the qrels."""
    out = {}
    for qid in sorted(set(qrels) & set(run)):
        judged = qrels[qid]
        ranked = [judged.get(d) for d in canonical_order(run[qid])]
        out[qid] = Query(ranked, list(judged.values()), rel_level)
    return out


def evaluate(qrels, run, measures, rel_level: int = 1, compat: int = 9):
    """-> (per_query {(qid, measure): value}, summary {measure: value})."""
    queries = build_queries(qrels, run, rel_level)
    per_query = {(qid, m): measure(m, q, compat=compat) for qid, q in queries.items() for m in measures}
    summary = {}
    for m in measures:
        vals = [per_query[(qid, m)] for qid in queries]
        summary[m] = aggregate(m, vals)
    return per_query, summary


def aggregate(name: str, values: list[float]) -> float:
    """trec_eval's 'all' value: sums for counts, geometric mean (floored) for gm_*, else mean."""
    if not values:
        return 0.0
    fam = parse(name)[0]
    if fam in COUNT_MEASURES:
        return float(sum(values))
    if fam.startswith("gm_"):
        return math.exp(sum(math.log(max(v, GM_FLOOR)) for v in values) / len(values))
    return sum(values) / len(values)
