"""Cost beside effectiveness in the browser: runs loaded from the command line whose ir_metadata headers carry
latency_ms show on the Leaderboard's Cost tab with the Pareto front drawn and listed, and a run without cost data
is listed as "no cost data", not dropped. Debian's chromium at 1280x720; screenshots in a temporary folder
(tests/e2e/conftest.py)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

QRELS = "".join(f"{q} 0 d1 1\n{q} 0 d2 0\n{q} 0 d3 0\n" for q in (1, 2, 3))
# the relevant document's rank in each run gives its AP (1, 1/2, 1/3); the header its latency
RUNS = {"fast": (2, 10), "exact": (1, 100), "slow": (3, 50), "costly": (1, 200), "plain": (1, None)}


def run_text(tag: str, rank_of_d1: int, latency) -> str:
    header = ("# ir_metadata.start\n# system: demo\n# cost:\n"
              f"#   latency_ms: {latency}\n# ir_metadata.end\n") if latency is not None else ""
    order = ["d2", "d3"]
    order.insert(rank_of_d1 - 1, "d1")
    return header + "".join(f"{q} Q0 {d} {i + 1} {3 - i} {tag}\n" for q in (1, 2, 3) for i, d in enumerate(order))


def load(store, tmp_path, collection: str = "costs") -> None:
    """The qrels and the five runs into `collection`, from the command line (once per server)."""
    listed = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "list"], cwd=ROOT,
                            capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    if f"\n{collection} (id" in "\n" + listed.stdout:
        return
    (tmp_path / "qrels.txt").write_text(QRELS)
    args = ["--qrels", str(tmp_path / "qrels.txt")]
    for tag, (rank, latency) in RUNS.items():
        (tmp_path / f"{tag}.run").write_text(run_text(tag, rank, latency))
        args += ["--run", str(tmp_path / f"{tag}.run")]
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", collection,
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr


def test_the_cost_tab_shows_the_pareto_front_and_runs_without_cost(app, server, tmp_path):
    load(server.store, tmp_path)
    app.goto("/?collection=costs&measures=AP&cost_measure=AP")
    app.page.get_by_role("tab", name="Cost").click()
    sel = ".st-key-lb_cost_chart .js-plotly-plot"
    app.page.wait_for_function(f"() => {{ const d = document.querySelector('{sel}'); "
                               "return d && Array.isArray(d.data) && d.data.length == 2; }")
    traces = app.page.evaluate(f"""() => Array.from(document.querySelector('{sel}').data,
        t => [t.name, Array.from(t.x), Array.from(t.y), Array.from(t.text)])""")
    by_name = {t[0]: t[1:] for t in traces}
    x, y, labels = by_name["Pareto front"]
    assert labels == ["fast", "exact"] and x == [10, 100] and y == pytest.approx([0.5, 1.0])
    assert sorted(by_name["dominated by another run"][2]) == ["costly", "slow"]
    lists = app.key("lb_cost_lists")
    expect(lists.get_by_text(re.compile(r"On the Pareto front"))).to_be_visible()
    expect(lists.get_by_text(re.compile(r"no cost data \(latency_ms\): plain"))).to_be_visible()
    app.key("lb_cost_chart").scroll_into_view_if_needed()
    app.shot("cost_tab_pareto_front")
    app.assert_healthy()


def test_cost_columns_are_offered_and_kept_in_the_link(app, server, tmp_path):
    load(server.store, tmp_path)
    app.goto("/?collection=costs&measures=AP&cost=latency_ms")
    assert app.tags("lb_cost_columns") == ["latency_ms"]
    rows = app.key("lb_table").locator('[role="row"]')
    expect(rows.nth(1)).to_be_attached()
    header = [c.strip() for c in rows.first.locator('[role="columnheader"]').all_inner_texts()]
    assert "latency_ms" in header
    cells = {r[0]: r for r in ([c.strip() for c in row.locator('[role="gridcell"], [role="columnheader"]')
                                .all_inner_texts()] for row in rows.all()[1:])}
    col = header.index("latency_ms")
    assert cells["fast"][col] == "10" and cells["plain"][col] == "–"
    app.shot("cost_columns")
    app.assert_healthy()


def test_a_cost_typed_on_the_data_page_moves_the_front(app, server, tmp_path):
    """An editor gives the run without cost a latency on the Data page; the Cost tab then plots it: as fast as any
    and as good as the best, it alone is the front, and no run is left without cost data."""
    load(server.store, tmp_path, "costs-edited")          # a collection of its own: the edit changes its front
    app.goto("/data?collection=costs-edited")
    app.page.get_by_test_id("stExpander").filter(has_text="Edit a run's lineage and cost").locator("summary").click()
    expect(app.key("data_meta_run")).to_be_visible()
    app.choose("data_meta_run", "plain")
    app.key("data_meta_latency_ms").locator("input").fill("5")       # typed, no Enter: the click sends it
    app.rerun_after(lambda: app.key("data_meta_save").locator("button").click())
    expect(app.page.get_by_text("Could not save the metadata")).to_have_count(0)
    app.shot("data_page_cost_saved")
    app.goto("/?collection=costs-edited&measures=AP&cost_measure=AP")
    app.page.get_by_role("tab", name="Cost").click()
    sel = ".st-key-lb_cost_chart .js-plotly-plot"
    read = f"""() => {{ const d = document.querySelector('{sel}');
        return d ? Array.from(d.data.find(t => t.name === 'Pareto front').text) : null; }}"""
    assert app.settled(lambda: app.page.evaluate(read), ["plain"]) == ["plain"]
    expect(app.key("lb_cost_lists").get_by_text(re.compile("no cost data"))).to_have_count(0)
    app.assert_healthy()
