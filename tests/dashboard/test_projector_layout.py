"""What keeps the pages readable on a 1280x720 projector, one piece at a time (tests/e2e/test_e2e_projector.py
looks at every page in chromium): short tables show every row, labels that could pile up are a legend, colour
bands and signs have legends, colour-bar titles sit beside the bar, the Measures page is one table and one
detail pane, and an open topic or query opens the tab that shows it."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dashboard.components.agreement import KAPPA_BANDS, topic_kappa_figure
from dashboard.components.charts import signed_bars
from dashboard.components.escape import md_escape
from dashboard.components.judges import kappa_tau_figure
from dashboard.components.manysys import heatmap_figure
from dashboard.components.palette import NEGATIVE, NEUTRAL, POSITIVE
from dashboard.components.table import SHORT_ROWS, fit_height
from tests.apptest_kit import assert_clean, frame, keyed, open_page
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)


def test_a_short_table_is_tall_enough_for_every_row_and_a_long_one_scrolls():
    assert fit_height(17) == 38 + 35 * 17                  # 17 runs: the page scrolls, not the table
    assert fit_height(0) == 38 + 35 and fit_height(SHORT_ROWS, row_px=30) == 38 + 30 * SHORT_ROWS
    assert fit_height(SHORT_ROWS + 1) == "auto"


def test_signed_bars_name_each_colour_and_keep_the_bars_in_order():
    x = ["a", "b", "c", "d"]
    bars = signed_bars(x, [0.5, -0.1, 0.0, 0.2], names=("better", "worse", "tied"), outline=[0, 3, 0, 0],
                       customdata=[1, 2, 3, 4])
    got = {b.name: (b.marker.color, list(b.x), list(b.customdata), list(b.marker.line.width)) for b in bars}
    assert got == {"better": (POSITIVE, ["a", "d"], [1, 4], [0, 0]), "worse": (NEGATIVE, ["b"], [2], [3]),
                   "tied": (NEUTRAL, ["c"], [3], [0])}
    assert [b.name for b in signed_bars(x, [1, 2, 3, np.nan], names=("+", "-", "0"))] == ["+", "0"]


def test_kappa_against_tau_names_each_judge_in_the_legend_not_beside_its_marker():
    table = pd.DataFrame({"judge": ["willia-umbrela1", "h2oloo-fewself", "TREMA-nuggets"],
                          "cohen_kappa": [0.286, 0.277, 0.06], "kendall_tau": [0.467, 0.467, 0.333],
                          "tau_ap": [0.167, 0.167, 0.44]})
    fig = kappa_tau_figure(SimpleNamespace(table=table, measure="nDCG@10", reference="NIST"))
    assert [t.name for t in fig.data] == list(table["judge"]) and fig.layout.showlegend
    assert {t.mode for t in fig.data} == {"markers"}                       # no text to overlap or clip
    assert len({(t.marker.color, t.marker.symbol) for t in fig.data}) == 3


def test_per_topic_kappa_has_one_named_trace_per_band_in_topic_order():
    df = pd.DataFrame({"qid": ["7", "3", "9", "1"], "kappa": [0.1, 0.45, 0.6, 0.9], "n": [10, 20, 30, 40]})
    fig = topic_kappa_figure(df, topics={"7": "seven"})
    assert [t.name for t in fig.data] == [name for _, name, _ in KAPPA_BANDS] and fig.layout.showlegend
    assert [list(t.x) for t in fig.data] == [["7"], ["3"], ["9", "1"]]     # 0.6 is in the top band
    assert list(fig.layout.xaxis.categoryarray) == ["7", "3", "9", "1"]
    assert fig.data[0].customdata[0][0] == "seven"


def test_the_pairs_heatmap_puts_its_colour_bar_title_beside_the_bar():
    p = np.array([[np.nan, 0.01], [0.01, np.nan]])
    fig = heatmap_figure(SimpleNamespace(means=[0.3, 0.2], runs=["a", "b"], p=p, alpha=0.05, measure="AP"))
    assert fig.data[0].colorbar.title.side == "right"


@pytest.mark.xdist_group("apptest")
def test_the_measures_page_is_one_table_and_one_detail_pane(app):
    at = open_page(app, "measures")
    assert_clean(at)
    assert [e.label for e in at.expander] == ["Where Rankboard's number differs from a peer's, on purpose"]
    at.text_input(key="ms_filter").input("ndcg").run()
    first = frame(at, "ms_table")["Measure"].iloc[0]
    detail = keyed(at, "ms_detail")
    assert detail.markdown[0].value.startswith(f"**{md_escape(first)}**") and detail.latex
    assert keyed(at, "ms_stats_detail") is not None


@pytest.mark.xdist_group("apptest")
def test_an_open_topic_or_query_opens_the_tab_that_shows_it(app):
    at = open_page(app, "perquery", query="601")
    assert_clean(at)
    assert at.session_state["pq_tab"] == "Ranked lists of the open topic"
    assert frame(at, "pq_list_a_table") is not None
    at = open_page(app, "curves", query="601")
    assert_clean(at)
    assert at.session_state["cv_tab"] == "One query"
