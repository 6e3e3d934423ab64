"""Per-query views: the sorted delta chart, the "most different" table, two ranked lists side by side."""
from __future__ import annotations

import math
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.table import table as show_table

from dashboard.components.charts import slug, chart_text, show, signed_bars, style
from dashboard.components.escape import md_escape

GRADE_STYLE = {0: "background-color: #e5e7eb; color: #374151", 1: "background-color: #bbf7d0; color: #14532d",
               2: "background-color: #4ade80; color: #052e16", 3: "background-color: #15803d; color: #ffffff"}
UNJUDGED_STYLE = "background-color: #fde68a; color: #78350f"
NEG_GRADE_STYLE = "background-color: #fecaca; color: #7f1d1d"


def render_delta_chart(diff: pd.DataFrame, *, run_a: str, run_b: str, measure: str, key: str, on_select,
                       selected: str | None = None):
    """Bars = per-topic delta (b - a), sorted, green when b wins; hover shows the topic text;
    the open topic (if any) is outlined."""
    d = diff.sort_values(["delta", "qid"], ascending=[False, True])
    outline = [3 if str(q) == str(selected) else 0 for q in d["qid"]]
    text = [chart_text(t, 120) if t else "(no topic text)" for t in d["text"]]
    x = [chart_text(q, None) for q in d["qid"].astype(str)]
    fig = go.Figure(signed_bars(
        x, d["delta"], names=(f"{chart_text(run_b, 24)} better", f"{chart_text(run_b, 24)} worse", "tied"),
        outline=outline, customdata=list(zip(text, d["a"], d["b"])),
        hovertemplate="topic %{x}: %{customdata[0]}<br>Δ %{y:+.4f}<br>baseline %{customdata[1]:.4f}"
                      " → %{customdata[2]:.4f}<extra></extra>"))
    fig.update_layout(barmode="overlay", legend=dict(yanchor="top", y=0.99, xanchor="right", x=0.99,
                                                     bgcolor="rgba(255,255,255,0.8)"))
    fig.update_xaxes(categoryorder="array", categoryarray=x)
    fig.update_xaxes(type="category", title="topic (sorted by Δ) — click a bar to open it",
                     showticklabels=len(d) <= 50)
    fig.update_yaxes(title=f"Δ {measure}", zeroline=True, zerolinecolor="#6b7280")
    wins, losses = int((d["delta"] > 0).sum()), int((d["delta"] < 0).sum())
    st.markdown(f"**{md_escape(run_b)}** vs baseline **{md_escape(run_a)}** on {md_escape(measure)}: "
                f"better on {wins:,}, worse on {losses:,}, tied on {len(d) - wins - losses:,} topics.")
    title = f"Δ {chart_text(measure)}: {chart_text(run_b, 30)} − {chart_text(run_a, 30)}"
    style(fig, height=290).update_layout(title=title, clickmode="event+select")
    return show(fig, key=key, filename=f"perquery_{run_b}_vs_{run_a}_{measure}", on_select=on_select,
                selection_mode="points")


def clicked_topic(diff: pd.DataFrame, point: dict) -> str | None:
    """The topic id of a clicked bar (the chart shows HTML-escaped ids)."""
    shown = {chart_text(q, None): q for q in diff["qid"].astype(str)}
    return shown.get(str(point.get("x")))


def clicked_row(selection, marked: int | None) -> int | None:
    """The row a click in render_table's table chose, from its selection (rows, cells) and the row shown as
    open (`marked`): a row whose checkbox was ticked, else the row of a clicked cell; None when the click only
    cleared the open row's checkbox."""
    rows, cells = list(selection.get("rows") or []), list(selection.get("cells") or [])
    if rows and rows[0] != marked:
        return int(rows[0])
    if cells:
        return int(cells[0][0])
    return None


def marked_rows(diff: pd.DataFrame, qid: str | None) -> dict:
    """render_table's selection state that shows topic `qid` as the open row (none when it is not in `diff`)."""
    rows = [int(i) for i in (diff["qid"].astype(str).to_numpy() == str(qid)).nonzero()[0][:1]] if qid else []
    return {"selection": {"rows": rows, "columns": [], "cells": []}}


