"""PR and ROC charts: one line per run, run colours from the palette, PNG export via the toolbar."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.components.charts import chart_text, show, style

MAX_POINTS = 400  # per line; long ROC polylines are thinned for the browser (shape unchanged at screen size)


def _thin(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(x) <= MAX_POINTS:
        return x, y
    idx = np.unique(np.r_[np.linspace(0, len(x) - 1, MAX_POINTS).astype(int), len(x) - 1])
    return x[idx], y[idx]


def by_run(curve: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """run -> its rows, in one pass (one groupby instead of comparing the whole run column once per run)."""
    return {str(run): rows for run, rows in curve.groupby("run", sort=False, observed=True)}


def render_pr(curve: pd.DataFrame, *, runs: list[str], colors: dict, qid: str = "all", title: str,
              key: str, filename: str, half: bool = False) -> None:
    lines = by_run(curve[curve["qid"] == qid])
    fig = go.Figure()
    for run in runs:
        c = lines.get(run)
        if c is None or c.empty:
            continue
        c = c.sort_values("x")
        fig.add_trace(go.Scatter(x=c["x"], y=c["y"], mode="lines+markers", name=chart_text(run),
                                 line=dict(color=colors.get(run), width=2.5), marker=dict(size=6),
                                 hovertemplate="%{fullData.name}<br>recall %{x:.1f}: precision %{y:.4f}"
                                               "<extra></extra>"))
    fig.update_xaxes(title="recall", range=[-0.02, 1.02], dtick=0.1 if not half else 0.2)
    fig.update_yaxes(title="interpolated precision", range=[-0.02, 1.02])
    style(fig, height=480 if half else 420, legend_below=half).update_layout(title=title)
    show(fig, key=key, filename=filename)


def render_roc(curve: pd.DataFrame, auc: pd.DataFrame, *, runs: list[str], colors: dict, key: str,
               filename: str, half: bool = False) -> None:
    mean_auc = auc[auc["qid"] == "all"].set_index("run")["auc"]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance (AUC 0.5)",
                             line=dict(color="#9ca3af", dash="dot", width=1), hoverinfo="skip"))
    lines = by_run(curve)
    for run in runs:
        c = lines.get(run)
        if c is None or c.empty:
            continue
        x, y = _thin(c["x"].to_numpy(), c["y"].to_numpy())
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines",
                                 name=f"{chart_text(run, 32)} (AUC {mean_auc.get(run, float('nan')):.3f})",
                                 line=dict(color=colors.get(run), width=2.5),
                                 hovertemplate="%{fullData.name}<br>FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>"))
    fig.update_xaxes(title="false positive rate", range=[0, 1], dtick=0.2)
    fig.update_yaxes(title="true positive rate", range=[0, 1.02])
    style(fig, height=480 if half else 420, legend_below=half).update_layout(title="ROC (vertical average)")
    show(fig, key=key, filename=filename)
