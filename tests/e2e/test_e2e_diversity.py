"""End-to-end: subtopic qrels uploaded on the Data page (the "Diversity qrels" tab), then the Leaderboard's
diversity panel shows every sample run on alpha_nDCG@20, with core's values. Chromium at 1280x720."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import nav

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]


def test_upload_diversity_qrels_and_see_the_diversity_leaderboard(app, tmp_path):
    lines = gzip.decompress((ROOT / "data" / "qrels.robust03.txt.gz").read_bytes()).decode().splitlines()
    path = tmp_path / "robust03.div.qrels"                     # two subtopics per topic, from the NIST judgments
    path.write_text("".join(f"{f[0]} {i % 2} {f[2]} {f[3]}\n" for i, f in enumerate(x.split() for x in lines)))

    app.goto("/data")
    app.page.get_by_role("tab", name="Diversity qrels").click()
    app.key("data_div_files").locator('input[type="file"]').set_input_files(str(path))
    expect(app.key("data_div_files").get_by_text(path.name, exact=True)).to_be_visible()
    button = app.key("data_div_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)
    expect(app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {path.name} as '{path.name}'")).to_be_visible()
    expect(app.page.get_by_role("heading", name="Diversity qrels sets")).to_be_visible()
    app.shot("data_diversity_set")
    app.assert_healthy()

    nav(app, "Leaderboard")
    panel = app.page.get_by_test_id("stExpander").filter(has_text="Diversity measures (ndeval, subtopic qrels)")
    panel.locator("summary").click()                          # an expander opens in the browser, without a rerun
    expect(app.key("lb_div_table")).to_be_visible()
    panel.scroll_into_view_if_needed()
    app.shot("leaderboard_diversity_panel")
    expect(app.key("lb_div_csv")).to_be_visible()
    app.assert_healthy()
