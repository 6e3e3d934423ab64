"""Rank resolution over a per-query table: for each measure, every run's rank with its bootstrap
interval, its compact letters, and the runs x runs matrix of adjusted p-values behind them.

Input is the long per-query table (run, qid, measure, value). The runs are compared on one
complete topics x runs matrix per measure: the topics every run has (missing='skip'), or every
topic with a missing value counted as 0 (missing='zero', over `all_qids` when given). Every pair is tested as
core.stats.reach.plan_pairs decides for the chosen test and correction, so that a difference can be significant
(`Resolution.plan`; `Resolution.warning()` says when none can).
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.stats import multisys
from core.stats import ranks
from core.stats import reach
from core.stats import paired as stats
from core.errors import EvalError

RANK_FIELDS = ("rank", "rank_low", "rank_high", "group")


@dataclass(frozen=True)
class Resolution:
    """One measure's rank resolution. Sequences follow `runs`; `p` is k x k (NaN diagonal)."""
    measure: str
    runs: tuple[str, ...]
    means: tuple[float, ...]
    rank: tuple[int, ...]
    rank_low: tuple[int, ...]
    rank_high: tuple[int, ...]
    group: tuple[str, ...]
    p: np.ndarray
    n_topics: int
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int
    plan: reach.PairPlan      # how every pair was tested (core.stats.reach)

    def of(self, run: str) -> dict:
        """{'rank', 'rank_low', 'rank_high', 'group'} of one run."""
        j = self.runs.index(run)
        return {"rank": self.rank[j], "rank_low": self.rank_low[j], "rank_high": self.rank_high[j],
                "group": self.group[j]}

    def label(self, run: str) -> str:
        """'2 (1–4)' for the leaderboard's rank column."""
        j = self.runs.index(run)
        return ranks.format_rank(self.rank[j], self.rank_low[j], self.rank_high[j])

    def legend(self) -> str:
        return (f"Rank on {self.measure}: observed rank (95% interval over {self.n_resamples:,} bootstrap "
                f"resamples of the {self.n_topics} topics the runs are compared on, seed {self.seed}). "
                f"Runs sharing a letter are not "
                f"significantly different at α = {self.alpha:g}: {self.pairs_label()}.")

    def pairs_label(self) -> str:
        """How the p-values behind the letters were computed and adjusted."""
        return self.plan.label()

    def warning(self) -> str | None:
        """Why no pair can be significantly different (core.stats.reach), or None when one can."""
        return self.plan.warning()

    def to_dataframe(self) -> pd.DataFrame:
        return pd.DataFrame({"run": self.runs, "measure": self.measure, "mean": self.means, "rank": self.rank,
                             "rank_low": self.rank_low, "rank_high": self.rank_high, "group": self.group})

    def p_frame(self) -> pd.DataFrame:
        """The adjusted p-values as a runs x runs DataFrame."""
        return pd.DataFrame(self.p, index=list(self.runs), columns=list(self.runs))


_SHARED: dict[int, list] = {}       # id(frame) -> [weak reference to it, its codes or None]
_SHARED_LOCK = threading.Lock()


def share(per_query: pd.DataFrame) -> pd.DataFrame:
    """Declare that `per_query` will never change (a result shared by many readers, as the dashboard's evaluations
    are): `wide_tables` then factorises its measure, qid and run columns once for every later call instead of
    once per call (3 x ~0.08 s at 1.25M rows; a Leaderboard view calls it 3 times). Plain equivalent: a frame
    not shared, factorised at each call; tests/stats/test_resolution.py compares the two."""
    with _SHARED_LOCK:
        if id(per_query) not in _SHARED:
            key = id(per_query)
            _SHARED[key] = [weakref.ref(per_query, lambda _, key=key: _SHARED.pop(key, None)), None]
    return per_query


def _factorised(per_query: pd.DataFrame, measures=None):
    """(the rows read, and their measure codes, measure names, qid codes, qids, run codes, run names). With
    `measures`, only the rows of those measures when they are fewer than half (copying them costs less than
    factorising the rest)."""
    m_codes, m_names = pd.factorize(per_query["measure"].astype(str))
    sub = per_query
    if measures is not None:
        asked = np.isin(m_codes, np.flatnonzero(np.isin(np.asarray(m_names, dtype=object), [str(m) for m in measures])))
        if 2 * asked.sum() <= len(asked):
            sub, m_codes = per_query[asked], m_codes[asked]
    q_codes, qids = pd.factorize(sub["qid"].astype(str))
    run_codes, run_names = pd.factorize(sub["run"].astype(str))    # looked up once per distinct run
    return sub, (m_codes, np.asarray(m_names, dtype=object), q_codes, np.asarray(qids, dtype=object), run_codes,
                 run_names)


def _rows(per_query: pd.DataFrame, measures):
    """_factorised's answer: for a shared frame computed once, over every row (and kept); for any other frame at
    each call, over the asked measures' rows."""
    entry = _SHARED.get(id(per_query))
    if entry is None or entry[0]() is not per_query:
        return _factorised(per_query, measures)
    if entry[1] is None:                          # two threads may both compute it: the same codes
        m_codes, m_names, q_codes, qids, run_codes, run_names = _factorised(per_query)[1]
        small = np.int32 if len(per_query) < 2 ** 31 else np.int64      # kept as long as the frame: half the bytes
        entry[1] = (m_codes.astype(small), m_names, q_codes.astype(small), qids, run_codes.astype(small), run_names)
    return per_query, entry[1]


