"""st.cache_data wrappers around core calls.

Keys: the store path, the collection id, run ids and measure strings, plus `version`, the store's
data version (core's Store.data_version: every committed write increases it, whichever process made it),
so no stale result is shown and nothing expires by time; the agreement caches are keyed on the qrels sets instead
(`qrels_stamp`), and the Curves page's on each run (dashboard/cache/curves.py). (The store's own per-query results
table needs no version: its rows are keyed by run and qrels set ids, which are never reused, and go with their run.)
Arguments starting with `_` (the Store) are not hashed.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.cache import catalogue
from dashboard.cache import store as store_resource

SPIN = False  # pages wrap calls in their own st.spinner with a message that says what is slow
RANK_RESAMPLES = 1000   # bootstrap resamples of the rank intervals (and of a resampling all-pairs test)


def version(cid: int) -> str:
    """The store's data version (the same for every collection); part of every cache key below."""
    return str(store_resource.data_version())


def _key() -> str:
    return str(store_resource.get_store().path)


@st.cache_resource(show_spinner=SPIN, max_entries=32)   # ~70 MB each at 50 runs x 5,000 topics x 6 measures
def evaluate(_store, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id, version: str):
    """core.service.evaluate.evaluate_stored (its `run` columns hold run names). One EvalResult shared by every caller and
    session, never copied: callers read it and never change it (tests/dashboard/test_apptest_manysys.py checks). The plain
    equivalent, st.cache_data, pickles it on the first call and unpickles a copy for every later one: the cold
    Leaderboard at 50 runs x 5,000 topics spent ~0.3 s more outside core that way (benchmarks/PROFILE.md)."""
    from core.stats.resolution import share
    from core.service.evaluate import evaluate_stored
    with store_resource.db_lock():   # evaluate_stored writes its results cache: one writer at a time
        result = evaluate_stored(_store, cid, list(run_ids), list(measures), qrels_id=qrels_id)
    share(result.per_query)          # never changed: the comparisons and rank resolution factorise it once
    return result


def evaluated(cid: int, run_ids, measures, *, qrels_id=None, ver: str):
    return evaluate(store_resource.get_store(), _key(), cid, tuple(int(r) for r in run_ids),
                    tuple(str(m) for m in measures), qrels_id, ver)


@st.cache_data(show_spinner=SPIN, max_entries=256)
def compare(_per_query: pd.DataFrame, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id,
            version: str, baseline: str, test: str, _pairs=None, intervals: bool = True):
    """The resampling part of core.stats.compare (uncorrected); the correction is applied outside the cache.
    A multi-system test (Tukey, all-pairs randomisation) draws RANK_RESAMPLES like the page's rank
    resolution and reuses its matrix (`_pairs`: measure -> Resolution, same inputs), so the heatmap
    and the baseline's p-values are the same numbers. intervals=False: no bootstrap CIs (core.stats.compare)."""
    from core.stats.compare import compare as core_compare
    from core.stats.multisys import MULTI_TESTS
    extra = dict(n_resamples=RANK_RESAMPLES, pairs=_pairs) if test in MULTI_TESTS else {}
    return core_compare(_per_query, baseline=baseline, measures=list(measures), test=test, intervals=intervals,
                        **extra)


JUDGED = "Judged@10"


def with_judged(measures, cid: int | None = None) -> list[str]:
    """The measure strings plus Judged@10, once (not for collection `cid` when it has no qrels: its runs are
    compared on imported measures only)."""
    out = [str(m) for m in measures]
    if JUDGED in out or (cid is not None and catalogue.qrels_sets(cid).empty):
        return out
    return out + [JUDGED]


