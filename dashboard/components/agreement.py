"""Judge agreement views: kappa summary, confusion heatmap, per-topic kappa, slopegraph."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.table import table as show_table

from core.agreement.qrels import reading
from dashboard.components.charts import chart_text, show, style
from dashboard.components.escape import md_escape

# (lower bound, legend name, colour) of the per-topic κ chart's bands, Landis & Koch's cut points
KAPPA_BANDS = ((-1.0, "κ < 0.4: fair or less", "#d73027"), (0.4, "0.4 ≤ κ < 0.6: moderate", "#fdae61"),
               (0.6, "κ ≥ 0.6: substantial or more", "#1a9850"))


def _fmt(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def render_pair_summary(pair, *, key: str) -> None:
    a, b = pair.names
    st.markdown(f"**Cohen's κ: {reading(pair.cohen_kappa)}** (Landis & Koch bands) on "
                f"{pair.n_common:,} documents both judged.")
    cols = st.columns(5)
    cols[0].metric("Cohen's κ", _fmt(pair.cohen_kappa), help="Chance from each judge's own label rates")
    cols[1].metric("Scott's π", _fmt(pair.pooled_kappa), help="Chance from the pooled label rates")
    cols[2].metric("Weighted κ (linear)", _fmt(pair.weighted_kappa), help="Near-miss grades count partly")
    cols[3].metric("Krippendorff's α", _fmt(pair.alpha.get("ordinal")), help="Ordinal level")
    cols[4].metric("Raw agreement", f"{pair.p_observed:.2%}" if pair.n_common else "n/a")
    st.caption(md_escape(f"Judged only by {a}: {pair.only_a:,} · only by {b}: {pair.only_b:,} (not compared)."))


def render_multi_summary(multi, *, key: str) -> None:
    cols = st.columns(3)
    cols[0].metric("Fleiss' κ", _fmt(multi.fleiss_kappa), help=f"{multi.n_items_all:,} documents judged by all")
    cols[1].metric("Krippendorff's α", _fmt(multi.krippendorff_alpha),
                   help=f"Nominal, {multi.n_items_pairable:,} documents judged by two or more")
    cols[2].metric("Judges", len(multi.names))
    st.markdown(f"**Fleiss' κ: {reading(multi.fleiss_kappa)}**")
    table = multi.pairwise.assign(reading=[reading(k) for k in multi.pairwise["cohen_kappa"]])
    show_table(table, key=f"{key}_pairwise", hide_index=True, column_config={
        "a": "Judge A", "b": "Judge B", "n_common": st.column_config.NumberColumn("Both judged", format="localized"),
        "cohen_kappa": st.column_config.NumberColumn("Cohen's κ", format="%.3f"),
        "pooled_kappa": st.column_config.NumberColumn("Scott's π", format="%.3f"), "reading": "Reading"})


def render_confusion(pair, *, key: str) -> None:
    conf: pd.DataFrame = pair.confusion
    a, b = pair.names
    labels = [str(v) for v in conf.index]
    counts = conf.to_numpy()
    fig = go.Figure(go.Heatmap(z=np.log10(counts + 1), x=[str(v) for v in conf.columns], y=labels,
                               colorscale="Blues", text=counts, texttemplate="%{text:,}", showscale=False,
                               customdata=counts,
                               hovertemplate="row %{y}, column %{x}: %{customdata:,} documents<extra></extra>"))
    fig.update_xaxes(title=f"grade by {chart_text(b, 24)}", type="category", side="bottom")
    fig.update_yaxes(title=f"grade by {chart_text(a, 24)}", type="category", autorange="reversed")
    style(fig, height=340, legend=False).update_layout(title="Confusion matrix")
    show(fig, key=key, filename=f"confusion_{a}_vs_{b}")


def topic_kappa_figure(df: pd.DataFrame, *, topics: dict) -> go.Figure:
    """Per-topic κ (`df`: qid, kappa, n; sorted), one trace per Landis & Koch band, named in the legend."""
    text = [chart_text(topics.get(str(q), ""), 120) for q in df["qid"]]
    shown = [chart_text(q, None) for q in df["qid"].astype(str)]
    band = np.searchsorted([b for b, _, _ in KAPPA_BANDS[1:]], df["kappa"].to_numpy(float), side="right")
    fig = go.Figure()
    for i, (_, name, color) in enumerate(KAPPA_BANDS):       # one trace per band: the legend names the colours
        rows = np.flatnonzero(band == i)
        fig.add_trace(go.Bar(x=[shown[j] for j in rows], y=df["kappa"].to_numpy(float)[rows], name=name,
                             marker_color=color, customdata=[(text[j], int(df["n"].iloc[j])) for j in rows],
                             hovertemplate="topic %{x}: κ = %{y:.2f}<br>%{customdata[1]} documents<br>"
                                           "%{customdata[0]}<extra></extra>"))
    # the legend sits top left, above the lowest κ bars (sorted ascending)
    fig.update_layout(barmode="overlay", legend=dict(yanchor="top", y=0.99, xanchor="left", x=0.01,
                                                     bgcolor="rgba(255,255,255,0.8)"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=shown, title="topic (sorted by κ)",
                     showticklabels=len(df) <= 60)
    fig.update_yaxes(title="Cohen's κ", range=[min(-0.2, float(df["kappa"].min())), 1.02])
    return style(fig, height=320).update_layout(title="Per-topic Cohen's κ")


def render_topic_kappa(pair, *, topics: dict, key: str) -> None:
    df = pair.per_topic.dropna(subset=["kappa"]).sort_values("kappa")
    if df.empty:
        st.info("No topic has a defined kappa (each judge used a single label per topic).")
        return
    show(topic_kappa_figure(df, topics=topics), key=key, filename=f"topic_kappa_{'_vs_'.join(pair.names)}")
    skipped = int(pair.per_topic["kappa"].isna().sum())
    if skipped:
        st.caption(f"{skipped:,} topic(s) have no defined κ (both judges used one label) and are not shown.")


def slopegraph_figure(dim, *, colors: dict) -> go.Figure:
    """Each run's score under each qrels set, one line per run. The traces are given to the figure as dicts, in one
    list: one validation of them all, where a go.Scatter each, added one at a time, validates each twice (45 runs:
    13 ms against 24 ms with the JSON; tests/dashboard/test_agreement_charts.py checks the two give the same figure)."""
    scores: pd.DataFrame = dim.scores
    cols = [chart_text(c, None) for c in scores.columns]   # full names: the categories stay distinct
    values = scores.to_numpy(float)
    fig = go.Figure(data=[dict(type="scatter", x=cols, y=values[i], mode="lines+markers", name=chart_text(run),
                               line=dict(color=colors.get(str(run)), width=2), marker=dict(size=8),
                               hovertemplate="%{fullData.name}<br>%{x}: %{y:.4f}<extra></extra>")
                          for i, run in enumerate(scores.index)])
    fig.update_xaxes(type="category", title="qrels set", tickvals=cols,
                     ticktext=[chart_text(c, 24) for c in scores.columns])
    fig.update_yaxes(title=chart_text(dim.measure))
    pairs = list(dim.correlations.itertuples())
    taus = (f"Kendall's τ({chart_text(pairs[0].a, 24)}, {chart_text(pairs[0].b, 24)}) = {pairs[0].kendall_tau:.3f}"
            if len(pairs) == 1 else f"Kendall's τ for each of the {len(pairs)} pairs: see the table below")
    return style(fig, height=420).update_layout(title=dict(text="System scores under each qrels set",
                                                           subtitle=dict(text=taus, font=dict(size=14))))


def render_slopegraph(dim, *, colors: dict, key: str) -> None:
    show(slopegraph_figure(dim, colors=colors), key=key, filename=f"slopegraph_{dim.measure}")
    table = dim.correlations.rename(columns={"a": "Qrels A", "b": "Qrels B", "kendall_tau": "Kendall's τ",
                                             "tau_ap": "τ_AP (B vs A)", "tau_ap_reversed": "τ_AP (A vs B)"})
    fmt = st.column_config.NumberColumn(format="%.3f")
    show_table(table, key=f"{key}_taus", hide_index=True,
               column_config={c: fmt for c in ("Kendall's τ", "τ_AP (B vs A)", "τ_AP (A vs B)")})
