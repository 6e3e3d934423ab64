"""Reproducibility views over core.repro's `Reproduction`: the mean KTU and RBO of each pair, their values per
topic, each measure's means, RMSE and p-value, and the effects (ER, delta RI) with baselines. Every statistic's
meaning is its column's (or metric's) tooltip, in core.repro's words."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dashboard.components.charts import chart_text, show, slug, style
from dashboard.components.escape import md_format
from dashboard.components.table import name_width, table as show_table

MEANING = {
    "ktu": "Kendall's tau union: how alike the two runs order their documents (top 1,000 per topic, compared on "
           "the union of both lists). 1 = the same order, 0 = unrelated, -1 = reversed.",
    "rbo": "Rank-biased overlap, extrapolated (Webber et al. 2010): the overlap of the two top-d lists, weighted "
           "towards the top by persistence p. 1 = the same lists, 0 = no document in common.",
    "rmse": "Root mean square error of the per-topic values, original against reproduced: 0 = every topic scores "
            "the same.",
    "p_value": "Two-sided paired t-test between the original's and the reproduced run's per-topic values: a small "
               "p says the reproduction scores differently.",
    "effect_ratio": "Effect ratio: the reproduced run's mean improvement over its baseline divided by the "
                    "original's. 1 = the improvement reproduced in full, 0 = it vanished, below 0 = reversed.",
    "delta_ri": "ΔRI: the original's relative improvement over its baseline minus the reproduced one's. 0 = the "
                "same relative improvement; above 0 = the reproduction improves less.",
}
PAIRS = {"run": "Run", "baseline": "Baseline"}


def render_orderings(result, *, key: str) -> None:
    """Mean KTU and RBO per pair (metrics with tooltips), then KTU and RBO per topic (chart and table)."""
    if not result.agreement:
        st.info("No document orderings to compare.")
        return
    cols = st.columns(2 * len(result.agreement))
    for i, a in enumerate(result.agreement):
        cols[2 * i].metric(f"KTU · {PAIRS[a.pair]}", "–" if a.ktu is None else f"{a.ktu:.4f}", help=MEANING["ktu"])
        cols[2 * i + 1].metric(f"RBO (p = {result.rbo_p:g}) · {PAIRS[a.pair]}",
                               "–" if a.rbo is None else f"{a.rbo:.4f}", help=MEANING["rbo"])
        cols[2 * i].caption(md_format("{} vs {}, mean over {} topics", a.reproduced, a.original, a.n_topics))
    per_topic = result.per_topic_frame()
    run = per_topic[per_topic["pair"] == "run"]
    fig = go.Figure([go.Scatter(x=[chart_text(q, None) for q in run["qid"]], y=run[c], mode="markers", name=c.upper(),
                                hovertemplate="topic %{x}<br>" + c.upper() + " %{y:.4f}<extra></extra>")
                     for c in ("ktu", "rbo")])
    fig.update_xaxes(type="category", title="topic")
    fig.update_yaxes(title="agreement", range=[-1.05, 1.05])
    style(fig, height=320).update_layout(title="Run: KTU and RBO per topic")
    show(fig, key=f"{key}_chart", filename=f"reproduce_{result.runs[1][1]}_per_topic")
    show_table(per_topic.assign(pair=per_topic["pair"].map(PAIRS)), key=f"{key}_table", hide_index=True,
               width="stretch", column_config={
                   "pair": st.column_config.TextColumn("Pair"),
                   "qid": st.column_config.TextColumn("Topic"),
                   "ktu": st.column_config.NumberColumn("KTU", format="%.4f", help=MEANING["ktu"]),
                   "rbo": st.column_config.NumberColumn("RBO", format="%.4f", help=MEANING["rbo"])})


def render_measures(result, *, key: str) -> None:
    df = result.measures_frame()
    df["pair"] = df["pair"].map(PAIRS)
    show_table(df, key=key, hide_index=True, width="stretch", column_config={
        "measure": st.column_config.TextColumn("Measure", pinned=True, width=name_width(df["measure"])),
        "pair": st.column_config.TextColumn("Pair"),
        "original_mean": st.column_config.NumberColumn("Original", format="%.4f", help="Mean over the topics"),
        "reproduced_mean": st.column_config.NumberColumn("Reproduced", format="%.4f", help="Mean over the topics"),
        "n_topics": st.column_config.NumberColumn("Topics", format="%d", help="Topics both runs have"),
        "rmse": st.column_config.NumberColumn("RMSE", format="%.4f", help=MEANING["rmse"]),
        "p_value": st.column_config.NumberColumn("p (paired t)", format="%.4f", help=MEANING["p_value"])})


def render_effects(result, *, key: str) -> None:
    if not result.effects:
        st.info("Pick both baselines (the original's and the reproduced one's) to see the effect ratio and ΔRI.",
                icon=":material/info:")
        return
    df = result.effects_frame()
    show_table(df, key=key, hide_index=True, width="stretch", column_config={
        "measure": st.column_config.TextColumn("Measure", pinned=True, width=name_width(df["measure"])),
        "effect_ratio": st.column_config.NumberColumn("ER", format="%.4f", help=MEANING["effect_ratio"]),
        "delta_ri": st.column_config.NumberColumn("ΔRI", format="%+.4f", help=MEANING["delta_ri"])})


def render_download(result, *, key: str) -> None:
    runs = dict(result.runs)
    st.download_button("Download CSV", result.to_csv(), file_name=slug(f"reproduce_{runs['reproduced']}_vs_"
                                                                        f"{runs['original']}") + ".csv",
                       mime="text/csv", key=key, icon=":material/download:", on_click="ignore")


def caption(result) -> str:
    runs = dict(result.runs)
    text = md_format("{} reproduces {}", runs["reproduced"], runs["original"])
    if "original_baseline" in runs:
        text += md_format("; baseline {} reproduces {}", runs["reproduced_baseline"], runs["original_baseline"])
    return text + f". Orderings compared down to rank {result.depth:,}; RBO's persistence p = {result.rbo_p:g}."


__all__ = ["render_orderings", "render_measures", "render_effects", "render_download", "caption", "MEANING"]