def qrels_stamp(sets: pd.DataFrame, ids) -> tuple:
    """What keys the qrels caches below instead of the data version: (qrels_id, judgments, topics) of each set in
    `ids`, from the catalogue's qrels sets. A stored qrels set never changes (its rows are written once, its id is
    never reused, only deleting its collection removes it), so the runs that a pipeline loads, each a new data
    version, leave agreement cached; the counts keep a store rebuilt under the same path from matching by id alone.
    Plain equivalent: key on `version` as the other caches do (tests/dashboard/test_qrels_cache.py compares)."""
    rows = sets.set_index(sets["qrels_id"].astype(int))
    return tuple((int(q), int(rows.at[int(q), "n_judgments"]), int(rows.at[int(q), "n_topics"])) for q in ids)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def qrels_frame(_store, store_key: str, qrels_id: int, stamp: tuple) -> pd.DataFrame:
    return _store.qrels(int(qrels_id))


@st.cache_data(show_spinner=SPIN, max_entries=64)
def pair_agreement(_store, store_key: str, a: int, b: int, names: tuple, rel_level, stamp: tuple):
    """core.agreement.qrels.agreement of qrels sets a and b; `stamp`: qrels_stamp(sets, (a, b))."""
    from core.agreement.qrels import agreement
    return agreement(qrels_frame(_store, store_key, a, stamp[:1]), qrels_frame(_store, store_key, b, stamp[1:]),
                     rel_level=rel_level, weights="linear", names=names)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def multi_agreement(_store, store_key: str, ids: tuple, names: tuple, rel_level, stamp: tuple):
    """core.agreement.qrels.multi_agreement of the qrels sets `ids`; `stamp`: qrels_stamp(sets, ids)."""
    from core.agreement.qrels import multi_agreement as core_multi
    return core_multi([qrels_frame(_store, store_key, q, (s,)) for q, s in zip(ids, stamp)], names=names,
                      rel_level=rel_level)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def does_it_matter(_store, store_key: str, cid: int, measure: str, ids: tuple, version: str):
    from core.service.compare import does_it_matter as core_dim
    with store_resource.db_lock():
        return core_dim(_store, cid, measure, list(ids))


@st.cache_data(show_spinner=SPIN, max_entries=16)
def topics(_store, store_key: str, cid: int, version: str) -> dict:
    """qid -> text, for the topics that have a text (a topic without one is left out, never "None")."""
    df = _store.topics(cid)
    text = df["text"].astype(object).where(df["text"].notna(), "").astype(str).str.strip()
    keep = (text != "").to_numpy()
    return dict(zip(df["qid"].astype(str)[keep], text[keep]))


def canonical_measures(names, imported=()) -> tuple[list[str], list[str]]:
    """Measure strings as the registry spells them, plus core's error text for unknown ones. A name in `imported`
    (the collection's imported measures, catalogue.imported) is kept as it is."""
    from core.errors import RankboardError
    from core.measures import parse_measure
    out, errors = [], []
    for name in names:
        if str(name) in imported:
            canon = str(name)
        else:
            try:
                canon = parse_measure(str(name)).name
            except RankboardError as err:
                errors.append(str(err))
                continue
        if canon not in out:
            out.append(canon)
    return out, errors


def judged_at_10(result) -> pd.Series:
    """Mean Judged@10 per run name, from an EvalResult that `compared` evaluated with it."""
    s = result.summary
    return s[s["measure"] == JUDGED].set_index("run")["value"]


def missing_note(missing_topics: dict, imported_gaps: dict | None = None) -> str:
    """How topics absent from a run were treated, when no baseline comparison says it; `imported_gaps`
    (core.service.imported_gaps): the runs whose imported measures cover fewer topics than another run's."""
    gaps = {run: q for run, q in (missing_topics or {}).items() if len(q)}
    if not gaps:
        note = "Every run has every judged topic; means are over all of them."
    else:
        note = ("Topics in the qrels but missing from a run are skipped, as trec_eval does without -c: "
                "that run's mean is over the topics it has. " + "; ".join(_lacks(gaps)) + ".")
    for measure, lacking in (imported_gaps or {}).items():
        note += (f" Imported {measure} is averaged over each run's own topics, which differ: "
                 + "; ".join(_lacks(lacking)) + ".")
    return note


def _lacks(gaps: dict) -> list[str]:
    return [f"{run} lacks {len(q)} ({', '.join(map(str, list(q)[:5]))}{' ...' if len(q) > 5 else ''})"
            for run, q in gaps.items()]


