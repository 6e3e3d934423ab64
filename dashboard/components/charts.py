"""Shared plotly settings: projector-readable fonts, PNG export through plotly's toolbar."""
from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from dashboard.components.palette import NEGATIVE, NEUTRAL, POSITIVE

FONT = dict(size=14)
# The projector-readable layout every chart shares, as the figures' default template: plotly_white plus these.
LAYOUT = dict(font=FONT, margin=dict(l=10, r=36, t=40, b=10), legend=dict(font=dict(size=13)),
              hoverlabel=dict(font_size=13), title=dict(font=dict(size=16)), modebar=dict(orientation="v"))
# A new figure takes the default template without copying or validating it. The plain equivalent, style() setting
# template="plotly_white" and LAYOUT in each figure, deep-copies the whole template and validates every setting:
# 3 ms a figure, a fifth of the server's Python time under a team's load (benchmarks/PROFILE.md).
# tests/dashboard/test_charts.py checks that a chart draws with the same settings either way.
pio.templates["rankboard"] = go.layout.Template(pio.templates["plotly_white"])
pio.templates["rankboard"].layout.update(LAYOUT)
pio.templates.default = "rankboard"


def chart_text(text, limit: int | None = 40) -> str:
    """User text (run, qrels and topic names, query text) for a plotly label, title or hover:
    shortened to `limit` characters with an ellipsis, then HTML-escaped, because plotly renders
    <b>, <i>, <br>, <a> and entities in every piece of text it draws."""
    text = str(text)
    if limit and len(text) > limit:
        text = text[:limit - 1] + "…"
    return html.escape(text, quote=False)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:80] or "rankboard"


def style(fig: go.Figure, *, height: int = 380, legend: bool = True, legend_below: bool = False) -> go.Figure:
    """Projector-readable defaults; `legend_below` for half-width charts (the legend would eat the plot)."""
    fig.update_layout(height=height, showlegend=legend)      # the rest of the style is the template, LAYOUT
    if legend_below:
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0))
    return fig


def show(fig: go.Figure, *, key: str, filename: str, **kwargs):
    """st.plotly_chart with the toolbar's camera button saving a 2x PNG named after the view."""
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "png", "filename": slug(filename), "scale": 2},
              "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
    return st.plotly_chart(fig, key=key, config=config, theme=None, **kwargs)


def signed_bars(x: list, y, *, names: tuple[str, str, str], customdata=None, hovertemplate: str | None = None,
                outline=None) -> list[go.Bar]:
    """Bars coloured by the sign of y, one trace per sign (positive, negative, zero), so the legend names the
    colours; give the x axis `categoryorder="array", categoryarray=x` to keep the bars in the order given.
    `outline` (one line width per bar) outlines chosen bars."""
    y = np.asarray(y, dtype=float)
    sign = np.sign(np.nan_to_num(y))
    traces = []
    for s, name, color in ((1, names[0], POSITIVE), (-1, names[1], NEGATIVE), (0, names[2], NEUTRAL)):
        rows = np.flatnonzero(sign == s)
        if not len(rows):
            continue
        line = dict(width=[outline[j] for j in rows], color="#111827") if outline is not None else None
        traces.append(go.Bar(x=[x[j] for j in rows], y=y[rows], name=name, marker=dict(color=color, line=line),
                             customdata=None if customdata is None else [customdata[j] for j in rows],
                             hovertemplate=hovertemplate))
    return traces
