"""End-to-end: a dataset of ir_datasets loaded by its id on the Data page (the "ir_datasets" tab), with two of its
documents, then a mistyped id refused with the close ids, in Debian's chromium at 1280x720. The server process
registers the small datasets of tests/cases/irds.py before streamlit starts (IR_DATASETS_HOME is the test run's
temporary folder), so the real loading code runs without network."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Server

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

LAUNCHER = ("-c", "import sys; from tests.cases.irds import register; register(); "
                  "from streamlit.web.cli import main; sys.argv[0] = 'streamlit'; main()")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("e2e_dataset"), launcher=LAUNCHER)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _type_id(app, did: str) -> None:
    box = app.key("data_dataset_id").locator("input")
    box.fill(did)
    app.rerun_after(lambda: box.press("Enter"))


def test_load_a_dataset_by_its_id_then_a_mistyped_one(app):
    app.goto("/data")
    app.page.get_by_role("tab", name="ir_datasets").click()
    expect(app.key("data_dataset_load").locator("button")).to_be_disabled()
    _type_id(app, "rankboard-test/trec")
    app.rerun_after(lambda: app.key("data_dataset_docs").get_by_text("Also load its documents").click())
    limit = app.key("data_dataset_docs_limit").locator("input")
    expect(limit).to_be_enabled()
    limit.fill("2")
    app.rerun_after(lambda: limit.press("Enter"))
    button = app.key("data_dataset_load").locator("button")
    expect(button).to_be_enabled()
    app.rerun_after(button.click)
    expect(app.page.get_by_test_id("stAlert").filter(
        has_text="Loaded irds:rankboard-test/trec: 3,681 qrels, 3 topics, 2 documents.")).to_be_visible()
    app.shot("dataset_loaded")
    app.assert_healthy()

    app.page.get_by_role("tab", name="ir_datasets").click()
    _type_id(app, "rankboard-test/trec/tvs")
    app.rerun_after(app.key("data_dataset_load").locator("button").click)
    expect(app.page.get_by_test_id("stAlert").filter(
        has_text="irds:rankboard-test/trec/tvs was not loaded; nothing from it was stored.")).to_be_visible()
    expect(app.page.get_by_test_id("stCode").filter(has_text="Did you mean rankboard-test/trec/tsv")).to_be_visible()
    app.shot("dataset_refused")
    app.assert_healthy()
