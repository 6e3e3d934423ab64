"""dashboard/components/agreement.py: the slopegraph against its plain form."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from core.agreement.rankcorr import DoesItMatter, correlation_table
from dashboard.components.agreement import slopegraph_figure
from dashboard.components.charts import chart_text, style


def _plain_slopegraph(dim, *, colors: dict) -> go.Figure:
    """The plain form: a go.Scatter per run, added one at a time."""
    scores = dim.scores
    cols = [chart_text(c, None) for c in scores.columns]
    fig = go.Figure()
    for run, row in scores.iterrows():
        fig.add_trace(go.Scatter(x=cols, y=row.to_numpy(), mode="lines+markers", name=chart_text(run),
                                 line=dict(color=colors.get(str(run)), width=2), marker=dict(size=8),
                                 hovertemplate="%{fullData.name}<br>%{x}: %{y:.4f}<extra></extra>"))
    fig.update_xaxes(type="category", title="qrels set", tickvals=cols,
                     ticktext=[chart_text(c, 24) for c in scores.columns])
    fig.update_yaxes(title=chart_text(dim.measure))
    pairs = list(dim.correlations.itertuples())
    taus = (f"Kendall's τ({chart_text(pairs[0].a, 24)}, {chart_text(pairs[0].b, 24)}) = {pairs[0].kendall_tau:.3f}"
            if len(pairs) == 1 else f"Kendall's τ for each of the {len(pairs)} pairs: see the table below")
    return style(fig, height=420).update_layout(title=dict(text="System scores under each qrels set",
                                                           subtitle=dict(text=taus, font=dict(size=14))))


@pytest.mark.parametrize("n_sets", [2, 3])
def test_the_slopegraph_is_its_plain_form(n_sets):
    rng = np.random.default_rng(n_sets)
    runs = [f"run{i}" for i in range(12)] + ["<b>odd & run</b>"]
    sets = ["NIST", "simulated-B", "llm <judge>"][:n_sets]
    scores = pd.DataFrame(rng.uniform(0, 0.5, (len(runs), n_sets)), index=pd.Index(runs, name="run"), columns=sets)
    scores.iloc[2, 1] = np.nan                       # a run without a score under one set
    dim = DoesItMatter(measure="AP", scores=scores, correlations=correlation_table(scores),
                       qrels_ids={s: i for i, s in enumerate(sets)})
    colors = {r: f"#{i:02x}3366" for i, r in enumerate(runs[:-1])}      # one run without a colour of its own
    fig = slopegraph_figure(dim, colors=colors)
    assert len(fig.data) == len(runs)
    assert pio.to_json(fig, validate=False) == pio.to_json(_plain_slopegraph(dim, colors=colors), validate=False)
