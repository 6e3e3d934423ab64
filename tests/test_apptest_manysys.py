"""AppTest of the many-runs views (issue 15): the Measures page documents the statistics, and the
Leaderboard shows rank intervals, letters, the runs x runs heatmap and the risk views."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures_store import sample_store
from tests.test_apptest import APP, TIMEOUT, assert_clean, frame, open_page

pytestmark = pytest.mark.xdist_group("apptest")   # one worker: the pages share Streamlit's caches


@pytest.fixture(scope="module")
def store_path(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("apptest_manysys")
    sample_store(tmp).close()
    return str(tmp / "sample.duckdb")


@pytest.fixture
def app(store_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_STORE", store_path)
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def test_measures_page_documents_risk_and_rank_statistics(app):
    at = open_page(app, "measures")
    assert_clean(at)
    names = list(frame(at, "ms_stats_table")["Statistic"])
    assert {"TRisk", "URisk", "GeoRisk", "Tukey HSD (two-way)", "Rank interval", "Compact letters"} <= set(names)
    at.text_input(key="ms_filter").input("risk").run()
    assert set(frame(at, "ms_stats_table")["Statistic"]) == {"URisk", "TRisk", "GeoRisk"}
    assert any(r"(1+\alpha)\,\delta_t" in str(e.value) for e in at.latex)          # URisk's formula
