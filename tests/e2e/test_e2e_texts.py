"""Clicks in Debian's chromium whose outcome is a text or a file: the Leaderboard's downloads list the runs in the
table's rank order (with and without a baseline); a load empties the uploader, so the next click cannot load the
same files again; long work shows a spinner, and Streamlit's "Running..." indicator, while it runs."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

UI_WAIT_MS = 120_000


def _download(app, key: str) -> str:
    with app.page.expect_download() as dl:
        app.key(key).locator("button").click()
    return Path(dl.value.path()).read_text()


def _latex_runs(latex: str, runs: set[str]) -> list[str]:
    """The runs in the order the LaTeX table's rows name them."""
    rows = [line.split(" & ")[0].replace(" (baseline)", "") for line in latex.splitlines() if " & " in line]
    return [r for r in rows if r in runs]


def test_the_downloads_list_the_runs_in_the_tables_rank_order(app):
    app.goto("/?measures=P%4010&measures=AP&baseline=humR03dc")
    expect(app.page.get_by_test_id("stCaptionContainer").filter(has_text="significantly better / worse than")) \
        .to_be_visible()
    rows = list(csv.DictReader(io.StringIO(_download(app, "lb_download_csv"))))
    p10 = {r["run"]: float(r["mean"]) for r in rows if r["measure"] == "P@10"}
    ranked = sorted(p10, key=lambda r: -p10[r])                 # best first on the table's first measure
    assert list(dict.fromkeys(r["run"] for r in rows)) == ranked, rows
    assert ranked != sorted(ranked) and ranked[0] != "humR03dc"  # neither the names' order nor baseline first
    assert _latex_runs(_download(app, "lb_download_latex"), set(ranked)) == ranked

    app.goto("/?measures=P%4010&measures=AP")                   # no baseline: the table itself is exported
    expect(app.key("lb_table").get_by_test_id("stDataFrame")).to_be_visible()
    table = list(csv.DictReader(io.StringIO(_download(app, "lb_download_csv"))))
    assert [r["Run"] for r in table] == ranked, table
    assert _latex_runs(_download(app, "lb_download_latex"), set(ranked)) == ranked
    app.assert_healthy()


def _run_file(tmp_path: Path, name: str, *, topics: int, depth: int) -> Path:
    tag = name.split(".")[0]
    path = tmp_path / name
    path.write_text("".join(f"{600 + t} Q0 D{t}-{d} {d + 1} {depth - d} {tag}\n"
                            for t in range(topics) for d in range(depth)))
    return path


SEEN_JS = """() => {
  window.__seen = {spinner: false, running: false, stop: false};
  const look = () => {
    const spinner = document.querySelector('[data-testid="stSpinner"]');
    if (spinner && spinner.innerText.includes("Reading and storing")) window.__seen.spinner = true;
    if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) window.__seen.running = true;
    const widget = document.querySelector('[data-testid="stStatusWidget"]');
    if (widget && [...widget.querySelectorAll("button")].some(b => b.innerText.includes("Stop"))) window.__seen.stop = true;
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                     attributes: true});
}"""


def test_a_load_shows_a_spinner_then_empties_the_uploader(app, tmp_path):
    big = _run_file(tmp_path, "spinner_big.run", topics=600, depth=2500)   # 1.5M lines: long enough to see
    app.goto("/data?collection=robust03-sample")
    uploader = app.key("data_runs_files")
    uploader.locator('input[type="file"]').set_input_files(str(big))
    expect(uploader.get_by_text(big.name, exact=True)).to_be_visible(timeout=UI_WAIT_MS)
    button = app.key("data_runs_load").locator("button")
    expect(button).to_be_enabled()
    # the spinner and Streamlit's Running indicator (with its Stop button, top right: the app's About menu item keeps
    # the top bar) are recorded whenever they show, however briefly: a fast machine loads this file in a second
    app.page.evaluate(SEEN_JS)
    button.click()
    loaded = app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {big.name} as 'spinner_big'")
    expect(loaded).to_be_visible(timeout=UI_WAIT_MS)
    assert app.page.evaluate("() => window.__seen") == {"spinner": True, "running": True, "stop": True}
    app.wait_idle()
    expect(app.page.get_by_test_id("stSpinner")).to_have_count(0)
    # the uploader is empty again: no file chip, and the load button is off until files are chosen
    expect(app.key("data_runs_files").get_by_test_id("stFileChipDeleteBtn")).to_have_count(0)
    expect(app.key("data_runs_files").get_by_text(big.name, exact=True)).to_have_count(0)
    expect(app.key("data_runs_load").locator("button")).to_be_disabled()
    expect(loaded).to_be_visible()                                         # the outcome stays on the page
    app.shot("uploader_empty_after_load")

    small = _run_file(tmp_path, "after_big.run", topics=5, depth=10)     # the new uploader takes new files
    app.key("data_runs_files").locator('input[type="file"]').set_input_files(str(small))
    expect(app.key("data_runs_files").get_by_text(small.name, exact=True)).to_be_visible(timeout=UI_WAIT_MS)
    app.rerun_after(app.key("data_runs_load").locator("button").click)
    expect(app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {small.name}")).to_be_visible(
        timeout=UI_WAIT_MS)
    alerts = " | ".join(app.page.get_by_test_id("stAlert").all_inner_texts())
    assert "spinner_big" not in alerts, alerts                            # the big run was not loaded again
    app.assert_healthy()
