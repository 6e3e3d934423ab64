"""End-to-end: several judge qrels files uploaded in one action on the Judges page, then the judges table read
back through its CSV download (the table itself is a canvas), in Debian's chromium at 1280x720."""
from __future__ import annotations

import csv
import gzip
import io

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect
from sklearn.metrics import cohen_kappa_score

from tests.cases.reference import DATA

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]


def judge_files(tmp_path, n: int = 3) -> dict[str, pd.DataFrame]:
    """n judges: the sample's NIST qrels with a seeded share of labels changed (more for each judge)."""
    nist = pd.read_csv(io.BytesIO(gzip.decompress((DATA / "qrels.robust03.txt.gz").read_bytes())), sep=r"\s+",
                       header=None, names=["qid", "it", "docno", "rel"], dtype={"qid": str, "docno": str})
    rng = np.random.default_rng(13)
    out = {}
    for j in range(n):
        frame = nist.copy()
        flip = rng.random(len(frame)) < 0.1 * (j + 1)
        frame.loc[flip, "rel"] = rng.integers(0, 3, flip.sum())
        name = f"llm-judge-{j + 1}.txt"
        frame.to_csv(tmp_path / name, sep=" ", header=False, index=False)
        out[name] = frame
    return out, nist


def test_upload_several_judges_at_once_and_read_the_table(app, tmp_path):
    judges, nist = judge_files(tmp_path)
    app.goto("/judges")
    expect(app.page.get_by_role("heading", name="Judges")).to_be_visible()
    app.shot("judges_page")
    app.page.get_by_test_id("stExpander").filter(has_text="leave some out, or upload more").locator("summary").click()
    uploader = app.key("jd_upload_files").locator('input[type="file"]')
    uploader.set_input_files([str(tmp_path / name) for name in judges])
    for name in judges:
        expect(app.key("jd_upload_files").get_by_text(name, exact=True)).to_be_visible()
    button = app.key("jd_upload_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)
    for name in judges:
        expect(app.page.get_by_test_id("stAlert").filter(has_text=f"Loaded {name}")).to_be_visible()
    app.wait_idle()
    app.shot("after_upload")
    app.assert_healthy()

    with app.page.expect_download() as got:
        app.key("jd_table_csv").locator("button").click()
    rows = list(csv.DictReader(io.StringIO(open(got.value.path(), encoding="utf-8").read())))
    assert [r["Judge"] for r in rows] == ["simulated-B", *judges]
    for r in rows[1:]:
        both = nist.merge(judges[r["Judge"]], on=["qid", "docno"])
        assert float(r["κ"]) == pytest.approx(cohen_kappa_score(both["rel_x"], both["rel_y"]), abs=1e-9)
        assert int(r["Judged by both"]) == len(both)
    kappas = [float(r["κ"]) for r in rows[1:]]
    assert kappas == sorted(kappas, reverse=True)          # more labels changed, less agreement

    app.page.get_by_role("tab", name="Shift heatmap").click()
    app.page.wait_for_function("() => { const d = document.querySelector('.st-key-jd_heatmap .js-plotly-plot'); "
                               "return d && Array.isArray(d.data) && d.data.length > 0; }")
    ys = app.page.evaluate("() => document.querySelector('.st-key-jd_heatmap .js-plotly-plot').data[0].y")
    assert list(ys) == ["simulated-B", *judges]
    app.shot("heatmap")
    app.assert_healthy()
