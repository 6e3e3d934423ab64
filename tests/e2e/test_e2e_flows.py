"""End-to-end flows in Debian's chromium at 1280x720, against `streamlit run` on a fresh
store seeded with the sample collection (5 Robust 2003 runs). Screenshots: a temporary folder
(tests/e2e/conftest.py)."""
from __future__ import annotations

import csv
import gzip
import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.errors import UploadError
from core.formats import read_run
from tests.cases.reference import ROBUST, reference_text
from tests.e2e.conftest import nav, run_names_on_data_page

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RUNS = ["pircRBa1", "aplrob03a", "UIUC03Rd1", "MU03rob01", "humR03dc"]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def plotly_traces(app, key: str) -> list[str]:
    """Trace names of the plotly chart in the keyed container, once plotly has drawn it."""
    sel = f".st-key-{key} .js-plotly-plot"
    app.page.wait_for_function(f"() => {{ const d = document.querySelector('{sel}'); "
                               "return d && Array.isArray(d.data) && d.data.length > 0; }")
    return app.page.evaluate(f"() => document.querySelector('{sel}').data.map(t => t.name)")


def upload_run(app, path: Path) -> None:
    app.key("data_runs_files").locator('input[type="file"]').set_input_files(str(path))
    expect(app.key("data_runs_files").get_by_text(path.name, exact=True)).to_be_visible()
    button = app.key("data_runs_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)


# --- 1 ------------------------------------------------------------------------------------------
def test_upload_run_without_extension_appears_on_leaderboard(app, tmp_path):
    lines = reference_text(f"{ROBUST}/runs/input.InexpC2.gz").splitlines(keepends=True)   # not in the sample
    topics = list(dict.fromkeys(line.split()[0] for line in lines))[:5]
    body = "".join(line for line in lines if line.split()[0] in topics).encode()
    path = tmp_path / "inexpc2_five_topics"          # no extension, as TREC runs often come
    path.write_bytes(body)
    name = read_run(body, filename=path.name).tag     # core names the run after its tag
    assert name and name not in SAMPLE_RUNS

    app.goto("/data")
    app.shot("data_page")
    upload_run(app, path)
    expect(app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {path.name} as '{name}'")).to_be_visible()
    app.wait_idle()
    app.shot("after_load")
    assert name in run_names_on_data_page(app)
    app.assert_healthy()

    nav(app, "Leaderboard")
    expect(app.page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    assert name in app.tags("lb_runs"), app.tags("lb_runs")
    assert "runs=" not in app.page.url     # the default (all runs, the new one too) is not pinned in the URL
    ci = app.page.evaluate("() => document.querySelector('.st-key-lb_ci_chart .js-plotly-plot').data[0].x")
    assert name in ci, ci
    app.shot("leaderboard_with_new_run")
    app.assert_healthy()

    # a fresh session on the landing page shows it too (default: all runs)
    app.goto("/")
    assert name in app.tags("lb_runs")
    app.assert_healthy()


# --- 2 ------------------------------------------------------------------------------------------
LEGEND = re.compile(r"▲ / ▼: significantly better / worse than (?P<base>\S+) \((?P<up>\d+) ▲, (?P<down>\d+) ▼ here\)")


def test_choosing_a_baseline_shows_significance_markers(app):
    app.goto("/")
    captions = app.page.get_by_test_id("stCaptionContainer")
    expect(captions.filter(has_text="Pick a baseline")).to_be_visible()
    assert not captions.filter(has_text="▲").count()
    app.shot("no_baseline")

    app.choose("lb_baseline", "humR03dc")
    assert app.selected("lb_baseline") == "humR03dc"
    legend = captions.filter(has_text="significantly better / worse than")
    expect(legend).to_be_visible()
    text = _norm(legend.inner_text())
    m = LEGEND.search(text)
    assert m, text
    assert m["base"] == "humR03dc"
    assert int(m["up"]) + int(m["down"]) > 0, f"no significant cell against humR03dc: {text}"
    expect(app.page).to_have_url(re.compile(r"baseline=humR03dc\b"))
    app.shot("baseline_markers")
    app.assert_healthy()


def test_leaderboard_csv_download_carries_every_interval(app):
    """With a baseline, the Leaderboard's CSV is built when the button is clicked (the view itself bootstraps
    only the chart's measure): every run and measure row of the download has its 95% CI."""
    app.goto("/?baseline=humR03dc")
    expect(app.page.get_by_test_id("stCaptionContainer").filter(has_text="significantly better / worse than")) \
        .to_be_visible()
    with app.page.expect_download() as dl:
        app.key("lb_download_csv").locator("button").click()
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    runs = {r["run"] for r in rows}                 # earlier flows may have uploaded runs to the shared store
    assert set(SAMPLE_RUNS) <= runs, rows[:2]
    assert len({r["measure"] for r in rows}) == 5 and len(rows) == 5 * len(runs)
    for r in rows:
        low, mean, high = float(r["ci_low"]), float(r["mean"]), float(r["ci_high"])
        assert low <= mean <= high and low < high, r
    assert dl.value.suggested_filename.endswith("_vs_humR03dc.csv")
    app.assert_healthy()


# --- 3 ------------------------------------------------------------------------------------------
def test_opening_a_query_shows_both_ranked_lists(app):
    app.goto("/per-query")
    run_a, run_b = app.selected("pq_baseline"), app.selected("pq_run")
    assert run_a and run_b and run_a != run_b
    expect(app.key("pq_chart").locator(".js-plotly-plot")).to_be_visible()
    expect(app.key("pq_list_a")).to_have_count(0)
    app.shot("before_query")

    options = app.options("pq_query")
    assert len(options) > 1, options
    qid = options[1].split(":")[0]
    app.choose("pq_query", f"{qid}:")
    assert app.selected("pq_query").startswith(f"{qid}:")
    expect(app.page).to_have_url(re.compile(rf"query={qid}\b"))  # the URL follows the rerun

    for key, caption in (("pq_list_a", f"{run_a} (baseline) · score"), ("pq_list_b", f"{run_b} · score")):
        box = app.key(key)
        expect(box).to_be_visible()
        expect(box.get_by_text(caption)).to_be_visible()
        expect(app.key(f"{key}_table").get_by_test_id("stDataFrame")).to_be_visible()
    a_box, b_box = app.key("pq_list_a").bounding_box(), app.key("pq_list_b").bounding_box()
    assert a_box["x"] + a_box["width"] <= b_box["x"] + 1 and abs(a_box["y"] - b_box["y"]) < 5, (a_box, b_box)
    app.key("pq_list_a").scroll_into_view_if_needed()
    app.shot("two_lists")

    # the tables are canvas: read the doc ids they show from the page's own "both lists" CSV
    with app.page.expect_download() as dl:
        app.key("pq_lists_csv").locator("button").click()
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    for role, run in (("baseline", run_a), ("compared", run_b)):
        docs = [r["docno"] for r in rows if r["role"] == role and r["run"] == run and r["topic"] == qid]
        assert docs and all(docs), (role, run, rows[:3])
        ref = gzip.decompress((ROOT / "data" / "runs" / f"input.{run}.gz").read_bytes()).decode()
        in_run = {f[2] for f in (line.split() for line in ref.splitlines()) if f and f[0] == qid}
        assert set(docs) <= in_run, f"{run}: docs not in its run for topic {qid}"

    # clicking a bar opens that topic instead (plotly's drag layer takes the pointer: click the bar's
    # centre with the mouse, as a user does); the tallest bar other than the open topic. An open topic shows
    # the lists' tab, so the chart's tab comes first; the click opens the lists' tab again
    app.rerun_after(lambda: app.page.get_by_role("tab", name="Δ per topic (click a bar)").click())
    data = app.page.evaluate("() => { const d = document.querySelector('.st-key-pq_chart .js-plotly-plot')"
                             "._fullData[0]; return [Array.from(d.x), Array.from(d.y)]; }")
    i = max((k for k, q in enumerate(data[0]) if q != qid), key=lambda k: abs(data[1][k]))
    target = data[0][i]
    bar = app.key("pq_chart").locator(".point path").nth(i)
    bar.scroll_into_view_if_needed()
    b = bar.bounding_box()
    app.rerun_after(lambda: app.page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2))
    expect(app.combobox("pq_query")).to_have_value(re.compile(rf"^{re.escape(target)}:"))
    expect(app.page.get_by_role("heading", name=re.compile(rf"Topic {re.escape(target)} "))).to_be_visible()
    expect(app.key("pq_list_a_table").get_by_test_id("stDataFrame")).to_be_visible()
    expect(app.key("pq_list_b_table").get_by_test_id("stDataFrame")).to_be_visible()
    assert app.page.get_by_role("tab", name="Ranked lists of the open topic").get_attribute("aria-selected") == "true"
    app.shot("bar_clicked")
    app.assert_healthy()


# --- 4 ------------------------------------------------------------------------------------------
def test_copied_url_reproduces_the_view_in_a_new_context(app, new_context):
    app.goto("/")
    page = app.page
    # runs: drop two, measures: add P@20, baseline, test, chart measure
    for run in ("aplrob03a", "MU03rob01"):
        app.rerun_after(lambda: app.key("lb_runs").get_by_role("button", name=f"Remove {run}").click())
    box = app.combobox("lb_measures")
    box.click()
    box.fill("P@20")
    page.locator('[role="listbox"] [role="option"]').filter(has_text="P@20").first.wait_for()
    app.rerun_after(lambda: box.press("Enter"))
    box.press("Escape")
    app.choose("lb_baseline", "UIUC03Rd1")
    app.choose("lb_test", "Wilcoxon")
    app.choose("lb_measure", "nDCG@10")
    runs, measures = app.tags("lb_runs"), app.tags("lb_measures")
    assert "aplrob03a" not in runs and "MU03rob01" not in runs and "UIUC03Rd1" in runs
    assert "P@20" in measures
    view = {k: app.selected(k) for k in ("lb_baseline", "lb_test", "lb_correction", "lb_alpha", "lb_measure")}
    assert view["lb_baseline"] == "UIUC03Rd1" and view["lb_measure"] == "nDCG@10"
    expect(page).to_have_url(re.compile(r"measure=nDCG%4010"))
    url = page.url
    app.shot("leaderboard_chosen")

    other = app.reopen(new_context(), url, "_copy")
    other.shot("leaderboard_reopened")
    assert other.settled(lambda: other.tags("lb_runs"), runs) == runs
    assert other.settled(lambda: other.tags("lb_measures"), measures) == measures
    assert other.settled(lambda: {k: other.selected(k) for k in view}, view) == view
    other.assert_healthy()

    # the per-query view: runs, measure and an open query
    nav(app, "Per-query")
    app.choose("pq_run", "humR03dc")
    app.choose("pq_measure", "P@10")
    qid = app.options("pq_query")[3].split(":")[0]
    app.choose("pq_query", f"{qid}:")
    expect(app.key("pq_list_b")).to_be_visible()
    pq_view = {k: app.selected(k) for k in ("pq_baseline", "pq_run", "pq_measure", "pq_query")}
    assert pq_view["pq_run"] == "humR03dc" and pq_view["pq_measure"] == "P@10"
    assert pq_view["pq_query"].startswith(f"{qid}:")
    expect(page).to_have_url(re.compile(rf"query={qid}\b"))
    url = page.url
    app.shot("perquery_chosen")

    third = app.reopen(new_context(), url, "_copy2")
    expect(third.key("pq_list_b")).to_be_visible()
    third.shot("perquery_reopened")
    assert third.settled(lambda: {k: third.selected(k) for k in pq_view}, pq_view) == pq_view
    third.assert_healthy()


# --- 5 ------------------------------------------------------------------------------------------
def test_curves_have_one_trace_per_selected_run(app):
    app.goto("/curves")
    for step in ("default", "one_removed"):
        if step == "one_removed":
            drop = app.tags("cv_runs")[0]
            app.rerun_after(lambda: app.key("cv_runs").get_by_role("button", name=f"Remove {drop}").click())
            assert drop not in app.tags("cv_runs")
        chosen = app.tags("cv_runs")
        assert chosen
        # the charts redraw after the rerun that changed the selection: read them once they have settled
        pr = app.settled(lambda: plotly_traces(app, "cv_pr"), chosen)
        n_roc = app.settled(lambda: len([n for n in plotly_traces(app, "cv_roc") if not n.startswith("chance")]),
                            len(chosen))
        roc = [n for n in plotly_traces(app, "cv_roc") if not n.startswith("chance")]
        assert n_roc == len(chosen)
        assert len(pr) == len(chosen), (pr, chosen)
        assert pr == chosen, (pr, chosen)
        assert len(roc) == len(chosen), (roc, chosen)
        for run, trace in zip(chosen, roc):
            assert re.fullmatch(rf"{re.escape(run)} \(AUC 0\.\d{{3}}\)", trace), (run, trace)
        app.shot(step)
    app.assert_healthy()


# --- 6 ------------------------------------------------------------------------------------------
def test_malformed_run_shows_core_error_and_changes_nothing(app, tmp_path):
    good = gzip.decompress((ROOT / "data" / "runs" / "input.pircRBa1.gz").read_bytes()).decode().splitlines()[:40]
    fields = good[6].split()
    fields[4] = "not-a-score"
    good[6] = " ".join(fields)
    body = ("\n".join(good) + "\n").encode()
    path = tmp_path / "broken_run"
    path.write_bytes(body)
    with pytest.raises(UploadError) as caught:
        read_run(body, filename=path.name)
    expected = str(caught.value)

    app.goto("/data")
    before = run_names_on_data_page(app)
    upload_run(app, path)
    alert = app.page.get_by_test_id("stAlert").filter(has_text=f"{path.name} was not loaded; nothing from it was stored.")
    expect(alert).to_be_visible()
    app.wait_idle()
    code = app.page.get_by_test_id("stCode").filter(has_text=path.name)
    expect(code).to_have_count(1)
    app.shot("error_shown")
    assert _norm(code.inner_text()) == _norm(expected)
    after = run_names_on_data_page(app)
    assert after == before
    app.page.reload()
    app.page.wait_for_function("() => window.__e2eRuns >= 1")
    app.wait_idle()
    assert run_names_on_data_page(app) == before
    app.shot("run_list_unchanged")
    app.assert_healthy()
