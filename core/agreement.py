"""Agreement between relevance assessors: the kappa family, Krippendorff's alpha, confusion matrices.

Items are (qid, docno) pairs. Two qrels sets are compared on the pairs that *both* judged; the
pairs only one of them judged are counted (`only_a`, `only_b`) but not used. Everything is
computed from one confusion matrix (a `pd.crosstab`), so no Python loop touches the pairs.

Chance models, labelled as what they are (see seeds/ERRATA.md):
- `cohen_kappa`: Cohen (1960), chance agreement from each judge's *own* marginals,
  p_e = sum_c p_A(c) * p_B(c). Equals `sklearn.metrics.cohen_kappa_score`.
- `pooled_kappa`: Scott's pi (1955), chance agreement from the marginals *pooled* over both
  judges, p_e = sum_c ((p_A(c) + p_B(c)) / 2)^2. This is the "kappa statistic" of seed 004 and
  of Manning, Raghavan & Schuetze (2008, sec. 8.5); Fleiss' kappa generalises it to 3+ judges.
- `weighted_kappa` (weights='linear' | 'quadratic'): disagreement weights come from the *grade
  values*: w(i, j) = |g_i - g_j| (linear) or (g_i - g_j)^2 (quadratic). scikit-learn's
  `cohen_kappa_score(weights=...)` instead uses the *index positions* of the labels in the sorted
  union of observed labels, |i - j|. The two agree when the observed grades are consecutive
  integers (e.g. 0,1,2,3); they differ when a grade is missing from both judges or grades are not
  evenly spaced: with grades {0, 1, 3}, a 1-vs-3 disagreement is 2 steps here but 1 step in sklearn.
  Grade values are what a relevance scale means, so we use them.
- Krippendorff's alpha (nominal, ordinal, interval): from the coincidence matrix (Krippendorff
  2011, "Computing Krippendorff's Alpha-Reliability"); matches the `krippendorff` package.

Negative grades (trec_eval's -1 = "in the pool, not judged") are dropped by default before
comparing (`negative='drop'`); pass `negative='keep'` to treat them as a grade.
With `rel_level=L` every grade becomes binary (rel >= L), giving binary kappa at any threshold.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.errors import EvalError

WEIGHTS = (None, "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval")

# Landis & Koch (1977), "The measurement of observer agreement for categorical data":
# upper bound of each band (kappa below 0 is "poor").
_LANDIS_KOCH = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"))


def reading(kappa: float | None) -> str:
    """Plain-language reading of a kappa after Landis & Koch (1977): 0.78 -> '0.78 = substantial'."""
    if kappa is None or not np.isfinite(kappa):
        return "undefined (nothing to compare, or every judge used one and the same label)"
    shown = round(float(kappa), 2)          # the bands are stated on two decimals: 0.21-0.40 = fair
    if shown < 0:
        return f"{kappa:.2f} = poor (worse than chance)"
    label = next((name for upper, name in _LANDIS_KOCH if shown <= upper), "almost perfect")
    return f"{kappa:.2f} = {label}"


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
    alpha: dict = field(default_factory=dict)   # level -> Krippendorff's alpha
    per_topic: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def scott_pi(self) -> float:
        return self.pooled_kappa

    @property
    def reading(self) -> str:
        return reading(self.cohen_kappa)

    def to_dict(self) -> dict:
        """JSON-ready summary (the CLI's --format json object for one pair)."""
        labels = [int(v) for v in self.confusion.index]
        return {
            "a": self.names[0], "b": self.names[1], "rel_level": self.rel_level,
            "n_common": self.n_common, "only_a": self.only_a, "only_b": self.only_b,
            "p_observed": _num(self.p_observed), "p_expected": _num(self.p_expected),
            "p_expected_pooled": _num(self.p_expected_pooled),
            "cohen_kappa": _num(self.cohen_kappa), "pooled_kappa": _num(self.pooled_kappa),
            "weights": self.weights, "weighted_kappa": _num(self.weighted_kappa),
            "krippendorff_alpha": {k: _num(v) for k, v in self.alpha.items()},
            "reading": self.reading,
            "confusion": {"labels": labels, "rows": self.names[0], "columns": self.names[1],
                          "counts": self.confusion.to_numpy().astype(int).tolist()},
            "kappa_by_threshold": kappa_by_threshold(self).to_dict(orient="records"),
            "topics_kappa_undefined": self.per_topic.loc[self.per_topic["undefined"], "qid"].tolist()
            if len(self.per_topic) else [],
        }


def _num(value):
    return None if value is None or not np.isfinite(value) else float(value)


def _ratio(num: float, den: float) -> float:
    return float(num / den) if not np.isclose(den, 0.0) else float("nan")


def kappa_from_confusion(counts: np.ndarray, grades: np.ndarray, weights: str | None = None) -> dict:
    """p_o, p_e (own and pooled marginals), Cohen's, Scott's and, if asked, weighted kappa."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    if n == 0:
        nan = float("nan")
        return dict(p_observed=nan, p_expected=nan, p_expected_pooled=nan, cohen_kappa=nan,
                    pooled_kappa=nan, weighted_kappa=None if weights is None else nan)
    p = counts / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    p_o, p_e = float(np.trace(p)), float(row @ col)
    p_pool = float((((row + col) / 2) ** 2).sum())
    out = dict(p_observed=p_o, p_expected=p_e, p_expected_pooled=p_pool,
               cohen_kappa=_ratio(p_o - p_e, 1 - p_e), pooled_kappa=_ratio(p_o - p_pool, 1 - p_pool),
               weighted_kappa=None)
    if weights is not None:
        w = disagreement_weights(grades, weights)
        out["weighted_kappa"] = 1.0 - _ratio((w * p).sum(), (w * np.outer(row, col)).sum())
    return out


def disagreement_weights(grades, weights: str) -> np.ndarray:
    """|g_i - g_j| or (g_i - g_j)^2 on grade *values* (not label positions, unlike sklearn)."""
    g = np.asarray(grades, dtype=float)
    diff = np.abs(g[:, None] - g[None, :])
    if weights == "linear":
        return diff
    if weights == "quadratic":
        return diff ** 2
    raise EvalError(f"Unknown weights {weights!r}. Use none, linear or quadratic.")


def alpha_from_coincidence(o: np.ndarray, grades, level: str = "nominal") -> float:
    """Krippendorff's alpha = 1 - D_o / D_e from a coincidence matrix o (values x values)."""
    o = np.asarray(o, dtype=float)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return float("nan")
    g = np.asarray(grades, dtype=float)
    if level == "nominal":
        delta = 1.0 - np.eye(len(g))
    elif level == "interval":
        delta = (g[:, None] - g[None, :]) ** 2
    elif level == "ordinal":
        cs = np.cumsum(n_c)                       # sum of n_g for g between c and k, inclusive
        span = cs[None, :] - cs[:, None] + n_c[:, None]
        span = np.where(np.arange(len(g))[:, None] <= np.arange(len(g))[None, :], span, span.T)
        delta = (span - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    else:
        raise EvalError(f"Unknown level of measurement {level!r}. Use one of {', '.join(LEVELS)}.")
    d_o = (o * delta).sum() / n
    d_e = (np.outer(n_c, n_c) * delta).sum() / (n * (n - 1))
    return 1.0 - _ratio(d_o, d_e)


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
        hi = grades >= level
        two = np.array([[counts[np.ix_(~hi, ~hi)].sum(), counts[np.ix_(~hi, hi)].sum()],
                        [counts[np.ix_(hi, ~hi)].sum(), counts[np.ix_(hi, hi)].sum()]])
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
                "n_items_pairable": self.n_items_pairable, "fleiss_kappa": _num(self.fleiss_kappa),
                "krippendorff_alpha": _num(self.krippendorff_alpha),
                "krippendorff_alpha_by_level": {k: _num(v) for k, v in self.alpha.items()},
                "reading": reading(self.fleiss_kappa)}


def value_counts(qrels_list, *, rel_level=None, negative="drop") -> pd.DataFrame:
    """Items x grades: how many assessors gave each grade to each (qid, docno)."""
    long = pd.concat([as_qrels_frame(q, negative=negative) for q in qrels_list], ignore_index=True)
    long["rel"] = binarize(long["rel"], rel_level)
    return pd.crosstab([long["qid"], long["docno"]], long["rel"])


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss (1971) kappa from an items x categories count table, same raters per item."""
    counts = np.asarray(counts, dtype=float)
    n_items = counts.shape[0]
    raters = counts.sum(axis=1)
    if n_items == 0 or raters[0] < 2 or not np.all(raters == raters[0]):
        return float("nan")
    r = raters[0]
    p_item = ((counts ** 2).sum(axis=1) - r) / (r * (r - 1))
    p_cat = counts.sum(axis=0) / (n_items * r)
    p_bar, p_e = p_item.mean(), (p_cat ** 2).sum()
    return _ratio(p_bar - p_e, 1 - p_e)


def coincidence_matrix(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's o_ck = sum_u n_uc * n_uk / (m_u - 1) minus the self-pairs, pairable units."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    counts = counts[m >= 2]
    scale = 1.0 / (m[m >= 2] - 1)
    return counts.T @ (counts * scale[:, None]) - np.diag((counts * scale[:, None]).sum(axis=0))


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
    for i in range(len(qrels_list)):
        for j in range(i + 1, len(qrels_list)):
            pa = agreement(qrels_list[i], qrels_list[j], rel_level=rel_level,
                           names=(names[i], names[j]), negative=negative)
            rows.append({"a": names[i], "b": names[j], "n_common": pa.n_common,
                         "cohen_kappa": pa.cohen_kappa, "pooled_kappa": pa.pooled_kappa})
    return MultiAgreement(names=names, n_items_all=len(full), n_items_pairable=int((judged >= 2).sum()),
                          fleiss_kappa=fleiss_kappa(full),
                          alpha={lv: alpha_from_coincidence(o, grades, lv) for lv in LEVELS},
                          pairwise=pd.DataFrame(rows))


from core.rankcorr import does_it_matter  # noqa: E402  (re-exported: the contract lists it under agreement)
