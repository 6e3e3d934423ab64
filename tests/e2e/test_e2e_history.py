"""The History page in Debian's chromium at 1280x720 against a real `streamlit run`: four versions of one system,
loaded from the command line with `--system` and `--version`, show as four points in version order (v1, v2, v9,
v10: natural order, not text order), the significant step (v2 -> v9) is marked ▲ and picked, a click on a point picks
the step into its version, and a click on a row of the step's topic list opens Per-query on that pair and topic."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.cases.versions import SYSTEM, load_args

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "robust03-sample"


def _row(app, i: int):
    """Row i (0-based) of the step's topic list, in the grid's accessible table (aria-rowindex 1 is the header)."""
    return app.key("hi_topics").locator(f'tr[aria-rowindex="{i + 2}"]')


def _click_row(app, i: int) -> None:
    """A click on row i's Query cell, where the canvas draws it (the rows share the scroll area's height)."""
    grid = app.key("hi_topics").get_by_test_id("stDataFrame")
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    height = app.page.evaluate("""() => {
        const root = document.querySelector('.st-key-hi_topics');
        const rows = Number(root.querySelector('table[role="grid"]').getAttribute('aria-rowcount'));
        const stack = root.querySelector('.dvn-scroll-inner .dvn-stack');
        return stack.scrollHeight / rows; }""")
    app.rerun_after(lambda: app.page.mouse.click(box["x"] + 160, box["y"] + height * (i + 1.5)))


def _click_point(app, i: int) -> None:
    """A click on the centre of version i's marker (plotly's drag layer takes the pointer: the mouse, as a user)."""
    point = app.key("hi_chart").locator(".scatterlayer .point").nth(i)
    point.scroll_into_view_if_needed()
    b = point.bounding_box()
    app.rerun_after(lambda: app.page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2))


def test_four_versions_in_order_a_marked_step_and_its_topics_open_per_query(app, server, tmp_path):
    app.goto(f"/history?collection={SAMPLE}")          # the store is made with the samples on the first visit
    expect(app.page.get_by_text(re.compile("has a system yet"))).to_be_visible()
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(server.store), "load", "--collection", SAMPLE,
                           *load_args(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    app.goto(f"/history?collection={SAMPLE}")
    chart = app.key("hi_chart")
    expect(chart.locator(".scatterlayer .point")).to_have_count(4)
    assert [t.text_content() for t in chart.locator(".xtick text").all()] == ["v1", "v2", "v9", "v10"]
    expect(chart.locator(".scatterlayer .textpoint").filter(has_text="▲")).to_have_count(1)
    assert app.selected("hi_step").startswith(f"{SYSTEM}: v2 → v9 ▲")
    app.shot("history_marked_step")
    expect(app.key("hi_topics").get_by_test_id("stDataFrame")).to_be_visible()
    qid = _row(app, 0).locator('td[aria-colindex="1"]').text_content().strip()
    _click_row(app, 0)
    expect(app.page).to_have_url(re.compile(r"/per-query\?"))
    app.wait_idle()
    assert app.settled(lambda: (app.selected("pq_baseline"), app.selected("pq_run")),
                       (f"{SYSTEM}-v2", f"{SYSTEM}-v9")) == (f"{SYSTEM}-v2", f"{SYSTEM}-v9")
    expect(app.combobox("pq_query")).to_have_value(re.compile(rf"^{re.escape(qid)}:"))
    expect(app.page.get_by_role("heading", name=re.compile(rf"Topic {re.escape(qid)} "))).to_be_visible()
    app.shot("per_query_from_history")
    app.assert_healthy()
    app.goto(f"/history?collection={SAMPLE}")
    _click_point(app, 3)                                # a click on a version's point picks the step into it
    want = f"{SYSTEM}: v9 → v10"
    assert app.settled(lambda: app.selected("hi_step").split(" (")[0], want) == want
    expect(app.page.get_by_text(f"Topics that moved most from {SYSTEM}-v9 to {SYSTEM}-v10")).to_be_visible()
    app.assert_healthy()
