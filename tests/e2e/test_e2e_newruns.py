"""New runs appear, and clicks that take, in Debian's chromium at 1280x720 against a real `streamlit run`:

- the Leaderboard's default selection (all runs) is not pinned in the URL, so runs loaded with `python -m core
  load` show after a reload of the same tab, and after "Show the new data", without any picking;
- a picked selection stays pinned in the URL, and "Show the new data" offers the new runs instead of adding them;
- "Copy link" pins the runs shown;
- Per-query starts from the Leaderboard's runs and baseline; a click anywhere on a row of its topic table opens the
  topic, and the open topic's row is marked;
- Rename takes one click straight after typing.
"""
from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import nav, run_names_on_data_page

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "robust03-sample"
SAMPLE_RUNS = ["pircRBa1", "aplrob03a", "UIUC03Rd1", "MU03rob01", "humR03dc"]


def cli_load(store: Path, tmp: Path, *names: str) -> None:
    """`python -m core load` of runs named `names` into the sample (a sample run cut to 20 topics, re-tagged)."""
    lines = gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes()).decode().splitlines()
    keep = set(list(dict.fromkeys(line.split()[0] for line in lines))[:20])
    args = []
    for name in names:
        path = tmp / f"{name}.run"
        path.write_text("".join(" ".join(line.split()[:5] + [name]) + "\n" for line in lines
                                if line.split()[0] in keep))
        args += ["--run", str(path)]
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", SAMPLE,
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def url_runs(app) -> list[str]:
    return parse_qs(urlparse(app.page.url).query).get("runs", [])


def reload(app) -> None:
    """The browser's reload of the same tab (a new session on the same URL), once its first run is done."""
    app.page.reload()
    app.page.wait_for_selector('[data-testid="stApp"]')
    app.page.wait_for_function("() => window.__e2eRuns >= 1")
    app.wait_idle()


def show_new_data(app) -> None:
    notice = app.page.get_by_test_id("stAlert").filter(has_text="New data in the store")
    expect(notice).to_be_visible(timeout=30_000)       # the page notices by itself
    app.rerun_after(lambda: app.page.get_by_role("button", name="Show the new data").click())


def test_a_reload_shows_runs_loaded_from_the_command_line(app, server, tmp_path):
    app.goto(f"/?collection={SAMPLE}")
    assert app.settled(lambda: app.tags("lb_runs"), SAMPLE_RUNS) == SAMPLE_RUNS
    assert url_runs(app) == []                          # the default (all runs) is not pinned in the URL
    assert "measures=" in app.page.url
    cli_load(server.store, tmp_path, "cli-a", "cli-b", "cli-c")
    reload(app)
    want = SAMPLE_RUNS + ["cli-a", "cli-b", "cli-c"]
    assert app.settled(lambda: app.tags("lb_runs"), want) == want
    app.shot("reloaded_with_new_runs")
    assert url_runs(app) == []
    # in the open tab, "Show the new data" adds a run loaded now to the unchanged view
    cli_load(server.store, tmp_path, "cli-d")
    show_new_data(app)
    assert app.settled(lambda: app.tags("lb_runs"), want + ["cli-d"]) == want + ["cli-d"]
    expect(app.key("lb_new_runs")).to_have_count(0)
    app.assert_healthy()


def test_a_picked_selection_stays_pinned_and_is_offered_new_runs(app, server, tmp_path):
    app.goto(f"/?collection={SAMPLE}")
    app.wait_idle()
    before = app.tags("lb_runs")
    app.rerun_after(lambda: app.key("lb_runs").get_by_role("button", name="Remove humR03dc").click())
    picked = [r for r in before if r != "humR03dc"]
    assert app.settled(lambda: url_runs(app), picked) == picked         # picked: pinned in the URL
    cli_load(server.store, tmp_path, "cli-picked")
    show_new_data(app)
    offer = app.key("lb_new_runs")
    expect(offer).to_be_visible()
    expect(offer.get_by_text("not among the runs you picked: cli-picked.")).to_be_visible()
    assert app.tags("lb_runs") == picked and url_runs(app) == picked    # offered, not added
    app.shot("new_runs_offered")
    app.rerun_after(lambda: app.key("lb_new_runs_add").locator("button").click())
    assert app.settled(lambda: app.tags("lb_runs"), picked + ["cli-picked"]) == picked + ["cli-picked"]
    assert app.settled(lambda: url_runs(app), picked + ["cli-picked"]) == picked + ["cli-picked"]
    expect(app.key("lb_new_runs")).to_have_count(0)
    reload(app)                                                           # the link keeps the pick
    assert app.settled(lambda: app.tags("lb_runs"), picked + ["cli-picked"]) == picked + ["cli-picked"]
    app.assert_healthy()