def exports(table: pd.DataFrame) -> tuple[str, str]:
    """CSV and LaTeX of the means table (a view with a baseline exports its Report instead: report_of)."""
    return export_csv(table), export_latex(table)


def export_csv(table: pd.DataFrame) -> str:
    return table.to_csv(float_format="%.4f")


def export_latex(table: pd.DataFrame) -> str:
    numeric = list(table.select_dtypes("number").columns)     # the rank and group columns are text
    return (table.style.format("{:.4f}", na_rep="-", escape="latex", subset=numeric)
            .format(escape="latex", subset=[c for c in table.columns if c not in numeric])
            .format_index(escape="latex", axis=0).format_index(escape="latex", axis=1)
            .to_latex(hrules=True))


def exports_later(table: pd.DataFrame):
    """(csv, latex): functions that build each export of `table` when its download is clicked (Streamlit runs them
    on its download thread), so a page view builds neither file."""
    return (lambda: export_csv(table)), (lambda: export_latex(table))


HOW_DIFFERENT_DEPTH = 100       # Kendall's tau and RBO compare the two runs' top 100 per topic (as DiffIR does)


@st.cache_data(show_spinner=SPIN, max_entries=32)
def how_different(_per_query: pd.DataFrame, store_key: str, cid: int, a: tuple, b: tuple, measure: str,
                  version: str) -> pd.DataFrame:
    """core.analysis.perquery.how_different_stored for runs a=(name, id) and b=(name, id): deltas + tau + RBO per topic."""
    from core.service.perquery import how_different_stored
    store = store_resource.get_store()
    with store_resource.db_lock():
        return how_different_stored(store, _per_query, a[1], b[1], a[0], b[0], measure, topics=store.topics(cid),
                                    depth=HOW_DIFFERENT_DEPTH)


@st.cache_data(show_spinner=SPIN, max_entries=64)
def side_by_side(_store, store_key: str, cid: int, id_a: int, id_b: int, qid: str, version: str):
    from core.service.perquery import side_by_side_stored
    return side_by_side_stored(_store, cid, id_a, id_b, qid, depth=100)




@st.cache_data(show_spinner=SPIN, max_entries=64)
def _resolution(_per_query, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id, version: str,
                runs: tuple, measure: str, test: str, correction: str, alpha: float):
    from core.stats.resolution import resolve
    return resolve(_per_query, measures=[measure], runs=list(runs), test=test, correction=correction,
                   alpha=alpha, n_resamples=RANK_RESAMPLES)[measure]


def resolved(cid: int, run_ids, measures, *, runs, measure: str, test: str, correction: str, alpha: float,
             ver: str, qrels_id=None):
    """core.stats.resolution for one measure over the chosen runs: ranks, 95% intervals, letters, p matrix. A run
    without values of `measure` (a run with imported scores only, or an imported measure it lacks) is left out of
    the ranking rather than leaving every run no topic in common (read from the summary: one row per run)."""
    result = evaluated(cid, run_ids, with_judged(measures, cid), qrels_id=qrels_id, ver=ver)
    summary = result.summary
    have = set(summary.loc[summary["measure"].to_numpy() == measure, "run"])
    runs = [r for r in runs if r in have] or list(runs)
    return _resolution(result.per_query, _key(), cid, tuple(int(r) for r in run_ids), tuple(map(str, measures)),
                       qrels_id, ver, tuple(runs), measure, test, correction, float(alpha))


@st.cache_data(show_spinner=SPIN, max_entries=64)
def _risk(_per_query, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id, version: str,
          runs: tuple, baselines: tuple, alpha_risk: float):
    from core.stats.riskeval import risk_table
    return risk_table(_per_query, baselines=list(baselines), measures=list(measures), runs=list(runs),
                      alpha=alpha_risk)