def render_table(diff: pd.DataFrame, *, run_a: str, run_b: str, key: str, on_select):
    texts = (diff["text"] != "").any()     # a collection without topic texts shows no empty Query column
    view = diff[["qid", *(["text"] if texts else []), "a", "b", "delta", "abs_delta", "overlap", "kendall_tau", "rbo"]]
    csv = view.rename(columns={"qid": "topic", "text": "query", "a": f"{run_a} (baseline)", "b": run_b,
                               "overlap": "shared_in_top_100"}).to_csv(index=False)
    download_csv(csv, label="Download this table (CSV)", file_name=f"perquery_{run_b}_vs_{run_a}",
                 key=f"{key}_csv")
    # a click on any cell selects that cell; clicked_row turns it into its row (the checkbox selects the row)
    return st.dataframe(view, key=key, hide_index=True, width="stretch", height=300, on_select=on_select,
                        selection_mode=["single-row", "single-cell"], column_config={
                            "qid": "Topic", "text": st.column_config.TextColumn("Query", width="medium"),
                            "a": st.column_config.NumberColumn(f"{run_a} (baseline)", format="%.4f"),
                            "b": st.column_config.NumberColumn(run_b, format="%.4f"),
                            "delta": st.column_config.NumberColumn("Δ", format="%+.4f"),
                            "abs_delta": st.column_config.NumberColumn("|Δ|", format="%.4f",
                                                                       help="Sorted by this: most different first"),
                            "overlap": st.column_config.NumberColumn("Shared in top 100", format="%d"),
                            "kendall_tau": st.column_config.NumberColumn("Kendall τ", format="%.3f",
                                                                         help="Over the union of both top 100s"),
                            "rbo": st.column_config.NumberColumn("RBO", format="%.3f",
                                                                 help="Rank-biased overlap, p = 0.9")})


def download_csv(csv: str, *, label: str, file_name: str, key: str) -> None:
    st.download_button(label, csv, file_name=f"{slug(file_name)}.csv", mime="text/csv", key=key,
                       icon=":material/download:", on_click="ignore")


def lists_csv(left: pd.DataFrame, right: pd.DataFrame, *, run_a: str, run_b: str, qid: str) -> str:
    """Both ranked lists of one topic as one CSV: topic, run, role, rank, docno, grade, other_rank, score."""
    cols = ["rank", "docno", "grade", "other_rank", "score"]
    both = pd.concat([left[cols].assign(run=run_a, role="baseline"), right[cols].assign(run=run_b, role="compared")],
                     ignore_index=True)
    return both.assign(topic=qid)[["topic", "run", "role", *cols]].to_csv(index=False)


def render_lists_download(left: pd.DataFrame, right: pd.DataFrame, *, run_a: str, run_b: str, qid: str,
                          key: str) -> None:
    download_csv(lists_csv(left, right, run_a=run_a, run_b=run_b, qid=qid), label="Download both lists (CSV)",
                 file_name=f"topic_{qid}_{run_a}_vs_{run_b}", key=key)


def _grade_style(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return UNJUDGED_STYLE
    v = int(v)
    return NEG_GRADE_STYLE if v < 0 else GRADE_STYLE.get(min(v, 3), "")


def render_ranked_list(ranked: pd.DataFrame, *, run: str, score: float | None, key: str) -> None:
    """One run's ranking of the topic: grade colour (yellow = unjudged), rank in the other run."""
    with st.container(key=key, border=True):
        n_unj = int(ranked["grade"].isna().sum()) if len(ranked) else 0
        top10_unj = int(ranked.head(10)["grade"].isna().sum()) if len(ranked) else 0
        st.markdown(f"**{md_escape(run)}**" + (f" · score {score:.4f}" if score is not None else ""))
        if top10_unj:
            st.badge(f"{top10_unj} unjudged in the top 10", color="orange", icon=":material/help:")
        view = pd.DataFrame({"rank": ranked["rank"], "grade": ranked["grade"].map(
            lambda g: "unjudged" if g is None or (isinstance(g, float) and math.isnan(g)) else str(int(g))),
            "docno": ranked["docno"], "other": ranked["other_rank"].map(
                lambda r: "—" if r is None or (isinstance(r, float) and math.isnan(r)) else str(int(r))),
            "score": ranked["score"]})
        styler = view.style.format({"score": "{:.6g}"})   # 302, 44.3452, 0.123457: short enough for half width
        styler = styler.apply(lambda col: [_grade_style(g) for g in ranked["grade"]], subset=["grade"])
        show_table(styler, key=f"{key}_table", hide_index=True, width="stretch", height=390, column_config={
            "rank": st.column_config.NumberColumn("Rank", format="%d", width=52),
            "grade": st.column_config.TextColumn("Grade", width=78),
            "docno": "Document",
            "other": st.column_config.TextColumn("Other rank", width=84,
                                                 help="Rank of this document in the other run (— = not retrieved)"),
            "score": "Score"})
        st.caption(f"{len(ranked)} documents shown, {n_unj:,} unjudged. "
                   "Grades: grey 0, light green 1, green 2, dark green 3+, yellow unjudged.")
        texts = ranked.dropna(subset=["text"]).head(10) if "text" in ranked else ranked.iloc[:0]
        if len(texts):
            with st.expander("Document texts (top 10)"):
                for r in texts.itertuples():
                    st.markdown(f"**{int(r.rank)}. {md_escape(r.docno)}**")
                    st.text(str(r.text)[:2000])
