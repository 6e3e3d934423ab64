"""core.store.datasets through `Store.add_dataset`: a dataset of ir_datasets (tests/cases/irds.py) read before the store
is taken, its documents spooled to a temporary Parquet file, and inserted in one transaction."""
from __future__ import annotations

import pytest

from core.errors import UploadError
from core.store.datasets import prepare_dataset
from tests.cases import irds
from tests.fixtures_store import fresh_store, snapshot


@pytest.fixture(scope="module")
def home():
    return irds.register()


def _spooled(folder) -> list:
    return sorted(p.name for p in folder.glob("rankboard-run-*-docs-*.parquet"))


def test_add_dataset_stores_every_part_and_reports_progress(home, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path))
    heard = []
    with fresh_store(tmp_path) as store:
        reports = store.add_dataset("c", "rankboard-test/trec", docs=True,
                                    progress=lambda part, done, total: heard.append((part, done, total)))
        assert [(part, rep.n_rows) for part, rep in reports] == [("qrels", 3681), ("topics", 3), ("documents", 5)]
        assert reports[0][1].name == "rankboard-test/trec"
        counts = store.collections().set_index("name").loc["c"]
        assert (counts.n_topics, counts.n_qrels_sets, counts.n_documents) == (3, 1, 5)
        assert store.document_text("c", ["CR93E-10071"]) == {"CR93E-10071": "A report on the harvest of wheat.\n"}
    assert heard == [("qrels", 0, None), ("queries", 0, None), ("documents", 0, None), ("documents", 5, None)]
    assert _spooled(tmp_path) == []                  # the documents' temporary file is gone once inserted


def test_a_second_load_replaces_document_texts_and_refuses_the_same_qrels_set(home, tmp_path):
    with fresh_store(tmp_path) as store:
        store.add_dataset("c", "rankboard-test/docs-only", docs=True, docs_limit=2)
        reports = store.add_dataset("c", "rankboard-test/trec/tsv", docs=False)
        assert [part for part, _ in reports] == ["qrels", "topics"]
        before = snapshot(store)
        with pytest.raises(UploadError) as err:
            store.add_dataset("c", "rankboard-test/trec/tsv")
        assert str(err.value) == ("irds:rankboard-test/trec/tsv: the collection already holds this dataset's qrels "
                                  "(its qrels set 'rankboard-test/trec/tsv'). Load the dataset into another "
                                  "collection.")
        assert snapshot(store) == before
        again = store.add_dataset("d", "rankboard-test/docs-only", docs=True)
        assert again[0][1].warnings == ["The dataset has no qrels; only its other parts were loaded.",
                                        "The dataset has no queries; only its other parts were loaded."]


def test_a_dataset_that_fails_while_read_leaves_no_file_and_no_row(home, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path))
    with fresh_store(tmp_path) as store:
        before = snapshot(store)
        with pytest.raises(UploadError):
            store.add_dataset("c", "rankboard-test/offline", docs=False)
        assert snapshot(store) == before
    prepared = prepare_dataset("rankboard-test/trec", docs=True, docs_limit=1)
    assert len(_spooled(tmp_path)) == 1 and prepared.name == "irds:rankboard-test/trec"
    prepared.close()
    assert _spooled(tmp_path) == []


def test_a_pair_judged_twice_or_a_document_given_twice_is_refused(home, tmp_path):
    with fresh_store(tmp_path) as store:
        before = snapshot(store)
        with pytest.raises(UploadError) as err:
            store.add_dataset("c", "rankboard-test/twice")
        assert str(err.value) == ("irds:rankboard-test/twice: topic 301 judges document d1 more than once. Rankboard "
                                  "keeps one judgment per topic and document: choose a dataset whose qrels judge each "
                                  "pair once.")
        with pytest.raises(UploadError) as err:
            store.add_dataset("c", "rankboard-test/twice/docs", docs=True)
        assert str(err.value) == ("irds:rankboard-test/twice/docs: document d1 appears 2 times. Each document needs "
                                  "one text: remove the repeated ones.")
        assert snapshot(store) == before