def risks(cid: int, run_ids, measures, *, runs, baselines, alpha_risk: float, ver: str, qrels_id=None):
    """URisk / TRisk against each baseline and GeoRisk across the runs (core.stats.riskeval.risk_table)."""
    result = evaluated(cid, run_ids, with_judged(measures, cid), qrels_id=qrels_id, ver=ver)
    return _risk(result.per_query, _key(), cid, tuple(int(r) for r in run_ids), tuple(map(str, measures)),
                 qrels_id, ver, tuple(runs), tuple(baselines), float(alpha_risk))


def contributions(cid: int, run_ids, measures, *, run: str, baseline: str, measure: str, alpha_risk: float,
                  ver: str, qrels_id=None):
    """One run's per-topic TRisk contributions against one baseline (cheap: no cache of its own)."""
    from core.stats.riskeval import contributions as core_contributions
    result = evaluated(cid, run_ids, with_judged(measures, cid), qrels_id=qrels_id, ver=ver)
    return core_contributions(result.per_query, run=run, baseline=baseline, measure=measure, alpha=alpha_risk)


def compared_many(cid: int, run_ids, measures, *, baselines, test: str, correction: str, alpha: float, ver: str,
                  qrels_id=None, resolution=None, intervals: bool = True):
    """(EvalResult, comparisons): one Comparison per baseline, corrected together over every test
    (core.stats.baselines.corrected_together); the resampling of each baseline is cached.
    `resolution` (from `resolved`, same runs and test) lends its matrix to a multi-system test.
    intervals=False: no bootstrap CIs (the table needs none; `intervals` gives a chart's)."""
    result = evaluated(cid, run_ids, with_judged(measures, cid), qrels_id=qrels_id, ver=ver)
    key = (_key(), cid, tuple(int(r) for r in run_ids), tuple(str(m) for m in measures), qrels_id, ver)
    pairs = {resolution.measure: resolution} if resolution is not None else None
    raws = tuple(compare(result.per_query, *key, b, test, _pairs=pairs, intervals=intervals) for b in baselines)
    return result, _together(raws, *key, tuple(baselines), test, correction, float(alpha), intervals)


def intervals(cid: int, run_ids, measures, *, baseline: str, measure: str, ver: str, qrels_id=None):
    """A Comparison of `measure` alone with its bootstrap CIs (means and CIs are what a chart needs; the
    CIs are those of the full comparison, core.stats.compare). The runs are evaluated on `measures` as the page's
    other calls evaluate them, so this reuses that evaluation."""
    result = evaluated(cid, run_ids, with_judged(measures, cid), qrels_id=qrels_id, ver=ver)
    return compare(result.per_query, _key(), cid, tuple(int(r) for r in run_ids), (str(measure),), qrels_id, ver,
                   baseline, "t")


@st.cache_data(show_spinner=SPIN, max_entries=256)
def _together(_raws, store_key: str, cid: int, run_ids: tuple, measures: tuple, qrels_id, version: str,
              baselines: tuple, test: str, correction: str, alpha: float, intervals: bool = True):
    """`intervals` only keys the cache (the `_raws` are not hashed): a view without CIs must not serve one with."""
    from core.stats.baselines import corrected_together
    return corrected_together(_raws, correction, alpha)


def report_later(cid: int, run_ids, measures, *, resolution, order=(), **many):
    """(csv, latex): functions that build the exports of a view with a baseline, every CI included, when a
    download is clicked (Streamlit runs them on its download thread), so the view itself draws no CI it
    does not show. `order`: the run names as the table lists them; `many`: compared_many's other arguments."""
    def report():
        return report_of(compared_many(cid, run_ids, measures, resolution=resolution, **many)[1], resolution,
                         order=order)
    return (lambda: report().to_csv()), (lambda: report().to_latex())


def report_of(comparisons, resolution, *, order=()):
    """The exports of a view with a baseline: every baseline's rows (core.stats.baselines.Report), with
    the rank, its interval and the group of the measure the table ranks by, the runs in `order` (the table's)."""
    from core.stats.baselines import Report
    return Report(comparisons=tuple(comparisons), resolutions={resolution.measure: resolution}).in_order(order)