def test_copy_link_pins_the_runs_shown(app):
    app.goto(f"/?collection={SAMPLE}")
    shown = app.tags("lb_runs")
    assert url_runs(app) == []
    app.rerun_after(lambda: app.key("sidebar_link").get_by_role("button", name="Copy link").click())
    code = app.page.get_by_test_id("stSidebar").get_by_test_id("stCode")
    expect(code).to_be_visible()
    link = code.inner_text().strip()
    assert parse_qs(urlparse(link).query)["runs"] == shown, link
    assert link.startswith(app.server.url)
    assert app.settled(lambda: url_runs(app), shown) == shown
    app.shot("copy_link")
    app.assert_healthy()


def test_per_query_starts_from_the_leaderboards_runs_and_baseline(app):
    app.goto(f"/per-query?collection={SAMPLE}")                  # an earlier visit leaves its own pair behind
    earlier = (app.selected("pq_baseline"), app.selected("pq_run"))
    assert earlier != ("aplrob03a", "humR03dc")
    nav(app, "Leaderboard")
    for run in [r for r in app.tags("lb_runs") if r not in ("humR03dc", "aplrob03a")]:
        app.rerun_after(lambda: app.key("lb_runs").get_by_role("button", name=f"Remove {run}").click())
    app.choose("lb_baseline", "aplrob03a")
    assert app.tags("lb_runs") == ["aplrob03a", "humR03dc"]
    nav(app, "Per-query")
    assert app.settled(lambda: (app.selected("pq_baseline"), app.selected("pq_run")),
                       ("aplrob03a", "humR03dc")) == ("aplrob03a", "humR03dc")
    expect(app.page.get_by_text(re.compile(r"humR03dc vs baseline aplrob03a"))).to_be_visible()
    app.shot("per_query_from_leaderboard")
    app.assert_healthy()


def _row(app, i: int):
    """Row i (0-based) of the Per-query topic table, in the grid's accessible table (aria-rowindex 1 is the header)."""
    return app.key("pq_table").locator(f'tr[aria-rowindex="{i + 2}"]')


def _row_qid(app, i: int) -> str:
    return _row(app, i).locator('td[aria-colindex="1"]').text_content().strip()


def _click_row(app, i: int) -> None:
    """A click on row i's Query cell (not its checkbox), where the canvas draws it: the grid's rows (header
    included) share the height of its scroll area evenly."""
    grid = app.key("pq_table").get_by_test_id("stDataFrame")
    box = grid.bounding_box()
    height = app.page.evaluate("""() => {
        const root = document.querySelector('.st-key-pq_table');
        const rows = Number(root.querySelector('table[role="grid"]').getAttribute('aria-rowcount'));
        const stack = root.querySelector('.dvn-scroll-inner .dvn-stack');
        return stack.scrollHeight / rows; }""")
    app.rerun_after(lambda: app.page.mouse.click(box["x"] + 160, box["y"] + height * (i + 1.5)))


def test_a_click_on_a_row_opens_its_topic_and_marks_it(app):
    app.goto(f"/per-query?collection={SAMPLE}&baseline=pircRBa1&run=aplrob03a&measure=AP")
    app.page.get_by_role("tab", name=re.compile("Topics, most different first")).click()
    expect(app.key("pq_table").get_by_test_id("stDataFrame")).to_be_visible()
    qid = _row_qid(app, 2)
    _click_row(app, 2)
    expect(app.combobox("pq_query")).to_have_value(re.compile(rf"^{re.escape(qid)}:"))
    expect(app.page.get_by_role("heading", name=re.compile(rf"Topic {re.escape(qid)} "))).to_be_visible()
    app.page.get_by_role("tab", name=re.compile("Topics, most different first")).click()   # the click opened the lists
    expect(_row(app, 2)).to_have_attribute("aria-selected", "true")     # the open topic is marked
    app.shot("row_clicked")
    # a topic opened another way (the Query box) is marked in the table too
    first = _row_qid(app, 0)
    app.choose("pq_query", f"{first}:")
    app.page.get_by_role("tab", name=re.compile("Topics, most different first")).click()
    expect(_row(app, 0)).to_have_attribute("aria-selected", "true")
    expect(_row(app, 2)).to_have_attribute("aria-selected", "false")
    app.assert_healthy()


def test_rename_takes_one_click(app, server, tmp_path):
    cli_load(server.store, tmp_path, "cli-rename")
    app.goto(f"/data?collection={SAMPLE}")
    assert "cli-rename" in run_names_on_data_page(app)
    app.choose("data_manage_run", "cli-rename")
    app.key("data_rename_to").locator("input").fill("renamed-in-one-click")   # typed, no Enter
    app.key("data_rename").locator("button").click()                          # one click
    names = app.settled(lambda: "renamed-in-one-click" in run_names_on_data_page(app), True)
    assert names is True
    assert "cli-rename" not in run_names_on_data_page(app)
    expect(app.page.get_by_text("Could not change the run")).to_have_count(0)
    app.assert_healthy()
