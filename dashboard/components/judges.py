"""Judges views: the judges table, the judges x runs shift heatmap, kappa against tau, one judge's topics,
and the pool-hole bounds. Each takes a `core.judges.report.JudgeReport` (a value) and a key prefix; the
Leaderboard's bounds section takes the qrels sets' names and a callback that computes the report."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.measures import parse_measure
from dashboard.components.charts import chart_text, show, slug, style
from dashboard.components.feedback import md_escape
from dashboard.components.palette import run_colors
from dashboard.components.table import WRAP_ROW_PX, table as show_table

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down", "hexagon")
TABLE_COLUMNS = {"judge": "Judge", "cohen_kappa": "κ", "binary_kappa": "κ binary", "kendall_tau": "Kendall τ",
                 "tau_ap": "τ_AP", "largest_shift": "Largest shift", "largest_shift_run": "… of run",
                 "largest_rank_change": "Largest rank change", "n_significant": "Significant shifts",
                 "over_rate": "Over-rates", "under_rate": "Under-rates", "n_common": "Judged by both",
                 "only_reference": "Only reference", "only_judge": "Only judge"}


def judges_frame(report) -> pd.DataFrame:
    return report.table[list(TABLE_COLUMNS)].rename(columns=TABLE_COLUMNS)


# the table on screen: short headers (the full name is the header's tooltip), so 14 columns fit 1280 px.
# column -> (header, number format or None for text, tooltip)
SHORT = {"κ": ("κ", "%.3f", "Cohen's κ of the graded labels"),
         "κ binary": ("κ bin.", "%.3f", "Cohen's κ of the binary labels (relevant at the grade chosen)"),
         "Kendall τ": ("τ", "%.3f", "Kendall's τ between the runs' order under the judge and under the reference"),
         "τ_AP": ("τ_AP", "%.3f", "AP correlation: swaps near the top of the run order count more"),
         "Largest shift": ("Max shift", "%.3f", "The largest change of a run's mean score (judge − reference)"),
         "… of run": ("… of run", None, "The run whose mean shifts most"),
         "Largest rank change": ("Max Δrank", "%d", "The largest change of a run's rank"),
         "Significant shifts": ("Signif.", "%d", "Runs whose score shifts significantly (paired test, corrected)"),
         "Over-rates": ("Over", "percent", "Share of the documents judged by both that the judge grades higher"),
         "Under-rates": ("Under", "percent", "Share of the documents judged by both that the judge grades lower"),
         "Judged by both": ("Both", "%d", "Documents judged by the judge and the reference"),
         "Only reference": ("Ref. only", "%d", "Documents judged by the reference only"),
         "Only judge": ("Judge only", "%d", "Documents judged by the judge only")}


def render_judges_table(report, *, key: str) -> None:
    """Sortable (click a header) table of judges, with a CSV download (full column names)."""
    frame = judges_frame(report)
    st.caption(md_escape(f"{len(frame)} judge(s) against {report.reference} on {report.measure}; binary κ at "
                         f"grade ≥ {report.rel_level}; τ and τ_AP compare the {len(report.runs)} runs' means with "
                         f"the reference's order. Click a column header to sort; point at it for its meaning."))
    config = {"Judge": st.column_config.TextColumn("Judge", pinned=True)}
    for column, (label, number, tip) in SHORT.items():
        config[column] = (st.column_config.TextColumn(label, help=tip) if number is None else
                          st.column_config.NumberColumn(label, format=number, help=tip))
    show_table(frame, key=key, hide_index=True, width="stretch", column_config=config)
    st.download_button("Download judges table (CSV)", frame.to_csv(index=False), key=f"{key}_csv",
                       file_name=f"{slug('judges_' + report.reference + '_' + report.measure)}.csv",
                       mime="text/csv", icon=":material/download:")


def render_shift_heatmap(report, *, key: str) -> None:
    """Judges x runs, colour = shift (judge mean - reference mean), ● = significant after the correction."""
    sh = report.shifts
    z = sh.pivot(index="judge", columns="run", values="shift").reindex(index=report.judges, columns=report.runs)
    sig = sh.pivot(index="judge", columns="run", values="significant").reindex(index=report.judges,
                                                                              columns=report.runs)
    text = np.where(sig.fillna(False).to_numpy(bool), "●", "")
    span = float(np.nanmax(np.abs(z.to_numpy()))) if np.isfinite(z.to_numpy()).any() else 1.0
    fig = go.Figure(go.Heatmap(
        z=z.to_numpy(), x=[chart_text(r, 24) for r in z.columns], y=[chart_text(j, 28) for j in z.index],
        text=text, texttemplate="%{text}", textfont=dict(size=14), colorscale="RdBu", zmid=0,
        zmin=-span or -1, zmax=span or 1, colorbar=dict(title=dict(text="shift", side="right")),
        hovertemplate="judge %{y}<br>run %{x}<br>shift %{z:.4f}<extra></extra>"))
    style(fig, height=max(320, 60 + 22 * len(report.judges)), legend=False)
    fig.update_layout(title=chart_text(f"{report.measure}: judge − {report.reference} (● significant, "
                                       f"{report.correction}, α={report.alpha})", 90),
                      xaxis=dict(tickangle=-30), yaxis=dict(autorange="reversed"))
    show(fig, key=key, filename=f"judges_shift_{report.measure}")
    table = sh.rename(columns={"ci_low": "CI low", "ci_high": "CI high"})
    st.download_button("Download shifts with CIs and p-values (CSV)", table.to_csv(index=False),
                       key=f"{key}_csv", file_name=f"{slug('judges_shifts_' + report.measure)}.csv",
                       mime="text/csv", icon=":material/download:")


def kappa_tau_figure(report) -> go.Figure:
    """One marker per judge, named in the legend (labels beside the markers would pile up where judges agree)."""
    t = report.table
    colors = run_colors(t["judge"])
    fig = go.Figure()
    for i, row in enumerate(t.itertuples()):
        fig.add_trace(go.Scatter(
            x=[row.cohen_kappa], y=[row.kendall_tau], mode="markers", name=chart_text(row.judge, 28),
            marker=dict(size=13, color=colors[str(row.judge)], symbol=SYMBOLS[i % len(SYMBOLS)],
                        line=dict(width=1, color="#111827")),
            customdata=[row.tau_ap], hovertemplate="%{fullData.name}<br>κ %{x:.3f}<br>τ %{y:.3f}<br>"
                                                   "τ_AP %{customdata:.3f}<extra></extra>"))
    style(fig, height=420)
    fig.update_layout(title=chart_text(f"Label agreement (κ) against system-ranking agreement (τ, {report.measure})",
                                       90), xaxis_title="Cohen's κ with " + chart_text(report.reference, 30),
                      yaxis_title="Kendall's τ of the run ranking", legend=dict(title="Judge"))
    return fig


def render_kappa_tau(report, *, key: str) -> None:
    """Each judge's κ against its Kendall τ: 'agrees on labels but reorders systems' sits bottom right."""
    show(kappa_tau_figure(report), key=key, filename=f"judges_kappa_tau_{report.measure}")


