"""Agreement between relevance assessors: kappas, Krippendorff's alpha and confusion matrices of qrels.

Items are (qid, docno) pairs. Two qrels sets are compared on the pairs that *both* judged; the
pairs only one of them judged are counted (`only_a`, `only_b`) but not used. Everything is
computed from one confusion matrix (a `pd.crosstab`), so no Python loop touches the pairs; the
statistics of a count table (which chance model each kappa uses, how weights and alpha's levels
are defined) are in `core/agreement/kappa.py`.

Negative grades (trec_eval's -1 = "in the pool, not judged") are dropped by default before
comparing (`negative='drop'`); pass `negative='keep'` to treat them as a grade.
With `rel_level=L` every grade becomes binary (rel >= L), giving binary kappa at any threshold.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from core.errors import EvalError
from core.stats.comparison import num
from core.agreement.kappa import (LEVELS, WEIGHTS, alpha_from_coincidence, binary, coincidence_matrix, fleiss_kappa,
                                  kappa_from_confusion, reading)


def as_qrels_frame(qrels, *, negative: str = "drop") -> pd.DataFrame:
    """Normalise a qrels DataFrame (or a parsed qrels object with `.table`) to qid, docno, rel."""
    table = getattr(qrels, "table", qrels)
    if hasattr(table, "to_pandas"):
        table = table.to_pandas()
    elif hasattr(table, "df") and not isinstance(table, pd.DataFrame):
        table = table.df()
    missing = {"qid", "docno", "rel"} - set(table.columns)
    if missing:
        raise EvalError(f"Qrels need the columns qid, docno and rel; missing {sorted(missing)}.")
    frame = pd.DataFrame({"qid": table["qid"].astype(str), "docno": table["docno"].astype(str),
                          "rel": pd.to_numeric(table["rel"]).astype("int64")})
    if negative == "drop":
        frame = frame[frame["rel"] >= 0]
    elif negative != "keep":
        raise EvalError(f"negative must be 'drop' or 'keep', not {negative!r}.")
    return frame.drop_duplicates(["qid", "docno"], keep="last").reset_index(drop=True)


def binarize(rel: pd.Series | np.ndarray, rel_level: int | None):
    """rel >= rel_level as 0/1 (trec_eval's -l); unchanged when rel_level is None."""
    return rel if rel_level is None else (np.asarray(rel) >= rel_level).astype("int64")


@dataclass(frozen=True)
class PairAgreement:
    names: tuple[str, str]
    n_common: int
    only_a: int
    only_b: int
    rel_level: int | None
    weights: str | None
    confusion: pd.DataFrame          # rows: judge A's grade, columns: judge B's grade, counts
    p_observed: float
    p_expected: float                 # Cohen: own marginals
    p_expected_pooled: float          # Scott: pooled marginals
    cohen_kappa: float
    pooled_kappa: float               # Scott's pi
    weighted_kappa: float | None      # None when weights is None
    alpha: dict                       # level -> Krippendorff's alpha
    per_topic: pd.DataFrame           # per_topic_kappa

    @property
    def reading(self) -> str:
        return reading(self.cohen_kappa)

    def to_dict(self) -> dict:
        """JSON-ready summary (the CLI's --format json object for one pair)."""
        labels = [int(v) for v in self.confusion.index]
        return {
            "a": self.names[0], "b": self.names[1], "rel_level": self.rel_level,
            "n_common": self.n_common, "only_a": self.only_a, "only_b": self.only_b,
            "p_observed": num(self.p_observed), "p_expected": num(self.p_expected),
            "p_expected_pooled": num(self.p_expected_pooled),
            "cohen_kappa": num(self.cohen_kappa), "pooled_kappa": num(self.pooled_kappa),
            "weights": self.weights, "weighted_kappa": num(self.weighted_kappa),
            "krippendorff_alpha": {k: num(v) for k, v in self.alpha.items()},
            "reading": self.reading,
            "confusion": {"labels": labels, "rows": self.names[0], "columns": self.names[1],
                          "counts": self.confusion.to_numpy().astype(int).tolist()},
            "kappa_by_threshold": kappa_by_threshold(self).to_dict(orient="records"),
            "topics_kappa_undefined": self.per_topic.loc[self.per_topic["undefined"], "qid"].tolist(),
        }


def paired_labels(qrels_a, qrels_b, *, rel_level=None, negative="drop"):
    """Inner join on (qid, docno): a DataFrame qid, docno, a, b; plus only_a, only_b counts."""
    a, b = as_qrels_frame(qrels_a, negative=negative), as_qrels_frame(qrels_b, negative=negative)
    common = a.merge(b, on=["qid", "docno"], how="inner", suffixes=("_a", "_b"))
    pairs = pd.DataFrame({"qid": common["qid"], "docno": common["docno"],
                          "a": binarize(common["rel_a"], rel_level), "b": binarize(common["rel_b"], rel_level)})
    return pairs, len(a) - len(pairs), len(b) - len(pairs)


def _codes(pairs: pd.DataFrame):
    """Sorted grade union and each pair's grade positions in it (for bincount)."""
    labels = np.union1d(pairs["a"].to_numpy(), pairs["b"].to_numpy()).astype("int64")
    return labels, np.searchsorted(labels, pairs["a"].to_numpy()), np.searchsorted(labels, pairs["b"].to_numpy())


def confusion_matrix(pairs: pd.DataFrame, names=("A", "B")) -> pd.DataFrame:
    """Counts of (grade by A, grade by B), square over the union of grades, sorted."""
    labels, ca, cb = _codes(pairs)
    k = len(labels)
    counts = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k)
    return pd.DataFrame(counts, index=pd.Index(labels, name=names[0]), columns=pd.Index(labels, name=names[1]))


