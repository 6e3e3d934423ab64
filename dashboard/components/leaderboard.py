"""Leaderboard views over a core `Comparison` and `EvalResult.summary`: the styled runs x measures
table, the CI bar chart, the per-comparison details, and the CSV/LaTeX downloads."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.components.table import name_width, table as show_table

from dashboard.components.charts import chart_text, show, slug, style
from dashboard.components.escape import md_escape, md_format
from dashboard.components.palette import NEGATIVE, POSITIVE

UP, DOWN = "▲", "▼"
RANK, GROUP = "Rank (95% CI)", "Group"
_BG = {UP: "background-color: #d5f0dd; color: #0f5f2c", DOWN: "background-color: #fadcd9; color: #9b1c13"}
_TEXT = {1: f"color: {POSITIVE}", -1: f"color: {NEGATIVE}"}


def _ok(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def means_table(summary: pd.DataFrame, *, runs: list[str], measures: list[str]) -> pd.DataFrame:
    """trec_eval's 'all' values as runs x measures, in the order chosen. A measure without a value for any run is
    left out, a run without a value shows NaN, and of repeated (run, measure) rows the first with a value counts.

    Filled by position in one numpy assignment. Plain equivalent: summary.pivot_table(index="run",
    columns="measure", values="value", aggfunc="first"), reindexed to runs x measures: 2.9 ms against 0.5 ms at 43
    runs (tests/dashboard/test_leaderboard_table.py compares the two)."""
    measures = list(dict.fromkeys(str(m) for m in measures))
    row = pd.Index([str(r) for r in runs], dtype=object).get_indexer(summary["run"].astype(object).to_numpy())
    col = pd.Index(measures, dtype=object).get_indexer(summary["measure"].astype(object).to_numpy())
    value = summary["value"].to_numpy(float)
    known = (col >= 0) & ~np.isnan(value)               # as pivot_table: NaN values are skipped
    hit = np.flatnonzero(known & (row >= 0))[::-1]     # reversed: the first of repeated rows is written last
    wide = np.full((len(runs), len(measures)), np.nan)
    wide[row[hit], col[hit]] = value[hit]
    present = np.zeros(len(measures), bool)             # a measure with a value for any run, chosen or not
    present[col[known]] = True
    return pd.DataFrame(wide[:, present], index=pd.Index(list(runs), name="run"),
                        columns=pd.Index([m for m, k in zip(measures, present) if k], name="measure"))


def in_rank_order(table: pd.DataFrame) -> pd.DataFrame:
    """The rows in the leaderboard's order: best mean of the first measure first, a run without one last, ties
    in the order chosen. The exports list the runs in this order too (`rank_order`)."""
    if table.columns.empty:
        return table
    return table.sort_values(table.columns[0], ascending=False, kind="stable", na_position="last")


def ranked(summary: pd.DataFrame, *, runs: list[str], measures: list[str]) -> pd.DataFrame:
    """The means table (runs x measures) in the leaderboard's order: what render_table draws."""
    return in_rank_order(means_table(summary, runs=runs, measures=measures))



def _cell_marks(comparison, measures: list[str]) -> dict:
    """(run, measure) -> (marker or '', sign of delta) from the comparison rows."""
    marks = {}
    for r in comparison.rows:
        if r.measure in measures and r.run != comparison.baseline and _ok(r.delta):
            sign = 1 if r.delta > 0 else -1 if r.delta < 0 else 0
            marker = (UP if r.delta > 0 else DOWN) if r.significant else ""
            marks[(r.run, r.measure)] = (marker, sign)
    return marks


def render_table(summary: pd.DataFrame | None, *, runs: list[str], measures: list[str], comparison=None,
                 judged: pd.Series | None = None, resolution=None, costs: pd.DataFrame | None = None,
                 imported: dict | None = None, key: str, means: pd.DataFrame | None = None) -> pd.DataFrame:
    """The main leaderboard: one row per run, one column per measure, markers and colours vs the
    baseline (if any), Judged@10 last; with a core.stats.resolution.Resolution, the rank with its 95%
    interval ('2 (1–4)') and the letter group first; `costs` (runs x cost keys) adds those columns at the end, a
    run without one shows '–'. `imported`: imported measure -> its source; their headers say "imported (source)"
    when pointed at. `means`: the runs x measures table in rank order, when the caller has it (`ranked`); else it
    is read from `summary`. Click a header to sort. Returns the table."""
    if means is None:
        means = ranked(summary, runs=runs, measures=measures)
    table, styler = styled_table(means, comparison=comparison, judged=judged, resolution=resolution, costs=costs)
    show_table(styler, key=key, width="stretch",       # every row up to SHORT_ROWS runs: the page scrolls, not the table
               column_config={"_index": st.column_config.TextColumn("Run", pinned=True),
                              RANK: st.column_config.TextColumn(RANK, width="small"),
                              GROUP: st.column_config.TextColumn(GROUP, width="small"),
                              **{m: st.column_config.Column(m, help=md_escape(imported_label(src)))   # markdown
                                 for m, src in (imported or {}).items() if m in table.columns}})
    return table


