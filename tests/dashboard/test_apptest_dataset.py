"""The Data page's ir_datasets tab (dashboard/components/dataset.py) in AppTest, on a copy of the sample store and the
small datasets of tests/cases/irds.py: an editor loads a dataset by its id, with its documents up to a limit; a
dataset that cannot be loaded shows core's words and stores nothing; a viewer finds no dataset field."""
from __future__ import annotations

import os

import pytest

from core.store.store import Store
from dashboard.components.escape import md_escape, md_format
from tests.apptest_kit import assert_clean, frame, open_page, private_app  # noqa: F401  (pytest fixtures)
from tests.cases import irds
from tests.fixtures_store import SAMPLE_COLLECTION, snapshot

pytestmark = pytest.mark.xdist_group("apptest")


@pytest.fixture(scope="module")
def home():
    return irds.register()


def _load(at, did: str, *, docs: bool = False, limit: int = 0):
    at.text_input(key="data_dataset_id").input(did).run()
    if docs:
        at.checkbox(key="data_dataset_docs").check()
        at.run()
        at.number_input(key="data_dataset_docs_limit").set_value(limit)
    return at.button(key="data_dataset_load").click().run()


def test_an_editor_loads_a_dataset_with_some_of_its_documents(home, private_app):
    at = open_page(private_app, "data")
    assert_clean(at)
    assert at.button(key="data_dataset_load").disabled           # no id yet
    at = _load(at, "rankboard-test/trec", docs=True, limit=2)
    assert_clean(at)
    assert [s.value for s in at.success] == [
        md_format("Loaded irds:{}: {}.", "rankboard-test/trec", "3,681 qrels, 3 topics, 2 documents")]
    assert "rankboard-test/trec" in list(frame(at, "data_qrels_table")["assessor"])
    with Store.open(os.environ["RANKBOARD_STORE"]) as store:
        sets = store.qrels_sets(SAMPLE_COLLECTION)
        assert list(sets.filename)[-1] == "irds:rankboard-test/trec" and not sets.is_default.iat[-1]
        assert store.document_text(SAMPLE_COLLECTION, ["CR93E-1282", "CR93E-10071"]) == {
            "CR93E-1282": "International crime syndicates smuggle cocaine across borders.\n"}


def test_a_dataset_that_cannot_be_loaded_shows_why_and_stores_nothing(home, private_app):
    at = open_page(private_app, "data")
    with Store.open(os.environ["RANKBOARD_STORE"]) as store:
        before = snapshot(store)
    at = _load(at, "rankboard-test/queries-onyl")
    assert_clean(at)
    assert [e.value for e in at.error] == [
        md_escape("irds:rankboard-test/queries-onyl was not loaded; nothing from it was stored.")]
    assert [c.value for c in at.code] == [
        "irds:rankboard-test/queries-onyl: ir_datasets has no dataset with this id. Did you mean "
        "rankboard-test/queries-only, rankboard-test/docs-only, rankboard-test/trec? The ids are listed at "
        "https://ir-datasets.com."]
    with Store.open(os.environ["RANKBOARD_STORE"]) as store:
        assert snapshot(store) == before


def test_a_viewer_finds_no_dataset_field(home, private_app, monkeypatch):
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")                  # a team server: a visitor without the editor
    monkeypatch.setenv("RANKBOARD_EDITOR_SECRET", "editor secret")  # secret is a viewer
    at = open_page(private_app, "data")
    assert_clean(at)
    assert any("You are viewing" in i.value for i in at.info)
    assert not [w for w in at.text_input if w.key == "data_dataset_id"]
    assert not [w for w in at.button if w.key == "data_dataset_load"]
