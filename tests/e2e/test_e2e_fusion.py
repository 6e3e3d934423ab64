"""End-to-end: two stored runs fused on the Fusion page, the table read back through its CSV download, the fused run
saved, then seen on the Leaderboard and, with its provenance, on the Data page, in Debian's chromium at 1280x720."""
from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import nav

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

VIEW = "/fusion?collection=robust03-sample&parts=aplrob03a&parts=UIUC03Rd1&measures=AP&measures=nDCG%4010"


def grid_texts(app, key: str) -> list[str]:
    """The cells of a keyed table as its accessibility table holds them (the table itself is a canvas)."""
    return [t.strip() for t in app.key(key).locator('table[role="grid"] td').all_inner_texts()]


def test_fuse_two_stored_runs_save_and_see_them_everywhere(app):
    app.goto(VIEW)
    expect(app.page.get_by_role("heading", name="Fusion")).to_be_visible()
    expect(app.key("fu_table")).to_be_visible()
    expect(app.key("fu_chart").locator(".js-plotly-plot")).to_be_visible()
    app.shot("fusion_page")
    app.assert_healthy()
    with app.page.expect_download() as got:
        app.key("fu_download_csv").locator("button").click()
    rows = list(csv.DictReader(io.StringIO(open(got.value.path(), encoding="utf-8").read())))
    runs = [r[next(iter(r))] for r in rows]
    assert "fused" in runs and len(runs) == 3
    assert {r.removesuffix(" (baseline)") for r in runs} == {"fused", "aplrob03a", "UIUC03Rd1"}

    name = app.key("fu_save_name").locator("input")
    name.fill("rrf-e2e")
    app.rerun_after(lambda: app.key("fu_save_button").locator("button").click())
    expect(app.page.get_by_test_id("stAlert").filter(has_text="Saved run rrf-e2e")).to_be_visible()
    app.shot("saved")
    app.assert_healthy()

    nav(app, "Leaderboard")
    expect(app.key("lb_table")).to_be_visible()
    assert "rrf-e2e" in app.settled(lambda: app.tags("lb_runs"), app.tags("lb_runs"))
    assert "rrf-e2e" in app.settled(lambda: grid_texts(app, "lb_table"), None, timeout_s=5)
    app.shot("leaderboard")

    nav(app, "Data")
    expect(app.key("data_runs_table")).to_be_visible()
    cells = app.settled(lambda: grid_texts(app, "data_runs_table"), None, timeout_s=5)
    assert "rrf-e2e" in cells
    assert "rrf (min-max, k=60) of aplrob03a, UIUC03Rd1" in cells
    app.shot("data_provenance")
    app.assert_healthy()
