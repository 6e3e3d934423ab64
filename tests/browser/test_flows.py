"""The browser flows of issue 6, in Debian's chromium at 1280x720, against one `streamlit run` on a
fresh store (the sample collection from data/: 5 Robust 2003 runs). Screenshots: screenshots/."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.errors import UploadError
from core.formats import read_run

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

ROOT = Path(__file__).resolve().parents[2]
ROBUST03_RUNS = ROOT.parent / "shared" / "reference" / "trectools_robust03" / "runs"
PAGES = ["Leaderboard", "Per-query", "Curves", "Agreement", "Data", "Measures"]


def _ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _go(app, title: str) -> None:
    link = app.page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink").filter(has_text=title)
    app.rerun_after(lambda: link.first.click())


def _data_page_runs(app) -> list[str]:
    """Run names as the Data page lists them (the manage-run selectbox; the table is a canvas)."""
    if not app.key("data_manage_run").is_visible():
        app.page.get_by_test_id("stExpander").filter(has_text="Rename or delete a run").locator("summary").click()
        expect(app.key("data_manage_run")).to_be_visible()
    return app.options("data_manage_run")


def _upload_run(app, path: Path) -> None:
    app.key("data_runs_files").locator("input[type=file]").set_input_files(str(path))
    expect(app.key("data_runs_files").get_by_text(path.name, exact=True)).to_be_visible()
    button = app.key("data_runs_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)


def _traces(app, key: str) -> list[str]:
    sel = f".st-key-{key} .js-plotly-plot"
    app.page.wait_for_function(
        f"() => {{ const d = document.querySelector('{sel}'); return d && Array.isArray(d.data) && d.data.length > 0; }}")
    return app.page.evaluate(f"() => document.querySelector('{sel}').data.map(t => t.name)")


def test_app_loads_with_sidebar_navigation(app):
    app.goto("/")
    texts = [t.strip() for t in app.page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink").all_inner_texts()]
    for name in PAGES:
        assert any(name.lower() in t.lower() for t in texts), f"no sidebar link for {name!r}: {texts}"
    app.assert_healthy()
    app.shot("home")


def test_upload_run_without_extension_then_on_leaderboard(app, tmp_path):
    src = ROBUST03_RUNS / "input.THUIRr0301.gz"
    assert src.exists(), f"Robust 2003 reference run missing: {src}"
    lines = gzip.decompress(src.read_bytes()).decode().splitlines(keepends=True)
    keep = list(dict.fromkeys(line.split()[0] for line in lines))[:4]
    body = "".join(line for line in lines if line.split()[0] in keep).encode()
    path = tmp_path / "thuir_four_topics"  # no extension
    path.write_bytes(body)
    name = read_run(body, filename=path.name).tag

    app.goto("/data")
    before = _data_page_runs(app)
    assert name not in before
    _upload_run(app, path)
    expect(app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {path.name} as '{name}'")).to_be_visible()
    app.wait_idle()
    app.shot("loaded")
    assert _data_page_runs(app) == before + [name] or set(_data_page_runs(app)) == set(before) | {name}
    app.assert_healthy()

    _go(app, "Leaderboard")
    assert name in app.tags("lb_runs")
    tab = app.page.get_by_role("tab", name=re.compile("Confidence intervals"))
    if tab.count():
        tab.first.click()
    _traces(app, "lb_ci_chart")  # waits until plotly has drawn it
    bars = app.page.evaluate("() => document.querySelector('.st-key-lb_ci_chart .js-plotly-plot').data[0].x")
    assert name in list(bars), bars
    app.key("lb_table").scroll_into_view_if_needed()
    app.shot("leaderboard")
    app.assert_healthy()


LEGEND = re.compile(r"significantly better / worse than (\S+) \((\d+) ▲, (\d+) ▼ here\)")


def test_baseline_shows_significance_markers(app):
    app.goto("/")
    captions = app.page.get_by_test_id("stCaptionContainer")
    expect(captions.filter(has_text="Pick a baseline")).to_be_visible()
    assert captions.filter(has_text="▲").count() == 0
    app.choose("lb_baseline", "humR03dc")
    legend = captions.filter(has_text="significantly better / worse than")
    expect(legend).to_be_visible()
    m = LEGEND.search(_ws(legend.inner_text()))
    assert m and m[1] == "humR03dc", legend.inner_text()
    assert int(m[2]) + int(m[3]) > 0, "no significance marker against humR03dc"
    assert "baseline=humR03dc" in app.page.url
    app.shot("markers")
    app.assert_healthy()


def test_open_query_shows_side_by_side_lists(app):
    app.goto("/per-query")
    a, b = app.selected("pq_baseline"), app.selected("pq_run")
    assert a and b and a != b
    expect(app.key("pq_list_a")).to_have_count(0)
    qid = app.options("pq_query")[2].split(":")[0]
    app.choose("pq_query", f"{qid}:")
    for key, caption in (("pq_list_a", f"{a} (baseline) · score"), ("pq_list_b", f"{b} · score")):
        expect(app.key(key).get_by_text(caption)).to_be_visible()
        expect(app.key(f"{key}_table").get_by_test_id("stDataFrame")).to_be_visible()
    left, right = app.key("pq_list_a").bounding_box(), app.key("pq_list_b").bounding_box()
    assert left["x"] + left["width"] <= right["x"] + 1 and abs(left["y"] - right["y"]) < 5, (left, right)
    assert f"query={qid}" in app.page.url
    app.key("pq_list_a").scroll_into_view_if_needed()
    app.shot("lists")
    app.assert_healthy()


def test_copied_url_reproduces_view_in_new_context(app, new_context):
    app.goto("/")
    app.rerun_after(lambda: app.key("lb_runs").get_by_role("button", name="Remove MU03rob01").click())
    app.choose("lb_baseline", "pircRBa1")
    app.choose("lb_measure", "P@10")
    keys = ("lb_baseline", "lb_test", "lb_correction", "lb_alpha", "lb_measure")
    view = {k: app.selected(k) for k in keys}
    runs, measures = app.tags("lb_runs"), app.tags("lb_measures")
    assert "MU03rob01" not in runs and view["lb_baseline"] == "pircRBa1" and view["lb_measure"] == "P@10"
    app.shot("chosen")
    other = app.open_fresh(new_context().new_page(), app.page.url)
    other.shot("reopened")
    assert other.tags("lb_runs") == runs and other.tags("lb_measures") == measures
    assert {k: other.selected(k) for k in keys} == view
    other.assert_healthy()

    _go(app, "Per-query")
    qid = app.options("pq_query")[1].split(":")[0]
    app.choose("pq_query", f"{qid}:")
    expect(app.key("pq_list_b")).to_be_visible()
    keys = ("pq_baseline", "pq_run", "pq_measure", "pq_query")
    view = {k: app.selected(k) for k in keys}
    third = app.open_fresh(new_context().new_page(), app.page.url)
    expect(third.key("pq_list_b")).to_be_visible()
    third.shot("perquery_reopened")
    assert {k: third.selected(k) for k in keys} == view
    third.assert_healthy()


def test_pr_and_roc_one_trace_per_run(app):
    app.goto("/curves")
    for step in ("all", "one_removed"):
        if step == "one_removed":
            drop = app.tags("cv_runs")[-1]
            app.rerun_after(lambda: app.key("cv_runs").get_by_role("button", name=f"Remove {drop}").click())
        chosen = app.tags("cv_runs")
        assert chosen
        pr = _traces(app, "cv_pr")
        roc = [t for t in _traces(app, "cv_roc") if not t.lower().startswith("chance")]
        assert pr == chosen, (pr, chosen)
        assert len(roc) == len(chosen) and all(t.startswith(r) for t, r in zip(roc, chosen)), (roc, chosen)
        n = app.page.evaluate("() => document.querySelector('.st-key-cv_pr .js-plotly-plot').data.length")
        assert n == len(chosen)
        app.shot(step)
    app.assert_healthy()


def test_malformed_upload_shows_core_error_and_changes_nothing(app, tmp_path):
    lines = gzip.decompress((ROOT / "data" / "runs" / "input.humR03dc.gz").read_bytes()).decode().splitlines()[:20]
    lines[9] = " ".join(lines[9].split()[:4])  # a line with 4 of the 6 columns
    body = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "short-line-run"
    path.write_bytes(body)
    with pytest.raises(UploadError) as err:
        read_run(body, filename=path.name)
    expected = str(err.value)

    app.goto("/data")
    before = _data_page_runs(app)
    _upload_run(app, path)
    expect(app.page.get_by_test_id("stAlert").filter(has_text=f"{path.name} was not loaded")).to_be_visible()
    app.wait_idle()
    code = app.page.get_by_test_id("stCode").filter(has_text=path.name)
    expect(code).to_have_count(1)
    app.shot("error")
    assert _ws(code.inner_text()) == _ws(expected)
    assert _data_page_runs(app) == before
    app.assert_healthy()
