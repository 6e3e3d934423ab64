"""End-to-end: per-query scores from another tool uploaded on the Data page (the "Scores" tab, with a source), then
the Leaderboard shows the imported measure beside a computed one, marked with its source, for two sample runs and
a run that has scores only. Chromium at 1280x720."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

ROOT = Path(__file__).resolve().parents[2]
RUNS = ("MU03rob01", "pircRBa1", "rag")


def table_rows(app, key: str) -> list[list[str]]:
    """The cells of a keyed st.dataframe, row by row (glide's accessible grid mirrors the canvas)."""
    rows = app.key(key).locator('[role="row"]')
    expect(rows.nth(1)).to_be_attached()
    return [[c.strip() for c in r.locator('[role="gridcell"], [role="columnheader"]').all_inner_texts()]
            for r in rows.all()]


def test_upload_scores_and_see_them_on_the_leaderboard(app, tmp_path):
    qids = sorted({line.split()[0] for line in gzip.decompress(
        (ROOT / "data" / "qrels.robust03.txt.gz").read_bytes()).decode().splitlines()})
    rng = np.random.default_rng(11)
    values = {run: rng.uniform(0, 1, len(qids)).round(3) for run in RUNS}
    path = tmp_path / "judge.csv"
    path.write_text("run,qid,measure,value\n" + "".join(f"{run},{q},judge,{v}\n" for run in RUNS
                                                        for q, v in zip(qids, values[run])))

    app.goto("/data")
    app.page.get_by_role("tab", name="Scores").click()
    app.key("data_scores_files").locator('input[type="file"]').set_input_files(str(path))
    expect(app.key("data_scores_files").get_by_text(path.name, exact=True)).to_be_visible()
    source = app.key("data_scores_source").locator("input")
    source.fill("gpt judge")
    app.rerun_after(lambda: source.press("Enter"))
    button = app.key("data_scores_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)
    expect(app.page.get_by_test_id("stAlert").filter(
        has_text=f"Loaded {path.name} as '{', '.join(RUNS)}'")).to_be_visible()
    app.shot("data_scores_loaded")
    app.assert_healthy()

    app.goto("/?" + "&".join(f"runs={r}" for r in RUNS) + "&measures=AP&measures=judge&baseline=MU03rob01")
    expect(app.key("lb_table")).to_be_visible()
    expect(app.key("lb_imported")).to_contain_text("judge: imported (gpt judge)")
    header, *rows = table_rows(app, "lb_table")
    assert "AP" in header and "judge" in header
    shown = {row[0].removesuffix(" (baseline)"): row[header.index("judge")] for row in rows}
    assert set(shown) == set(RUNS)
    for run in RUNS:            # the accessible grid holds the raw value (the canvas draws it with 4 decimals)
        assert float(shown[run]) == pytest.approx(values[run].mean(), abs=1e-9)
    app.shot("leaderboard_imported_measure")
    app.assert_healthy()