def render_topic_view(report, judge: str, *, topics: dict, key: str) -> None:
    """One judge's agreement per topic, most disagreement first (lowest κ, then lowest raw agreement)."""
    part = report.per_topic[report.per_topic["judge"] == judge].copy()
    if part.empty:
        st.info(md_escape(f"{judge} and {report.reference} judged no document in common."), icon=":material/info:")
        return
    if topics:      # a collection without topic texts shows no empty Query column
        part.insert(2, "text", [topics.get(q, "") for q in part["qid"]])
    part = part.sort_values(["cohen_kappa", "agreement"], na_position="last").drop(columns="judge")
    part = part.rename(columns={"qid": "Topic", "text": "Query", "n": "Judged by both", "agreement": "Agreement",
                                "cohen_kappa": "κ", "binary_kappa": "κ binary", "over_rate": "Over-rates",
                                "under_rate": "Under-rates"})
    fmt = {c: st.column_config.NumberColumn(format="%.3f") for c in ("κ", "κ binary")}
    fmt |= {c: st.column_config.NumberColumn(format="percent") for c in ("Agreement", "Over-rates", "Under-rates")}
    fmt["Query"] = st.column_config.TextColumn(width="large")
    show_table(part, key=key, hide_index=True, width="stretch", column_config=fmt, row_height=WRAP_ROW_PX)
    st.download_button("Download this judge's topics (CSV)", part.to_csv(index=False), key=f"{key}_csv",
                       file_name=f"{slug('judge_topics_' + judge)}.csv", mime="text/csv",
                       icon=":material/download:")


