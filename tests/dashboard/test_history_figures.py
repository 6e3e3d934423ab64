"""The History chart's pieces: the x axis keeps each system's version order, a click on a line's point names its run
(the band traces carry nothing), and a click on a topic row or cell names its topic."""
from __future__ import annotations

import pandas as pd

from dashboard.components.history import categories, clicked_run, clicked_topic


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"system": ["a", "a", "a", "b", "b"], "version": ["v1", "v2", "v10", "v1", "x<b>"],
                         "run": ["a-1", "a-2", "a-10", "b-1", "<i>b</i>"]})


def test_categories_interleave_the_systems_in_their_order():
    assert categories(_frame()) == ["v1", "v2", "x&lt;b&gt;", "v10"]


def test_a_click_names_the_run_of_the_point():
    frame = _frame()
    assert clicked_run(frame, [{"x": "v2", "customdata": ["a-2", "a", 20, 0.1]}]) == "a-2"
    assert clicked_run(frame, [{"x": "v1"}, {"customdata": ["&lt;i&gt;b&lt;/i&gt;", "b", 3, None]}]) == "<i>b</i>"
    assert clicked_run(frame, [{"x": "v1"}]) is None and clicked_run(frame, []) is None


def test_a_click_on_a_row_or_a_cell_names_its_topic():
    moved = pd.DataFrame({"qid": ["305", "301"], "delta": [0.5, -0.1]})
    assert clicked_topic(moved, {"rows": [1], "cells": []}) == "301"
    assert clicked_topic(moved, {"rows": [], "cells": [[0, "delta"]]}) == "305"
    assert clicked_topic(moved, {"rows": [], "cells": []}) is None


def test_every_user_text_in_the_chart_reaches_plotly_escaped(monkeypatch):
    from dashboard.components import history
    shown = {}
    monkeypatch.setattr(history, "show", lambda fig, **kw: shown.setdefault("fig", fig))
    frame = _frame().assign(system=["a", "a", "a", "<b>s</b>", "<b>s</b>"], n_topics=3, mean=0.5, ci_low=0.4,
                            ci_high=0.6, delta=0.1, mark="")
    history.render_chart(frame, measure="AP", colors={}, key="k", on_select=None)
    hover = [c for t in shown["fig"].data if t.customdata is not None for c in t.customdata]
    assert {c[1] for c in hover} == {"a", "&lt;b&gt;s&lt;/b&gt;"}
    assert "&lt;i&gt;b&lt;/i&gt;" in {c[0] for c in hover}


def test_the_fusion_chart_escapes_the_topics(monkeypatch):
    from dashboard.components import charts, fusion
    shown = {}
    monkeypatch.setattr(charts, "show", lambda fig, **kw: shown.setdefault("fig", fig))
    monkeypatch.setattr(fusion.st, "caption", lambda *a, **kw: None)
    deltas = pd.DataFrame({"qid": ["<b>1</b>", "2"], "fused": [0.5, 0.2], "best": [0.4, 0.3],
                           "delta": [0.1, -0.1]})
    fusion.render_topic_chart(deltas, fused="f", best="b", measure="AP", key="k", filename="x")
    ticks = [x for t in shown["fig"].data for x in t.x]
    assert sorted(ticks) == ["&lt;b&gt;1&lt;/b&gt;", "2"]
    assert list(shown["fig"].layout.xaxis.categoryarray) == ["&lt;b&gt;1&lt;/b&gt;", "2"]
