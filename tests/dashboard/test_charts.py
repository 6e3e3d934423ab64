"""dashboard/components/charts.py: the shared chart style."""
from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from dashboard.components.charts import style


def _plain_style(fig: go.Figure, *, height: int = 380, legend: bool = True, legend_below: bool = False):
    """The plain equivalent of style(): the template and every setting written into each figure."""
    where = (dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0) if legend_below else {})
    fig.update_layout(height=height, font=dict(size=14), margin=dict(l=10, r=36, t=40, b=10),
                      showlegend=legend, legend=dict(font=dict(size=13), **where),
                      hoverlabel=dict(font_size=13), template="plotly_white",
                      title=dict(font=dict(size=16)), modebar=dict(orientation="v"))
    return fig


def _merge(under: dict, over: dict) -> dict:
    out = dict(under)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _drawn(fig: go.Figure) -> dict:
    """What plotly.js draws with: the figure's own layout over its template's layout, and its traces."""
    spec = fig.to_plotly_json()
    layout = dict(spec["layout"])
    template = layout.pop("template", {})
    return {"layout": _merge(template.get("layout", {}), layout), "template_data": template.get("data"),
            "data": spec["data"]}


def _figure() -> go.Figure:
    fig = go.Figure(go.Bar(x=["a", "b"], y=[0.25, 0.5], name="run"))
    fig.update_layout(legend=dict(x=0.01, bgcolor="white"), title="Per-topic AP")   # a chart's own settings
    fig.update_xaxes(title="topic")
    return fig


@pytest.mark.parametrize("options", [{}, {"height": 300, "legend_below": True}, {"legend": False}])
def test_style_draws_the_same_chart_as_writing_the_template_and_settings_into_each_figure(options):
    fast, plain = style(_figure(), **options), _plain_style(_figure(), **options)
    assert _drawn(fast) == _drawn(plain)
    assert _drawn(fast)["layout"]["plot_bgcolor"] == "white"            # plotly_white's


def test_the_default_template_leaves_plotly_white_itself_unchanged():
    assert pio.templates.default == "rankboard"
    assert pio.templates["plotly_white"].layout.font.size is None
    assert pio.templates["plotly_white"].layout.margin.to_plotly_json() == {}


def test_a_chart_that_names_its_own_template_keeps_it():
    fig = style(_figure().update_layout(template="simple_white"))
    assert fig.layout.template == pio.templates["simple_white"]


def test_a_title_given_after_the_style_keeps_the_styles_title_size():
    # with the settings written into each figure, a title given after style() replaced its font (plotly.js then
    # draws 1.4 x 14 px); from the template every title is 16 px
    fig = style(go.Figure()).update_layout(title="Per-topic AP")
    assert _drawn(fig)["layout"]["title"] == {"text": "Per-topic AP", "font": {"size": 16}, "x": 0.05}
