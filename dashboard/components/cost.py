"""Cost beside effectiveness: the Leaderboard's cost columns, and its Cost tab (a measure against a cost key, the
Pareto front drawn and labelled, the runs on it listed, the runs without cost data listed too)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.charts import chart_text, show, style
from dashboard.components.escape import md_escape, md_format
from dashboard.components.palette import NEUTRAL, POSITIVE
from dashboard.components.table import table as show_table


def carried(lineage: pd.DataFrame, runs: list[str], keys) -> list[str]:
    """The cost keys (in the order given) that at least one of `runs` carries, from Store.lineage's frame."""
    rows = lineage[lineage["run"].astype(str).isin(runs)]
    return [k for k in keys if k in rows.columns and rows[k].notna().any()]


def cost_frame(lineage: pd.DataFrame, runs: list[str], keys: list[str]) -> pd.DataFrame:
    """runs x cost keys (index: run name), for the Leaderboard's cost columns."""
    frame = lineage.assign(run=lineage["run"].astype(str)).drop_duplicates("run").set_index("run")
    return frame.reindex(index=runs, columns=keys)


def axis_title(key: str, meaning: str, better: str | None) -> str:
    return f"{key} ({meaning}; {better} is better)" if better else f"{key} ({meaning})"


def _padded(values: pd.Series, below: float, above: float) -> list[float]:
    """An axis range around `values` with a share of their span (or of their size, for a single value) added."""
    low, high = float(values.min()), float(values.max())
    span = (high - low) or abs(high) or 1.0
    return [low - below * span, high + above * span]


def render_cost_chart(result, *, meaning: str, key: str) -> None:
    """The runs' measure against a cost (core.analysis.pareto.Pareto), the front as a step line through its runs,
    each labelled by name; the others as grey points."""
    points = result.points
    if points.empty:
        st.info(md_format("No run here has both {} and a value of {}.", result.cost, result.measure))
        return
    front, rest = points[points["front"]], points[~points["front"]]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=rest["cost"].tolist(), y=rest["measure"].tolist(), mode="markers",
                             name="dominated by another run", marker=dict(color=NEUTRAL, size=10),
                             text=[chart_text(r) for r in rest["run"]],
                             hovertemplate="%{text}<br>%{x:g}<br>%{y:.4f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=front["cost"].tolist(), y=front["measure"].tolist(), mode="lines+markers+text",
                             name="Pareto front",
                             line=dict(color=POSITIVE, width=2, shape="hv"), marker=dict(color=POSITIVE, size=12),
                             text=[chart_text(r, 24) for r in front["run"]], textposition="top center",
                             hovertemplate="%{text}<br>%{x:g}<br>%{y:.4f}<extra>Pareto front</extra>"))
    x_range = _padded(points["cost"], 0.08, 0.08)
    fig.update_xaxes(title=chart_text(axis_title(result.cost, meaning, result.cost_better), 80),
                     range=x_range[::-1] if result.cost_better == "higher" else x_range)
    fig.update_yaxes(title=chart_text(f"{result.measure} (higher is better)", 80),
                     range=_padded(points["measure"], 0.08, 0.18))     # room above for the front's labels
    style(fig, height=440, legend_below=True).update_layout(
        title=f"{chart_text(result.measure)} against {chart_text(result.cost)}: the Pareto front")
    show(fig, key=key, filename=f"cost_{result.measure}_{result.cost}")


def render_cost_lists(result, *, key: str) -> None:
    """In words: the runs on the front (best cost first), and the runs left out of the chart, with why."""
    with st.container(key=key):
        if result.front:
            st.markdown(md_format("**On the Pareto front** (no other run is at least as good on both {} and {}, and "
                                  "better on one): ", result.cost, result.measure)
                        + ", ".join(md_escape(r) for r in result.front))
            table = result.points[result.points["front"]][["run", "cost", "measure"]]
            show_table(table.rename(columns={"run": "Run", "cost": result.cost, "measure": result.measure}),
                       hide_index=True, key=f"{key}_front", column_config={
                           result.measure: st.column_config.NumberColumn(result.measure, format="%.4f")})
        if result.missing:
            st.warning(md_format("Not plotted, no cost data ({}): ", result.cost)
                       + ", ".join(md_escape(r) for r in result.missing), icon=":material/info:")
        if result.unmeasured:
            st.warning(md_format("Not plotted, no value of {}: ", result.measure)
                       + ", ".join(md_escape(r) for r in result.unmeasured), icon=":material/info:")


def render_no_cost(runs: list[str], keys, *, key: str) -> None:
    """None of the runs carries a numeric cost: say so, name them, and say how to add one."""
    with st.container(key=key):
        st.info(md_format("None of these runs has cost data ({}). Add it to a run's ir_metadata header, with "
                          "`python -m core load ... --meta latency_ms=12.5`, or on the Data page.", ", ".join(keys)),
                icon=":material/info:")
        st.caption("no cost data: " + ", ".join(md_escape(r) for r in runs))
