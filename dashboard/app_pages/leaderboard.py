"""Leaderboard: runs x measures, ranks with 95% intervals and letter groups, baselines with
significance tests, CIs, every pair's adjusted p-value, risk, Judged@10, cost beside effectiveness, exports."""
from __future__ import annotations

from functools import partial

import streamlit as st

from core.analysis.pareto import pareto
from core.formats.lineage import COST_KEYS, META_KEYS, NUMERIC_COST_KEYS
from core.service import imported_gaps
from core.stats.baselines import unreachable
from dashboard.cache import results as cached
from dashboard.cache import diversity as cached_diversity
from dashboard.cache import judges as cached_judges
from dashboard.cache import catalogue
from dashboard.cache import store as store_resource
from dashboard.session import gates, state
from dashboard.components import cost
from dashboard.components import leaderboard as lb
from dashboard.components import manysys
from dashboard.components.feedback import guard, show_error, show_warnings
from dashboard.components.escape import md_escape, md_format
from dashboard.components.diversity import render_means
from dashboard.components.judges import render_leaderboard_bounds
from dashboard.components.palette import run_colors
from dashboard.components.view import render_link, render_new_runs
from dashboard.components.constants import (ALPHAS, CORRECTIONS, DEFAULT_MEASURES, DIVERSITY_DEFAULT, MORE_MEASURES,
                                 NO_BASELINE, RISK_ALPHAS, RISKS, TESTS, default_measures)


def diversity_section(coll, ids: dict, typed: list[str], sets) -> None:
    """The runs on the diversity measures, against one of the collection's subtopic qrels sets."""
    if sets.empty:
        st.info(md_format("{} need subtopic qrels (qid subtopic docno rel). Upload them on the Data page (the "
                          "Diversity qrels tab).", ", ".join(typed)), icon=":material/info:")
        return
    a, b = st.columns([1, 3])
    label = dict(zip(sets["qrels_id"].astype(int), sets["assessor"]))
    qrels_id = a.selectbox("Subtopic qrels", list(label), format_func=label.get, key="lb_div_set")
    picked = b.multiselect("Diversity measures", list(dict.fromkeys(typed + DIVERSITY_DEFAULT)),
                           default=typed or DIVERSITY_DEFAULT, accept_new_options=True, key="lb_div_measures",
                           wrap=True)
    div, bad = cached.canonical_measures(picked)
    for text in bad:
        show_error(text, title="Unknown measure (left out)")
    run_names = list(ids)
    if not div:
        return
    with guard("evaluate the diversity measures"):
        with st.spinner(md_format("Evaluating {} runs on {}...", len(run_names), ", ".join(div)), show_time=True):
            summary, _, warnings = cached_diversity.evaluate(coll["id"], [ids[n] for n in run_names], qrels_id, div,
                                                             ver=cached.version(coll["id"]))
        show_warnings(warnings, title="Evaluation warnings")
        render_means(summary, runs=run_names, measures=div, stem=f"diversity_{coll['name']}", key="lb_div")


def bounds_section(coll, run_ids, measures, ver: str) -> None:
    """Pool-hole bounds under the default qrels set, the holes filled by another set's labels."""
    default, names = cached_judges.default_and_names(catalogue.qrels_sets(coll["id"]))
    if default is None:
        return
    store = store_resource.get_store()

    def report(measure: str, filled_by: str | None):
        judges = (names[filled_by],) if filled_by else ()
        return cached_judges.report(store, str(store.path), coll["id"], names[default], judges,
                                    tuple(int(r) for r in run_ids), measure, 1, "holm", 0.05, ver)
    render_leaderboard_bounds(list(names), default, measures, report=report, key="lb_bounds_view")


def cost_tab(summary, lineage, chosen: list[str], measures: list[str]) -> None:
    """A measure against a cost key: the Pareto front, its runs, and the runs without cost data."""
    keys = cost.carried(lineage, chosen, NUMERIC_COST_KEYS)
    if not keys:
        cost.render_no_cost(chosen, NUMERIC_COST_KEYS, key="lb_cost_none")
        return
    left, right = st.columns(2)
    measure = state.select_one("Measure", measures, key="lb_cost_measure", param="cost_measure", where=left)
    key = state.select_one("Cost", keys, key="lb_cost_key", param="cost_key", where=right,
                           format_func=lambda k: f"{k} ({META_KEYS[k].meaning})")
    means = lb.means_table(summary, runs=chosen, measures=[measure])
    costs = cost.cost_frame(lineage, chosen, [key])[key]
    values = means[measure].values if measure in means else [None] * len(chosen)
    result = pareto(chosen, costs.values, values, cost=key, measure=measure, cost_better=META_KEYS[key].better)
    cost.render_cost_chart(result, meaning=META_KEYS[key].meaning, key="lb_cost_chart")
    cost.render_cost_lists(result, key="lb_cost_lists")