def per_topic_kappa(pairs: pd.DataFrame) -> pd.DataFrame:
    """Cohen's kappa per qid. `single_label`: a judge used one label on the topic (kappa is 0 or
    undefined and says little); `undefined`: both used the same single label, p_e = 1, kappa NaN."""
    labels, ca, cb = _codes(pairs)
    topic, qids = pd.factorize(pairs["qid"], sort=True)
    nq, k = len(qids), len(labels)
    pa = np.bincount(topic * k + ca, minlength=nq * k).reshape(nq, k)
    pb = np.bincount(topic * k + cb, minlength=nq * k).reshape(nq, k)
    n = pa.sum(axis=1)
    p_o = np.bincount(topic, weights=(ca == cb), minlength=nq) / np.maximum(n, 1)
    p_e = (pa * pb).sum(axis=1) / np.maximum(n, 1) ** 2
    undefined = np.isclose(p_e, 1.0)
    kappa = np.where(undefined, np.nan, (p_o - p_e) / np.where(undefined, 1.0, 1.0 - p_e))
    return pd.DataFrame({"qid": np.asarray(qids, dtype=object), "n": n, "p_observed": p_o, "p_expected": p_e,
                         "kappa": kappa, "single_label": ((pa > 0).sum(axis=1) == 1) | ((pb > 0).sum(axis=1) == 1),
                         "undefined": undefined})


def agreement(qrels_a, qrels_b, *, rel_level: int | None = None, weights: str | None = None,
              names: tuple[str, str] = ("A", "B"), negative: str = "drop") -> PairAgreement:
    """Agreement between two qrels sets on the (qid, docno) pairs both judged. See module doc."""
    if weights not in WEIGHTS:
        raise EvalError(f"Unknown weights {weights!r}. Use none, linear or quadratic.")
    pairs, only_a, only_b = paired_labels(qrels_a, qrels_b, rel_level=rel_level, negative=negative)
    conf = confusion_matrix(pairs, names)
    grades = conf.index.to_numpy()
    stats = kappa_from_confusion(conf.to_numpy(), grades, weights)
    coincidence = conf.to_numpy() + conf.to_numpy().T   # two coders: each unit gives (a,b) and (b,a)
    alpha = {level: alpha_from_coincidence(coincidence, grades, level) for level in LEVELS}
    return PairAgreement(names=tuple(names), n_common=len(pairs), only_a=only_a, only_b=only_b,
                         rel_level=rel_level, weights=weights, confusion=conf, alpha=alpha,
                         per_topic=per_topic_kappa(pairs), **stats)