def bounds_frame(report, filled_by: str | None) -> pd.DataFrame:
    b = report.bounds.set_index("run").reindex(report.runs)
    out = pd.DataFrame({"Run": report.runs, report.measure: report.reference_scores.reindex(report.runs).to_numpy(),
                        "Unjudged relevant": b["unjudged_relevant"].to_numpy()})
    if filled_by:
        out[f"Filled by {filled_by}"] = report.filled[filled_by].reindex(report.runs).to_numpy()
        if filled_by in report.filled_holes:
            out[f"Holes {filled_by} labels"] = report.filled_holes[filled_by].reindex(report.runs).to_numpy()
    flips = report.flips
    out["Could swap with"] = [", ".join(sorted(set(flips.loc[flips["a"] == r, "b"]) | set(flips.loc[flips["b"] == r, "a"])))
                              for r in report.runs]
    return out.sort_values(report.measure, ascending=False, na_position="last")


def filled_note(report, filled_by: str | None) -> str | None:
    """Why the filled scores equal the plain ones, when the judge labels none of the runs' holes."""
    if not filled_by or filled_by not in report.filled_holes or report.filled_holes[filled_by].sum() > 0:
        return None
    cutoff = parse_measure(report.measure).cutoff
    where = f"top {cutoff:g}" if cutoff is not None else "rankings"
    return (f"No unjudged document in these runs' {where} is judged by {filled_by}: it labels only documents that "
            f"{report.reference} judged too, so every 'Filled by {filled_by}' score equals the {report.measure} "
            f"score under {report.reference}.")


def render_bounds(report, *, filled_by: str | None, key: str) -> None:
    """Each run's score, its upper value with every unjudged document in the cutoff counted relevant, the score
    with the reference's holes filled by one judge, and the runs it could swap places with within the bounds."""
    frame = bounds_frame(report, filled_by)
    st.caption(md_escape(f"{report.measure} under {report.reference}: unjudged documents count as non-relevant "
                         f"(trec_eval). 'Unjudged relevant' counts every unjudged retrieved document within the "
                         f"cutoff relevant at grade {report.top_grade}. {len(report.flips)} pair(s) of runs could "
                         f"swap places within those bounds."))
    note = filled_note(report, filled_by)
    if note:
        st.info(md_escape(note), icon=":material/info:")
    counts = [c for c in frame.columns if c.startswith("Holes ")]
    # on screen the swaps are counted in the table and listed under it (a list of names would not fit a cell);
    # the CSV keeps the names in the column
    shown = frame.assign(**{"Could swap with": [len(v.split(", ")) if v else 0 for v in frame["Could swap with"]]})
    fmt = {c: st.column_config.NumberColumn(format="%.4f") for c in frame.columns
           if c not in ("Run", "Could swap with", *counts)}
    fmt |= {c: st.column_config.NumberColumn(format="%d", help="Unjudged documents of the run within the cutoff "
                                                               "that this judge labels: the holes it fills")
            for c in counts}
    fmt["Run"] = st.column_config.TextColumn(pinned=True)
    fmt["Could swap with"] = st.column_config.NumberColumn(format="%d runs", help="The pairs are listed under the table")
    show_table(shown, key=key, hide_index=True, width="stretch", column_config=fmt)
    if len(report.flips):
        st.caption(md_escape("Could swap places: " + " · ".join(f"{a} ↔ {b}" for a, b in
                                                                 zip(report.flips["a"], report.flips["b"]))))
    st.download_button("Download bounds (CSV)", frame.to_csv(index=False), key=f"{key}_csv",
                       file_name=f"{slug('bounds_' + report.reference + '_' + report.measure)}.csv",
                       mime="text/csv", icon=":material/download:")


def render_leaderboard_bounds(names: list[str], default: str, measures: list[str], *,
                              report: Callable[[str, str | None], object], key: str) -> None:
    """The Leaderboard's optional pool-hole section: bounds for one of `measures` under the `default` qrels set,
    and (when there are other qrels sets among `names`) the score with the holes filled by one of them.
    `report(measure, filled_by)` returns the JudgeReport (filled_by None: no other set)."""
    left, right = st.columns(2)
    measure = left.selectbox("Bounds for", measures, key=f"{key}_measure")
    fillers = [n for n in names if n != default]
    filled_by = right.selectbox("Fill the holes with the labels of", fillers or ["(no other qrels set)"],
                                key=f"{key}_filled_by", disabled=not fillers)
    with st.spinner("Scoring the holes in the pool..."):
        rep = report(measure, filled_by if fillers else None)
    render_bounds(rep, filled_by=filled_by if fillers else None, key=key)