st.title("Leaderboard")
coll, ids = gates.require_runs(key="lb_empty")
names = list(ids)
ver = cached.version(coll["id"])

top = st.columns([3, 2])
chosen = state.select_many("Runs", names, key="lb_runs", param="runs", default=names, follow_default=True,
                           where=top[0])
new_runs = state.unseen("runs", names, chosen, scope=coll["id"])
with st.sidebar:     # pins the runs shown (they follow the collection until picked), then shows the address
    render_link(link=state.link(st.context.url), on_pin=state.pin_view, key="sidebar_link")
if new_runs:    # loaded after the runs were picked: offered, not added
    render_new_runs(new_runs, on_add=partial(state.add_choices, "lb_runs", new_runs),
                    on_dismiss=partial(state.dismiss, "runs", new_runs, scope=coll["id"]), key="lb_new_runs")
imported = catalogue.imported(coll["id"])        # measures loaded from other tools: offered beside the computed ones
defaults = default_measures(catalogue.runs(coll["id"])["depth"].max())     # recall at the runs' depth
if catalogue.qrels_sets(coll["id"]).empty:      # nothing can be computed: the imported measures are the defaults
    defaults = list(imported)
raw = state.select_many("Measures", list(dict.fromkeys(defaults + DEFAULT_MEASURES + MORE_MEASURES + list(imported))),
                        key="lb_measures",
                        param="measures", default=defaults, allow_new=True, where=top[1],
                        help="Pick or type any measure: P@20, nDCG(dcg='exp-log2')@10, map, ndcg_cut_10 ... "
                             "Recall's default depth is the runs' depth (at most 1,000).")
measures, problems = cached.canonical_measures(raw, imported)
for text in problems:
    show_error(text, title="Unknown measure (left out)")
measures, typed_div = cached_diversity.split(measures, imported)
div_sets = catalogue.diversity_sets(coll["id"])
if typed_div or not div_sets.empty:
    with st.expander("Diversity measures (ndeval, subtopic qrels)", expanded=bool(typed_div)):
        diversity_section(coll, ids, typed_div, div_sets)
row = st.columns(4)
baseline = state.select_one("Baseline", [NO_BASELINE] + chosen, key="lb_baseline", param="baseline",
                            format_func=lambda r: "No baseline" if r == NO_BASELINE else r, where=row[0])
test = state.select_one("Test", list(TESTS), key="lb_test", param="test", format_func=TESTS.get, where=row[1])
correction = state.select_one("Correction", list(CORRECTIONS), key="lb_correction", param="correction",
                              format_func=CORRECTIONS.get, where=row[2])
alpha = state.select_one("Significance level", ALPHAS, key="lb_alpha", param="alpha", default="0.05",
                         format_func=lambda a: f"α = {a}", where=row[3])
more = state.select_many("More baselines", [r for r in chosen if r != baseline], key="lb_more_baselines",
                         param="baselines", help="Test every other run against each of these too; the correction "
                                                 "covers all of those tests.") if baseline else []
lineage = catalogue.lineage(coll["id"])
carried = cost.carried(lineage, chosen, COST_KEYS)
cost_columns = state.select_many("Cost columns", carried, key="lb_cost_columns", param="cost",
                                 help="Show the runs' cost metadata beside the measures (" + ", ".join(
                                     f"{k}: {META_KEYS[k].meaning}" for k in carried) + ")") if carried else []
if not chosen or not measures:
    st.info("Pick at least one run and one measure.")
    st.stop()