def kappa_by_threshold(pair: PairAgreement) -> pd.DataFrame:
    """Binary kappa at every threshold that splits the observed grades (rel >= L), from the graded
    confusion matrix: collapsing it into 2x2 equals agreement(..., rel_level=L)."""
    grades, counts = pair.confusion.index.to_numpy(), pair.confusion.to_numpy()
    rows = []
    for level in grades[1:]:                      # a handful of grades, never the pairs
        two = binary(counts, grades, level)
        k = kappa_from_confusion(two, np.array([0, 1]))
        rows.append({"rel_level": int(level), "relevant_a": int(two[1].sum()), "relevant_b": int(two[:, 1].sum()),
                     "p_observed": k["p_observed"], "cohen_kappa": k["cohen_kappa"],
                     "pooled_kappa": k["pooled_kappa"]})
    return pd.DataFrame(rows, columns=["rel_level", "relevant_a", "relevant_b", "p_observed",
                                       "cohen_kappa", "pooled_kappa"])


@dataclass(frozen=True)
class MultiAgreement:
    names: tuple[str, ...]
    n_items_all: int                  # (qid, docno) pairs judged by every assessor (Fleiss' items)
    n_items_pairable: int             # pairs judged by at least two assessors (alpha's items)
    fleiss_kappa: float
    alpha: dict                       # level -> Krippendorff's alpha over all pairable items
    pairwise: pd.DataFrame            # a, b, n_common, cohen_kappa, pooled_kappa

    @property
    def krippendorff_alpha(self) -> float:
        return self.alpha["nominal"]

    def to_dict(self) -> dict:
        return {"assessors": list(self.names), "n_items_all": self.n_items_all,
                "n_items_pairable": self.n_items_pairable, "fleiss_kappa": num(self.fleiss_kappa),
                "krippendorff_alpha": num(self.krippendorff_alpha),
                "krippendorff_alpha_by_level": {k: num(v) for k, v in self.alpha.items()},
                "reading": reading(self.fleiss_kappa)}


def value_counts(qrels_list, *, rel_level=None, negative="drop") -> pd.DataFrame:
    """Items x grades: how many assessors gave each grade to each (qid, docno)."""
    long = pd.concat([as_qrels_frame(q, negative=negative) for q in qrels_list], ignore_index=True)
    long["rel"] = binarize(long["rel"], rel_level)
    return pd.crosstab([long["qid"], long["docno"]], long["rel"])


def multi_agreement(qrels_list, *, names=None, rel_level: int | None = None,
                    negative: str = "drop") -> MultiAgreement:
    """Fleiss' kappa (items judged by all) and Krippendorff's alpha (all items two or more
    assessors judged, the rest count as missing) among several assessors, plus pairwise kappas."""
    qrels_list = list(qrels_list)
    if len(qrels_list) < 2:
        raise EvalError("Agreement needs at least two qrels sets.")
    names = tuple(names or (f"J{i + 1}" for i in range(len(qrels_list))))
    counts = value_counts(qrels_list, rel_level=rel_level, negative=negative)
    table = counts.to_numpy()
    judged = table.sum(axis=1)
    grades = counts.columns.to_numpy()
    full = table[judged == len(qrels_list)]
    o = coincidence_matrix(table)
    rows = []
    for i, j in combinations(range(len(qrels_list)), 2):
        pa = agreement(qrels_list[i], qrels_list[j], rel_level=rel_level, names=(names[i], names[j]),
                       negative=negative)
        rows.append({"a": names[i], "b": names[j], "n_common": pa.n_common, "cohen_kappa": pa.cohen_kappa,
                     "pooled_kappa": pa.pooled_kappa})
    return MultiAgreement(names=names, n_items_all=len(full), n_items_pairable=int((judged >= 2).sum()),
                          fleiss_kappa=fleiss_kappa(full),
                          alpha={lv: alpha_from_coincidence(o, grades, lv) for lv in LEVELS},
                          pairwise=pd.DataFrame(rows))

