"""End-to-end in Debian's chromium at 1280x720: a nuggets file and its assignments uploaded on the Data page (the
Nuggets tab), then the Per-query page's Nuggets view of a topic: every nugget's text whole and wrapped, every run a
column, nothing wider than the window and no cell cut."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.cases import nuggets as case

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

# every cell of the table whose content is wider or taller than the cell shows (cut, or scrolled inside it)
CUT_CELLS_JS = """(table) => [...table.querySelectorAll('th, td')]
    .filter(c => c.scrollWidth > c.clientWidth + 1 || c.scrollHeight > c.clientHeight + 1)
    .map(c => c.innerText)"""
WIDER_THAN_WINDOW_JS = "() => document.documentElement.scrollWidth > window.innerWidth"


def test_upload_nuggets_then_read_a_topics_matrix_at_1280x720(app, tmp_path):
    nuggets, assigned = case.write(tmp_path)
    app.goto("/data?collection=robust03-sample")
    app.page.get_by_role("tab", name="Nuggets").click()
    files = app.key("data_nuggets_files").locator('input[type="file"]')
    app.rerun_after(lambda: files.set_input_files(str(assigned)))
    button = app.key("data_nuggets_load").locator("button")
    expect(button).to_be_disabled()                       # not without the nuggets file
    app.rerun_after(lambda: app.key("data_nuggets_file").locator('input[type="file"]').set_input_files(str(nuggets)))
    expect(button).to_be_enabled()
    app.rerun_after(lambda: button.click())
    expect(app.page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded assignments.jsonl: 15 lines.")) \
        .to_be_visible()
    app.shot("nuggets_loaded")

    app.goto("/per-query?collection=robust03-sample&nugget_topic=t4")
    table = app.key("pq_nuggets").locator("table")
    expect(table).to_be_visible()
    expect(table.locator("td, th").filter(has_text=case.LONG)).to_have_count(1)      # the long nugget, whole
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    assert [h for h in headers if h] == ["Nugget", "Importance", *case.RUNS]
    assert table.evaluate(CUT_CELLS_JS) == []
    assert app.page.evaluate(WIDER_THAN_WINDOW_JS) is False
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280
    app.shot("nuggets_matrix_t4")

    app.choose("pq_nugget_topic", "t3")
    expect(table.locator("td").filter(has_text="BM25 saturates term frequency")).to_have_count(1)
    assert table.evaluate(CUT_CELLS_JS) == [] and app.page.evaluate(WIDER_THAN_WINDOW_JS) is False
    app.shot("nuggets_matrix_t3")

    app.choose("pq_nugget_topic", "t2")                  # markdown and HTML in a nugget's text show literally
    cells = [t.strip() for t in table.locator("tbody tr").last.locator("td, th").all_inner_texts()]
    assert case.MARKUP in cells, cells
    assert table.locator("b, em, a").count() == 0
    app.assert_healthy()