run_ids = [ids[n] for n in chosen]
with guard("evaluate the runs"):
    with st.spinner(md_format("Evaluating {} runs ({}) and ranking them on {} ({} bootstrap resamples)...",
                              len(chosen), ", ".join(measures), measures[0], f"{cached.RANK_RESAMPLES:,}"),
                    show_time=True):
        resolution = cached.resolved(coll["id"], run_ids, measures, runs=chosen, measure=measures[0], test=test,
                                     correction=correction, alpha=float(alpha), ver=ver)
        baselines = [baseline or chosen[0], *more]
        many = dict(baselines=baselines, test=test, correction=correction, alpha=float(alpha), ver=ver,
                    resolution=resolution)
        # the table needs no bootstrap CIs (10,000 resamples): the chart, the details and the exports ask for theirs
        result, comparisons = cached.compared_many(coll["id"], run_ids, measures, intervals=False, **many)
        comparison = comparisons[0]
        judged = cached.judged_at_10(result)
    show_warnings(result.warnings, title="Evaluation warnings")
    unjudged = lb.unjudged_warning(judged)
    if unjudged:
        st.warning(unjudged, icon=":material/warning:")
    means = lb.ranked(result.summary, runs=chosen, measures=measures)     # the table's rows, and the exports' order
    table = lb.render_table(None, means=means, runs=chosen, measures=measures,
                            comparison=comparison if baseline else None, judged=judged, resolution=resolution,
                            costs=cost.cost_frame(lineage, chosen, cost_columns) if cost_columns else None,
                            imported=result.imported, key="lb_table")
    lb.render_imported(result.imported, key="lb_imported")
    st.caption(md_escape(resolution.legend()))
    manysys.render_unreachable(resolution.warning())
    st.caption(lb.legend(comparison, has_baseline=bool(baseline), more=more))
    manysys.render_unreachable(unreachable(comparisons) if baseline else None)
    st.caption(md_escape(comparison.missing_note if baseline else
                         cached.missing_note(result.missing_topics, imported_gaps(result.per_query, result.imported))))
    # only the open tab runs (on_change="rerun"): the first view skips the details, the heatmap and the risk views
    # (~0.5 s at 50 runs x 5,000 topics); opening a tab reruns the page, whose results are cached by then
    tab_chart, tab_details, tab_pairs, tab_risk, tab_cost = st.tabs(
        ["Confidence intervals", "Deltas, wins/ties/losses, p-values", "Every pair", "Risk", "Cost"], key="lb_tab",
        on_change="rerun")
    with tab_chart:
        if tab_chart.open is not False:
            measure = state.select_one("Chart measure", measures, key="lb_measure", param="measure")
            with st.spinner(md_format("Bootstrapping the 95% intervals of {} (10,000 resamples)...", measure)):
                one = cached.intervals(coll["id"], run_ids, measures, baseline=baselines[0], measure=measure, ver=ver)
            lb.render_ci_chart(one, measure=measure, colors=run_colors(names), key="lb_ci_chart")
    with tab_details:
        if tab_details.open is False:
            pass
        elif baseline:
            with st.spinner("Bootstrapping the 95% intervals (10,000 resamples)..."):
                _, full = cached.compared_many(coll["id"], run_ids, measures, **many)
            lb.render_details(full, key="lb_details")
        else:
            st.info("Pick a baseline to see deltas, wins/ties/losses and p-values.")
    with tab_pairs:
        if tab_pairs.open is not False:
            manysys.render_heatmap(resolution, key="lb_pairs")
    with tab_risk:
        if tab_risk.open is False:
            pass
        elif not baseline:
            st.info("Pick a baseline to see each run's URisk, TRisk and GeoRisk.")
        else:
            left, right = st.columns(2)
            first = state.select_one("Show first", list(RISKS), key="lb_risk", param="risk", format_func=RISKS.get,
                                     where=left)
            alpha_risk = float(state.select_one("Risk weight", RISK_ALPHAS, key="lb_alpha_risk", param="alpha_risk",
                                                default="1", format_func=lambda a: f"α = {a} (losses x{1 + float(a):g})",
                                                where=right))
            with st.spinner(md_format("Computing URisk, TRisk and GeoRisk of {} runs...", len(chosen)), show_time=True):
                risk = cached.risks(coll["id"], run_ids, measures, runs=chosen, baselines=baselines,
                                    alpha_risk=alpha_risk, ver=ver)
            manysys.render_risk_table(risk, first=first, key="lb_risk_table")
            others = [r for r in chosen if r != baselines[0]]
            if others:
                a, b, c = st.columns(3)
                run = state.select_one("TRisk of run", others, key="lb_risk_run", param="risk_run", where=a)
                versus = state.select_one("against", baselines, key="lb_risk_base", param="risk_base", where=b)
                m = state.select_one("on", measures, key="lb_risk_measure", param="risk_measure", where=c)
                manysys.render_contributions(cached.contributions(coll["id"], run_ids, measures, run=run, baseline=versus,
                                                                  measure=m, alpha_risk=alpha_risk, ver=ver),
                                             run=run, baseline=versus, measure=m, alpha=alpha_risk, key="lb_trisk")
    with tab_cost:
        if tab_cost.open is not False:
            cost_tab(result.summary, lineage, chosen, measures)
    stem = f"leaderboard_{coll['name']}" + (f"_vs_{baseline}" if baseline else "")
    order = [str(r) for r in means.index]      # the exports list the runs as the table does
    csv, latex = (cached.report_later(coll["id"], run_ids, measures, order=order, **many) if baseline
                  else cached.exports_later(table))
    lb.render_downloads(csv=csv, latex=latex, stem=stem, key="lb_download")
    if st.toggle("Pool-hole bounds and filled scores", key="lb_bounds",
                 help="What each score could be if the unjudged documents were relevant, and which runs could swap"):
        bounds_section(coll, run_ids, measures, ver)