def styled_table(means: pd.DataFrame, *, comparison=None, judged: pd.Series | None = None, resolution=None,
                 costs: pd.DataFrame | None = None):
    """(table, its pandas Styler): what render_table draws, from the runs x measures table in rank order.

    The run names and column names are plain Python strings (object dtype), not pandas' Arrow strings: the
    Styler looks cells up by label, which with Arrow strings cost a conversion per lookup. The cell colours are
    filled in one array. tests/dashboard/test_leaderboard_table.py checks that the Styler renders the same HTML
    as the plain form (Arrow labels, one .loc assignment per cell)."""
    table = means.copy()
    table.index = pd.Index([str(r) for r in table.index], dtype=object)
    table.columns = pd.Index([str(c) for c in table.columns], dtype=object, name=table.columns.name)
    measures = list(table.columns)
    ranked_cols = [RANK, GROUP] if resolution is not None else []
    if resolution is not None:
        known = set(resolution.runs)
        table.insert(0, RANK, [resolution.label(r) if r in known else "" for r in table.index])
        table.insert(1, GROUP, [resolution.of(r)["group"] if r in known else "" for r in table.index])
    baseline = comparison.baseline if comparison is not None else None
    if judged is not None:
        table["Judged@10"] = judged.reindex(table.index).to_numpy()
    wtl = None
    if comparison is not None and measures:
        wtl = f"W/T/L {measures[0]}"
        rows = {r.run: r for r in comparison.rows if r.measure == measures[0]}
        table[wtl] = [f"{rows[r].wins}/{rows[r].ties}/{rows[r].losses}"
                      if r in rows and rows[r].wins is not None else "" for r in table.index]
    cost_keys = [] if costs is None else [c for c in costs.columns if c not in table.columns]
    for c in cost_keys:      # as text: a run without the key shows '–' (a missing number would show "None")
        table[c] = ["–" if not _ok(v) else f"{v:g}" if isinstance(v, float) else str(v)
                    for v in costs[c].reindex(table.index)]
    names = list(table.index)
    table.index = pd.Index([f"{r} (baseline)" if r == baseline else r for r in names], dtype=object, name="Run")
    numeric = [c for c in table.columns if c != wtl and c not in ranked_cols and c not in cost_keys]
    styler = table.style.format("{:.4f}", na_rep="–", subset=numeric)
    css = np.full(table.shape, "", dtype=object)
    row_of = {r: i for i, r in enumerate(names)}
    col_of = {c: j for j, c in enumerate(table.columns)}
    if comparison is not None:
        marked: dict[tuple[str, str], list[str]] = {}
        for (run, m), (marker, sign) in _cell_marks(comparison, measures).items():
            if run in row_of and m in col_of:
                css[row_of[run], col_of[m]] = _BG.get(marker) or _TEXT.get(sign, "")
                if marker:
                    marked.setdefault((m, marker), []).append(table.index[row_of[run]])
        for (m, marker), rows in marked.items():   # one format call per (measure, marker), not per cell
            styler = styler.format(lambda v, mk=marker: f"{v:.4f} {mk}", subset=pd.IndexSlice[rows, [m]],
                                   na_rep="–")
    if judged is not None:
        css[:, col_of["Judged@10"]] = ["color: #b45309; font-weight: bold" if _ok(v) and v < JUDGED_ENOUGH else ""
                                       for v in table["Judged@10"]]
    frame = pd.DataFrame(css, index=table.index, columns=table.columns)
    return table, styler.apply(lambda _frame: frame, axis=None)


def imported_label(source: str) -> str:
    """How an imported measure is marked: where its values come from."""
    return f"imported ({source})"


def render_imported(imported: dict, *, key: str) -> None:
    """One line naming the imported measures shown and their sources (nothing when there are none)."""
    if imported:
        with st.container(key=key):
            st.caption("Imported measures, read as loaded and never recomputed: " + "; ".join(
                md_format("{}: {}", m, imported_label(src)) for m, src in imported.items()))


JUDGED_ENOUGH = 0.9    # a run with less than 90% of its top 10 judged (more than 10% unjudged) gets the warning


def unjudged_warning(judged: pd.Series) -> str | None:
    """The warning for runs whose top 10 is often unjudged: each run's unjudged share, 1 - Judged@10 (the mean
    over topics of the share of the top 10 that the qrels do not judge); None when every run is judged enough."""
    low = [(str(run), 1.0 - float(v)) for run, v in judged.items() if _ok(v) and v < JUDGED_ENOUGH]
    if not low:
        return None
    runs = ", ".join(md_format("{} ({} unjudged)", run, f"{share:.0%}") for run, share in low)
    return (f"More than {1 - JUDGED_ENOUGH:.0%} of the top 10 documents are unjudged (1 − Judged@10, averaged over "
            f"topics) for: {runs}. Their scores (and any gain) may be an artefact of the judgment pool.")


