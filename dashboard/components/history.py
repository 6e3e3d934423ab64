"""History views over core.stats.history's `History`: the measure over each system's versions with its 95% band and
the steps marked ▲ / ▼, the versions table (CSV), and the topics that moved most in one step."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.charts import chart_text, show, style
from dashboard.components.escape import md_format
from dashboard.components.palette import NEGATIVE, POSITIVE
from dashboard.components.perquery import download_csv
from dashboard.components.table import fit_height, name_width, table as show_table

SYMBOL = {"▲": ("triangle-up", POSITIVE), "▼": ("triangle-down", NEGATIVE)}


def _band(color: str) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},0.15)"


def categories(frame: pd.DataFrame) -> list[str]:
    """The x axis: the versions' labels, each system's in its order, interleaved by position (shared labels once)."""
    lines = [g["version"].astype(str).tolist() for _, g in frame.groupby("system", sort=False)]
    out = []
    for i in range(max((len(line) for line in lines), default=0)):
        out += [chart_text(line[i], 24) for line in lines if i < len(line)]
    return list(dict.fromkeys(out))


def render_chart(frame: pd.DataFrame, *, measure: str, colors: dict, key: str, on_select):
    """One line per system (History.to_dataframe's rows), its 95% band, ▲ / ▼ on significant steps; a click on a
    point picks the step into that version."""
    traces = []
    for system, g in frame.groupby("system", sort=False):
        x = [chart_text(v, 24) for v in g["version"].astype(str)]
        color = colors.get(system, "#1f77b4")
        traces.append(go.Scatter(x=x, y=g["ci_high"], mode="lines", line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, legendgroup=system))
        traces.append(go.Scatter(x=x, y=g["ci_low"], mode="lines", line=dict(width=0), fill="tonexty",
                                 fillcolor=_band(color), hoverinfo="skip", name=f"{chart_text(system, 24)} 95% CI",
                                 legendgroup=system, showlegend=False))
        marks = g["mark"].fillna("").tolist()
        traces.append(go.Scatter(
            x=x, y=g["mean"], mode="lines+markers+text", name=chart_text(system, 30), legendgroup=system,
            line=dict(color=color, width=2), text=marks,
            textposition=["bottom center" if m == "▼" else "top center" for m in marks],
            textfont=dict(size=18, color=[SYMBOL.get(m, ("", color))[1] for m in marks]),
            marker=dict(size=[16 if m else 9 for m in marks], color=[SYMBOL.get(m, ("", color))[1] for m in marks],
                        symbol=[SYMBOL.get(m, ("circle",))[0] for m in marks]),
            customdata=[[chart_text(r, 40), chart_text(system, 30), n, d]
                        for r, n, d in zip(g["run"], g["n_topics"], g["delta"])],
            hovertemplate="%{customdata[1]} %{x} (%{customdata[0]})<br>mean %{y:.4f} over %{customdata[2]} topics"
                          "<br>Δ %{customdata[3]:+.4f}<extra></extra>"))
    fig = go.Figure(traces)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=categories(frame),
                     title="version (click a point to list the topics of its step)")
    fig.update_yaxes(title=chart_text(measure))
    style(fig, height=380).update_layout(title=f"{chart_text(measure)} over versions: mean and 95% t interval",
                                         clickmode="event+select")
    return show(fig, key=key, filename=f"history_{measure}", on_select=on_select, selection_mode="points")


def clicked_run(frame: pd.DataFrame, points: list[dict]) -> str | None:
    """The run of a clicked point (the line's points carry the run's name; the bands carry none)."""
    for point in points:
        data = point.get("customdata")
        if data:
            shown = {chart_text(r, 40): r for r in frame["run"].astype(str)}
            return shown.get(str(data[0]))
    return None


def render_versions(frame: pd.DataFrame, *, stem: str, key: str) -> None:
    download_csv(frame.to_csv(index=False), label="Download CSV", file_name=stem, key=f"{key}_csv")
    show_table(frame.drop(columns=["measure"]), key=key, hide_index=True, width="stretch", column_config={
        "system": st.column_config.TextColumn("System", pinned=True, width=name_width(frame["system"])),
        "version": st.column_config.TextColumn("Version"),
        "run": st.column_config.TextColumn("Run", width=name_width(frame["run"])),
        "n_topics": st.column_config.NumberColumn("Topics", format="%d"),
        "mean": st.column_config.NumberColumn("Mean", format="%.4f"),
        "ci_low": st.column_config.NumberColumn("CI low", format="%.4f", help="95% t interval over the topics"),
        "ci_high": st.column_config.NumberColumn("CI high", format="%.4f", help="95% t interval over the topics"),
        "delta": st.column_config.NumberColumn("Δ", format="%+.4f",
                                               help="Mean change from the version before, on the topics both have"),
        "n_common": st.column_config.NumberColumn("Paired", format="%d", help="Topics both versions have"),
        "p_value": st.column_config.NumberColumn("p", format="%.4f"),
        "p_corrected": st.column_config.NumberColumn("p corr.", format="%.4f",
                                                     help="p after the correction over the steps shown"),
        "mark": st.column_config.TextColumn("Sig.", help="▲ / ▼: significantly better / worse than the version "
                                                         "before")})


def step_label(step) -> str:
    p = "–" if step.p_corrected is None else f"{step.p_corrected:.4f}"
    delta = "–" if step.delta is None else f"{step.delta:+.4f}"
    mark = f" {step.mark}" if step.mark else ""
    return f"{step.system}: {step.before_version} → {step.after_version}{mark} (Δ {delta}, p corr. {p})"


def render_topics(moved: pd.DataFrame, *, step, texts: dict, key: str, on_select):
    """The step's topics, largest change first; a click on a row opens that topic in Per-query."""
    st.markdown(md_format("Topics that moved most from {} to {} (Δ = {} − {}). Click a row to open it in Per-query.",
                          step.before, step.after, step.after_version, step.before_version))
    view = moved.assign(text=[texts.get(q, "") for q in moved["qid"]])[["qid", "text", "before", "after", "delta"]]
    if not (view["text"] != "").any():
        view = view.drop(columns=["text"])
    download_csv(view.to_csv(index=False), label="Download these topics (CSV)",
                 file_name=f"history_{step.after}_vs_{step.before}", key=f"{key}_csv")
    return st.dataframe(view, key=key, hide_index=True, width="stretch", height=fit_height(len(view)),
                        on_select=on_select,
                        selection_mode=["single-row", "single-cell"], column_config={
                            "qid": st.column_config.TextColumn("Topic", pinned=True),
                            "text": st.column_config.TextColumn("Query"),
                            "before": st.column_config.NumberColumn(step.before_version, format="%.4f"),
                            "after": st.column_config.NumberColumn(step.after_version, format="%.4f"),
                            "delta": st.column_config.NumberColumn("Δ", format="%+.4f")})


def clicked_topic(moved: pd.DataFrame, selection) -> str | None:
    rows, cells = list(selection.get("rows") or []), list(selection.get("cells") or [])
    row = rows[0] if rows else cells[0][0] if cells else None
    return None if row is None else str(moved["qid"].iloc[int(row)])


__all__ = ["render_chart", "clicked_run", "render_versions", "step_label", "render_topics", "clicked_topic",
           "categories"]
