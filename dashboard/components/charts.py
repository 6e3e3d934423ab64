"""Shared plotly settings: projector-readable fonts, PNG export through plotly's toolbar."""
from __future__ import annotations

import html
import re

import plotly.graph_objects as go
import streamlit as st

FONT = dict(size=14)


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
    where = (dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0) if legend_below else {})
    fig.update_layout(height=height, font=FONT, margin=dict(l=10, r=36, t=40, b=10),
                      showlegend=legend, legend=dict(font=dict(size=13), **where),
                      hoverlabel=dict(font_size=13), template="plotly_white",
                      title=dict(font=dict(size=16)), modebar=dict(orientation="v"))
    return fig


def show(fig: go.Figure, *, key: str, filename: str, **kwargs):
    """st.plotly_chart with the toolbar's camera button saving a 2x PNG named after the view."""
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "png", "filename": slug(filename), "scale": 2},
              "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
    return st.plotly_chart(fig, key=key, config=config, theme=None, **kwargs)