def wide_tables(per_query: pd.DataFrame, measures, runs: list[str]) -> dict[str, pd.DataFrame]:
    """measure -> its topics x runs values (NaN where a run has none; a repeated (measure, qid, run)
    keeps its first value, as compare() does). One factorisation of the qids and runs (kept for a frame
    declared with `share`), then one numpy scatter per measure; plain equivalent: `sub.pivot_table(
    index="qid", columns="run", values="value", aggfunc="first")` per measure (tests/stats/test_resolution.py
    compares them)."""
    sub, (m_codes, m_names, q_codes, qids, run_codes, run_names) = _rows(per_query, measures)
    r_codes = np.append(pd.Index([str(r) for r in runs]).get_indexer(run_names), -1)[run_codes]
    values = sub["value"].to_numpy(dtype=float)
    out = {}
    for m in measures:
        where = np.flatnonzero(m_names == str(m))
        rows = np.flatnonzero((m_codes == where[0]) & (r_codes >= 0)) if len(where) else np.empty(0, dtype=np.intp)
        topics = np.flatnonzero(np.bincount(q_codes[rows], minlength=len(qids)))     # = np.unique(q_codes[rows])
        A = np.full((len(qids), len(runs)), np.nan)
        A[q_codes[rows[::-1]], r_codes[rows[::-1]]] = values[rows[::-1]]   # reversed: the first value wins
        out[m] = pd.DataFrame(A[topics], index=pd.Index(qids[topics], name="qid"),
                              columns=pd.Index(list(runs), name="run"))
    return out


def topic_list(all_qids, topics) -> list:
    """The topics runs are aligned on: `all_qids` when given (as strings, each once, in its order), else `topics`
    sorted (each caller says which: the baseline's rows, its values, or every topic of the table)."""
    if all_qids is not None:
        return list(dict.fromkeys(str(q) for q in all_qids))
    return sorted(topics)


def complete_from_wide(wide: pd.DataFrame, *, missing: str = "skip", all_qids=None) -> tuple[np.ndarray, list[str]]:
    """Complete as the module docstring says: the topics every run has, or zeros for missing values."""
    if missing == "zero":
        index = topic_list(all_qids, wide.index)
        wide = wide.reindex(index=index).fillna(0.0)
    else:
        wide = wide.dropna(axis=0, how="any").sort_index()
    return wide.to_numpy(dtype=float), wide.index.astype(str).tolist()


def complete_matrix(per_query: pd.DataFrame, measure: str, runs: list[str], *, missing: str = "skip",
                    all_qids=None) -> tuple[np.ndarray, list[str]]:
    """(topics x runs values, the topics) for one measure."""
    return complete_from_wide(wide_tables(per_query, [measure], runs)[measure], missing=missing, all_qids=all_qids)


def resolve_matrix(X, runs, measure: str, *, test: str = "t", correction: str = "holm", alpha: float = 0.05,
                   n_resamples: int = 1000, seed: int = 0, tie_tol: float = 1e-9) -> Resolution:
    """Rank intervals and letters of the columns of the complete matrix X."""
    if test not in multisys.ALL_TESTS:
        raise EvalError(f"Unknown test {test!r}. Choose one of: {', '.join(multisys.ALL_TESTS)}.")
    if correction not in stats.CORRECTIONS:
        raise EvalError(f"Unknown correction {correction!r}. Choose one of: {', '.join(stats.CORRECTIONS)}.")
    X = np.asarray(X, dtype=float)
    rank, low, high = ranks.rank_intervals(X, n_resamples, seed)
    means = X.mean(axis=0) if len(X) else np.full(X.shape[1], np.nan)
    p = np.full((X.shape[1], X.shape[1]), np.nan)
    how = reach.plan_pairs(test, correction, n_runs=X.shape[1], n_topics=len(X), alpha=alpha,
                           n_resamples=n_resamples)
    if len(X) >= 2:     # columns sorted by run name: a permutation test draws the same in any run order
        canon = np.argsort(np.asarray(runs, dtype=object), kind="stable")
        p[np.ix_(canon, canon)] = multisys.all_pairs(X[:, canon], how.method, how.applied, alpha, how.n_resamples or
                                                     n_resamples, seed, tie_tol)
    letters = ranks.compact_letters(np.nan_to_num(means, nan=-np.inf), p, alpha)
    ints = lambda a: tuple(int(v) for v in a)   # noqa: E731
    return Resolution(measure=measure, runs=tuple(runs), means=tuple(float(m) for m in means), rank=ints(rank),
                      rank_low=ints(low), rank_high=ints(high), group=tuple(letters), p=p, n_topics=len(X),
                      test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed,
                      plan=how)


def resolve(per_query: pd.DataFrame, *, measures, runs=None, test: str = "t", correction: str = "holm",
            alpha: float = 0.05, missing: str = "skip", all_qids=None, n_resamples: int = 1000,
            seed: int = 0, tie_tol: float = 1e-9) -> dict[str, Resolution]:
    """measure -> Resolution for every measure, over `runs` (default: every run, first-seen order)."""
    runs = list(runs) if runs is not None else [str(r) for r in pd.unique(per_query["run"].astype(str))]
    out = {}
    for measure, wide in wide_tables(per_query, measures, runs).items():
        X, _ = complete_from_wide(wide, missing=missing, all_qids=all_qids)
        out[measure] = resolve_matrix(X, runs, measure, test=test, correction=correction, alpha=alpha,
                                      n_resamples=n_resamples, seed=seed, tie_tol=tie_tol)
    return out


__all__ = ["Resolution", "RANK_FIELDS", "share", "wide_tables", "topic_list", "complete_from_wide",
           "complete_matrix", "resolve_matrix", "resolve"]
