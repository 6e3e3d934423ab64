"""Views of many runs at once over core values: the runs x runs heatmap of adjusted p-values
(a core.stats.resolution.Resolution), the risk table (core.stats.riskeval.risk_table) and one run's per-topic
TRisk contributions (core.stats.riskeval.contributions)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.charts import chart_text, show, signed_bars, style
from dashboard.components.table import table as show_table
from dashboard.components.escape import md_escape

SIGNIFICANT, CLOSE, APART = "#1d4ed8", "#93c5fd", "#f3f4f6"
ANNOTATE_UP_TO = 15          # runs; beyond this the cells carry no printed p-value (hover shows it)


def rank_order(resolution) -> np.ndarray:
    """Indices of the resolution's runs, best mean first (a run without one last): the heatmap's and its CSV's order."""
    return np.argsort([-m if np.isfinite(m) else np.inf for m in resolution.means], kind="stable")


def heatmap_figure(resolution) -> go.Figure:
    """Adjusted p-values, runs ordered by rank (best top-left); p < alpha cells in blue."""
    order = rank_order(resolution)
    names = [resolution.runs[j] for j in order]
    P = resolution.p[np.ix_(order, order)]
    a = resolution.alpha
    shown = [chart_text(n, None) for n in names]
    text = [["" if not np.isfinite(v) else f"{v:.3f}" for v in row] for row in P]
    fig = go.Figure(go.Heatmap(
        z=P, x=shown, y=shown, zmin=0, zmax=1, xgap=1, ygap=1,
        colorscale=[[0, SIGNIFICANT], [a, CLOSE], [a, APART], [1, "#ffffff"]],
        colorbar=dict(title=dict(text="adjusted p", side="right"), tickvals=[a, 0.5, 1], ticktext=[f"α={a:g}", "0.5", "1"]),
        text=text, texttemplate="%{text}" if len(names) <= ANNOTATE_UP_TO else None,
        hovertemplate="%{y} vs %{x}<br>adjusted p = %{z:.4f}<extra></extra>"))
    ticks = [chart_text(n, 18) for n in names]
    fig.update_xaxes(type="category", tickvals=shown, ticktext=ticks, tickangle=-35, side="bottom")
    fig.update_yaxes(type="category", tickvals=shown, ticktext=ticks, autorange="reversed")
    side = min(720, 140 + 32 * len(names))
    style(fig, height=side, legend=False).update_layout(
        title=f"{chart_text(resolution.measure)}: adjusted p-values, every pair of runs")
    return fig


def render_unreachable(text: str | None) -> None:
    """Say in words why no difference can be significant (core.stats.reach: Resolution.warning for the letters,
    core.stats.baselines.unreachable for the baseline's marks), so that one letter shared by every run, or a table
    with no mark, is not read as 'alike'. Nothing when `text` is None."""
    if text:
        st.warning(md_escape(text), icon=":material/warning:")


def render_heatmap(resolution, *, key: str) -> None:
    if len(resolution.runs) < 2:
        st.info("Pick at least two runs to compare every pair.")
        return
    render_unreachable(resolution.warning())
    show(heatmap_figure(resolution), key=key, filename=f"pairs_{resolution.measure}")
    st.caption(f"Blue: significantly different at α = {resolution.alpha:g} "
               f"({md_escape(resolution.pairs_label())}). Runs ordered by rank; hover a cell for its p-value.")
    order = rank_order(resolution)
    st.download_button("Download p-values (CSV)", resolution.p_frame().iloc[order, order].to_csv(float_format="%.6g"),
                       file_name=f"pvalues_{resolution.measure}.csv".replace("/", "_"), mime="text/csv",
                       key=f"{key}_csv", icon=":material/download:", on_click="ignore")


def render_risk_table(table: pd.DataFrame, *, first: str, key: str) -> None:
    """URisk, TRisk and GeoRisk of each run against each baseline; `first` ('urisk'|'trisk') leads."""
    if table.empty:
        st.info("Pick a baseline and at least one other run to see their risk.")
        return
    order = ["run", "baseline", "measure", first, "trisk" if first == "urisk" else "urisk", "georisk", "n_queries"]
    show_table(table, key=key, hide_index=True, width="stretch", column_order=order, column_config={
        "run": st.column_config.TextColumn("Run", pinned=True, width=170),
        "baseline": st.column_config.TextColumn("Baseline", width=150),
        "measure": st.column_config.TextColumn("Measure", width=95),
        "urisk": st.column_config.NumberColumn("URisk", format="%+.4f"),
        "trisk": st.column_config.NumberColumn("TRisk", format="%+.2f",
                                               help="below −2: significantly hurts topics; above +2: helps"),
        "georisk": st.column_config.NumberColumn("GeoRisk", format="%.4f"),
        "n_queries": st.column_config.NumberColumn("Topics", format="%d")})


def contributions_figure(frame: pd.DataFrame, *, run: str, baseline: str, measure: str, alpha: float) -> go.Figure:
    x = [chart_text(q, None) for q in frame["qid"]]
    fig = go.Figure(signed_bars(
        x, frame["contribution"].to_numpy(float), names=("run wins", "run loses", "tied"),
        customdata=np.column_stack([frame["delta"].to_numpy(float), frame["f"].to_numpy(float)]).tolist(),
        hovertemplate="topic %{x}<br>Δ %{customdata[0]:+.4f}<br>f %{customdata[1]:+.4f}"
                      "<br>share of TRisk %{y:+.4f}<extra></extra>"))
    fig.update_layout(barmode="overlay", legend=dict(yanchor="top", y=0.99, xanchor="right", x=0.99,
                                                     bgcolor="rgba(255,255,255,0.8)"))
    fig.update_xaxes(categoryorder="array", categoryarray=x)
    trisk = frame["contribution"].sum()
    fig.update_xaxes(type="category", title="topic (sorted by contribution)", showticklabels=len(frame) <= 60)
    fig.update_yaxes(title="share of TRisk")
    style(fig, height=360).update_layout(
        title=(f"{chart_text(run, 28)} vs {chart_text(baseline, 28)} on {chart_text(measure)}: "
               f"TRisk {trisk:+.2f} (α = {alpha:g})"))
    return fig


def render_contributions(frame: pd.DataFrame, *, run: str, baseline: str, measure: str, alpha: float,
                         key: str) -> None:
    if frame.empty or not frame["contribution"].notna().any():
        st.info("TRisk needs at least two topics where the run and the baseline differ.")
        return
    show(contributions_figure(frame, run=run, baseline=baseline, measure=measure, alpha=alpha), key=key,
         filename=f"trisk_{run}_vs_{baseline}_{measure}")
    st.caption("Each bar is one topic's f / (n·SE); the bars sum to TRisk. Red: the run loses to the baseline "
               f"on that topic (weighted 1 + α = {1 + alpha:g}); green: it wins.")
