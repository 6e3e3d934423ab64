"""The Fusion page's pieces: a method's parameters as inputs (from the fusion registry, with its defaults), the
per-topic chart of where the fused run beats and trails the best part, and the save form."""
from __future__ import annotations

from typing import Callable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.errors import RankboardError
from core.fusion import METHODS, Method
from dashboard.components import charts
from dashboard.components.escape import md_format
from dashboard.components.feedback import show_error

MODES = {"set": "Set them", "train": "Learn from the judged topics", "tune": "Tune (cross-validation)"}
FOLDS = [2, 3, 5, 10]


def method_label(name: str) -> str:
    method = next(m for m in METHODS if m.name == name)
    return f"{name}: {method.description}" if len(method.description) <= 60 else f"{name}: " \
        f"{method.description[:57]}..."


def modes(method: Method) -> list[str]:
    """How the parameters can be chosen: a learning method learns (or is tuned); a method with parameters or
    weights is set or tuned; the others have nothing to choose."""
    if method.train is not None:
        return ["train", "tune"]
    return ["set", "tune"] if method.params or method.weighted else ["set"]


def render_params(method: Method, values: dict, *, key: str) -> dict:
    """One number input per parameter of `method`, starting at `values` (else the registry's default; empty when
    ranx has none). Returns {name: value or None}."""
    out = {}
    if not method.params:
        return out
    cols = st.columns(len(method.params))
    for col, p in zip(cols, method.params):
        start = _number(values.get(p.name), p) if values.get(p.name) is not None else p.default
        step = 1 if p.type is int else 0.01
        out[p.name] = col.number_input(f"{p.name}", min_value=p.type(p.low), max_value=p.type(p.high),
                                       value=None if start is None else p.type(start), step=p.type(step),
                                       key=f"{key}_{p.name}", help=p.help + (
                                           "" if p.default is not None else " (no default in ranx: give it)"),
                                       placeholder="required")
    return out


def _number(text, p):
    """A parameter's value from the URL, or its default when the URL's text is not a number in range."""
    try:
        v = p.type(float(text))
    except (TypeError, ValueError, OverflowError):       # OverflowError: int(inf)
        return p.default
    return v if p.low <= v <= p.high else p.default


def parse_weights(text: str, n_runs: int) -> list[float] | None:
    """Weights typed as "0.3, 0.7" (None when blank: equal weights); a RankboardError that says how to write them."""
    if not text.strip():
        return None
    try:
        weights = [float(w) for w in text.replace(";", ",").split(",")]
    except ValueError:
        raise RankboardError(f"Weights '{text}': expected numbers separated by commas, such as 0.3, 0.7.") from None
    if len(weights) != n_runs:
        raise RankboardError(f"{len(weights)} weights for {n_runs} runs: give one weight per run, in the order of "
                             f"the runs, or leave the field blank for equal weights.")
    return weights


def render_topic_chart(deltas: pd.DataFrame, *, fused: str, best: str, measure: str, key: str,
                       filename: str) -> None:
    """Bars of fused - best per topic (qid, fused, best, delta), best topic first, coloured by sign."""
    helped, hurt = int((deltas["delta"] > 0).sum()), int((deltas["delta"] < 0).sum())
    st.caption(md_format("{} - {} on {}, per topic: fusion helps on {} topics and hurts on {} (ties: {}).", fused,
                         best, measure, helped, hurt, len(deltas) - helped - hurt))
    x = [charts.chart_text(q, None) for q in deltas["qid"].astype(str)]      # plotly renders HTML in ticks
    custom = deltas[["fused", "best"]].to_numpy()
    fig = go.Figure(charts.signed_bars(
        x, deltas["delta"].to_numpy(float), names=("fusion helps", "fusion hurts", "tie"), customdata=custom,
        hovertemplate="topic %{x}<br>fused %{customdata[0]:.4f}<br>best part %{customdata[1]:.4f}"
                      "<br>delta %{y:+.4f}<extra></extra>"))
    fig.update_layout(xaxis=dict(title="topic", type="category", categoryorder="array", categoryarray=x,
                                 showticklabels=len(x) <= 60),
                      yaxis=dict(title=charts.chart_text(f"{measure}: fused - {best}", 60)), bargap=0.1)
    charts.show(charts.style(fig, legend_below=True), key=key, filename=filename, width="stretch")


def render_save(*, default: str, save: Callable[[str], object] | None, read_only: str, key: str) -> None:
    """A name field and "Save to collection" (when `save` is given: the session may write), else why not."""
    if save is None:
        st.info(read_only, icon=":material/lock:")
        return
    with st.form(f"{key}_form", border=False, enter_to_submit=False):
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        name = left.text_input("Name of the fused run", value=default, key=f"{key}_name",
                               help="One word; the run appears under it on every page.")
        pressed = right.form_submit_button("Save to collection", key=f"{key}_button", type="primary")
    if pressed:
        try:
            done = save(name.strip())
        except RankboardError as err:
            show_error(err, title="Could not save the fused run")
            return
        st.success(md_format("Saved run {} to the collection ({} lines). It is on every page now.",
                             getattr(done, "name", name), f"{getattr(done, 'n_rows', 0):,}"), icon=":material/check:")
