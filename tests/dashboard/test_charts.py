"""dashboard/components/charts.py: the shared chart style."""
from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from dashboard.components.charts import style


def _figure() -> go.Figure:
    fig = go.Figure(go.Bar(x=["a", "b"], y=[0.25, 0.5], name="run"))
    fig.update_xaxes(title="topic")
    return fig


def test_style_draws_the_same_figure_as_naming_the_template_in_each_figure():
    # the plain equivalent of the default template: every figure names plotly_white in its layout
    plain = style(_figure(), height=300, legend_below=True).update_layout(template="plotly_white")
    fast = style(_figure(), height=300, legend_below=True)
    assert pio.templates.default == "plotly_white"
    assert fast.to_dict() == plain.to_dict()
    assert fast.layout.template.layout.plot_bgcolor == "white"


def test_a_styled_figure_keeps_its_own_template_when_it_names_one():
    fig = style(_figure().update_layout(template="simple_white"))
    assert fig.layout.template == pio.templates["simple_white"]
