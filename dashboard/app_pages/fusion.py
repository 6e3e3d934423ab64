"""Fusion: fuse stored runs with a method of the fusion registry, see the fused run beside its parts (the
Leaderboard's table, tested against the best part), where fusion helps and hurts per topic, and save it."""
from __future__ import annotations

import streamlit as st

from core.fusion import METHODS, NORMS, method_named
from dashboard.cache import results as cached
from dashboard.cache import fusion as cached_fusion
from dashboard.components import fusion as fu
from dashboard.components import leaderboard as lb
from dashboard.components.constants import ALPHAS, CORRECTIONS, TESTS
from dashboard.components.escape import md_format
from dashboard.components.feedback import guard, show_error, show_warnings
from dashboard.components.view import render_link
from dashboard.session import access, gates, state

st.title("Fusion")
coll, ids = gates.require_runs(key="fu_empty", minimum=2)
names = list(ids)
ver = cached.version(coll["id"])
with st.sidebar:
    render_link(link=state.link(st.context.url), on_pin=state.pin_view, key="sidebar_link")

top = st.columns([3, 2])
parts = state.select_many("Runs to fuse", names, key="fu_runs", param="parts", default=names[:2], where=top[0])
raw = state.select_many("Measures", ["AP", "nDCG@10", "P@10", "RR", "R@100", "nDCG"], key="fu_measures",
                        param="measures", default=["AP", "nDCG@10"], allow_new=True, where=top[1],
                        help="The first measure picks the best part (the baseline) and is the one tuned.")
measures, problems = cached.canonical_measures(raw)
for text in problems:
    show_error(text, title="Unknown measure (left out)")
row = st.columns(3)
method = method_named(state.select_one("Method", [m.name for m in METHODS], key="fu_method", param="method",
                                       default="rrf", format_func=fu.method_label, where=row[0]))
norm = state.select_one("Normalisation", [n.name for n in NORMS], key="fu_norm", param="norm",
                        default=method.default_norm, where=row[1])
mode = state.select_one("Parameters", fu.modes(method), key="fu_mode", param="mode", format_func=fu.MODES.get,
                        where=row[2])
params, weights, folds = {}, None, 5
if mode == "tune":
    folds = state.select_one("Folds of topics", fu.FOLDS, key="fu_folds", param="folds", default=5)
else:
    params = fu.render_params(method, {p.name: state.url_value(f"p_{p.name}") for p in method.params},
                              key="fu_param")
    for name, value in params.items():
        state.remember(f"p_{name}", value)
    if method.weighted:
        typed = st.text_input("Weights, one per run in the order above (blank: equal)", key="fu_weights",
                              value=state.url_value("weights", ""), placeholder="e.g. 0.3, 0.7")
        state.remember("weights", typed)
        with guard("read the weights"):
            weights = fu.parse_weights(typed, len(parts))
row = st.columns(3)
test = state.select_one("Test", list(TESTS), key="fu_test", param="test", format_func=TESTS.get, where=row[0])
correction = state.select_one("Correction", list(CORRECTIONS), key="fu_correction", param="correction",
                              default="holm", format_func=CORRECTIONS.get, where=row[1])
alpha = state.select_one("Significance level", ALPHAS, key="fu_alpha", param="alpha", default="0.05",
                         format_func=lambda a: f"α = {a}", where=row[2])

if len(parts) < 2 or not measures:
    st.info("Pick at least two runs to fuse and one measure.")
    st.stop()
needed = [p.name for p, v in zip(method.params, params.values()) if v is None]
if needed:
    st.info(md_format("{} needs {} (ranx has no default): give it above, or choose Tune.", method.name,
                      ", ".join(needed)))
    st.stop()
if method.weighted and mode != "tune" and weights is None and st.session_state.get("fu_weights", "").strip():
    st.stop()      # the weights could not be read: the error is shown above

fusion = dict(method=method.name, norm=norm, params=params, weights=weights, mode=mode, folds=int(folds),
              measure=measures[0] if mode == "tune" else "")     # only tuning reads the measure (and the folds)
name = f"{method.name}-" + "-".join(parts)
with guard("fuse the runs"):
    with st.spinner(md_format("Fusing {} runs with {} and evaluating them on {}...", len(parts), method.name,
                              ", ".join(measures)), show_time=True):
        stored = cached_fusion.fused(coll["id"], [ids[p] for p in parts], **fusion, ver=ver)
        report = cached_fusion.report(coll["id"], [ids[p] for p in parts], fusion, measures=measures, name="fused",
                                      test=test, correction=correction, alpha=float(alpha), ver=ver)
    show_warnings(report.warnings, title="Evaluation warnings")
    table = lb.render_table(report.summary, runs=[report.fused, *parts], measures=list(report.measures),
                            comparison=report.comparison, key="fu_table")
    st.caption(md_format("Baseline: {}, the best part on {}. ", report.best, report.measures[0])
               + lb.legend(report.comparison, has_baseline=True))
    csv, latex = cached.exports_later(table)
    lb.render_downloads(csv=csv, latex=latex, stem=f"fusion_{coll['name']}_{method.name}", key="fu_download")
    if stored.report:
        with st.expander("Tuning: each fold's parameters and held-out scores"):
            st.code(stored.report, language=None)
    chart_measure = state.select_one("Per-topic measure", list(report.measures), key="fu_chart_measure",
                                     param="measure")
    fu.render_topic_chart(report.topic_deltas(chart_measure), fused=report.fused, best=report.best,
                          measure=chart_measure, key="fu_chart", filename=f"fusion_{coll['name']}_{chart_measure}")

    st.subheader("Save to collection")

    def _save(run_name: str):
        done = cached_fusion.save(coll["name"], stored, run_name)
        state.include("runs", [run_name])
        return done

    fu.render_save(default=name, save=access.for_editors(_save), read_only=access.why_read_only(), key="fu_save")