def legend(comparison, *, has_baseline: bool, more=()) -> str:
    if not has_baseline:
        return "Pick a baseline to test every other run against it."
    if more:
        extra = ", ".join(md_escape(b) for b in more)
        return (f"{UP} / {DOWN}: significantly better / worse than {md_escape(comparison.baseline)}; the runs are also "
                f"tested against {extra} (see the details tab) — {md_escape(comparison.legend())} The correction "
                f"covers the tests against all {len(more) + 1} baselines.")
    up = sum(1 for r in comparison.rows if r.significant and r.delta is not None and r.delta > 0)
    down = sum(1 for r in comparison.rows if r.significant and r.delta is not None and r.delta < 0)
    return (f"{UP} / {DOWN}: significantly better / worse than {md_escape(comparison.baseline)} "
            f"({up} {UP}, {down} {DOWN} here) — {md_escape(comparison.legend())} "
            "Green / red text: better / worse, not significant.")


def render_ci_chart(comparison, *, measure: str, colors: dict, key: str) -> None:
    rows = sorted((r for r in comparison.rows if r.measure == measure and _ok(r.mean)),
                  key=lambda r: r.mean, reverse=True)
    if not rows:
        st.info(md_format("No values for {}.", measure))
        return
    names = [r.run for r in rows]
    shown = [chart_text(n, None) for n in names]   # full (escaped) names keep categories distinct
    fig = go.Figure(go.Bar(
        x=shown, y=[r.mean for r in rows], marker_color=[colors.get(n, "#888") for n in names],
        error_y=dict(type="data", symmetric=False, color="#374151", thickness=1.5,
                     array=[(r.ci_high - r.mean) if _ok(r.ci_high) else 0 for r in rows],
                     arrayminus=[(r.mean - r.ci_low) if _ok(r.ci_low) else 0 for r in rows]),
        customdata=[[r.ci_low, r.ci_high, r.n_queries] for r in rows],
        hovertemplate="%{x}<br>mean %{y:.4f}<br>95% CI %{customdata[0]:.4f} – %{customdata[1]:.4f}"
                      "<br>%{customdata[2]} topics<extra></extra>"))
    fig.update_xaxes(type="category", tickangle=-30 if len(names) > 6 else 0, tickvals=shown,
                     ticktext=[chart_text(n, 24) for n in names])
    fig.update_yaxes(title=chart_text(measure), rangemode="tozero")
    style(fig, height=400, legend=False).update_layout(title=f"{chart_text(measure)}: mean and 95% bootstrap CI")
    show(fig, key=key, filename=f"leaderboard_{measure}_ci")


def render_details(comparisons, *, key: str) -> None:
    """Every run against each baseline (one Comparison per baseline)."""
    frames = [c.to_dataframe().assign(baseline=c.baseline).loc[lambda d, b=c.baseline: d["run"] != b]
              for c in comparisons]
    df = pd.concat(frames, ignore_index=True).assign(rel_delta=lambda d: d["rel_delta"] * 100)
    order = ("run", *(("baseline",) if len(comparisons) > 1 else ()), "measure", "delta", "rel_delta", "p_value", "p_corrected", "significant", "wins", "ties",
             "losses", "effect_size", "mean", "ci_low", "ci_high", "n_queries")   # the verdict first
    show_table(df, key=key, hide_index=True, width="stretch", column_order=order, column_config={
        "run": st.column_config.TextColumn("Run", pinned=True, width=name_width(df["run"])),
        "measure": st.column_config.TextColumn("Measure", width=name_width(df["measure"])),
        "baseline": st.column_config.TextColumn("Baseline", width=name_width(df["baseline"])),
        "n_queries": st.column_config.NumberColumn("Topics", format="%d"),
        "mean": st.column_config.NumberColumn("Mean", format="%.4f"),
        "ci_low": st.column_config.NumberColumn("CI low", format="%.4f"),
        "ci_high": st.column_config.NumberColumn("CI high", format="%.4f"),
        "delta": st.column_config.NumberColumn("Δ", format="%+.4f"),
        "rel_delta": st.column_config.NumberColumn("Δ %", format="%+.1f%%"),
        "wins": st.column_config.NumberColumn("Wins", format="%d"),
        "ties": st.column_config.NumberColumn("Ties", format="%d"),
        "losses": st.column_config.NumberColumn("Losses", format="%d"),
        "p_value": st.column_config.NumberColumn("p", format="%.4f"),
        "p_corrected": st.column_config.NumberColumn("p corr.", format="%.4f", help="p after the correction"),
        "effect_size": st.column_config.NumberColumn("Effect (d)", format="%.2f"),
        "significant": st.column_config.CheckboxColumn("Sig.", help="Significant after the correction"),
    })


def render_downloads(*, csv, latex, stem: str, key: str) -> None:
    """CSV and LaTeX buttons; `csv` and `latex` are the text or a function that returns it when clicked."""
    a, b, _ = st.columns([1, 1, 3])
    stem = slug(stem)   # run and collection names may hold '/', '<', spaces ...
    a.download_button("Download CSV", csv, file_name=f"{stem}.csv", mime="text/csv", key=f"{key}_csv",
                      icon=":material/download:", on_click="ignore")
    b.download_button("Download LaTeX", latex, file_name=f"{stem}.tex", mime="text/x-tex", key=f"{key}_latex",
                      icon=":material/download:", on_click="ignore")
