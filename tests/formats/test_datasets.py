"""core.formats.datasets: datasets of ir_datasets read as Rankboard's readers read files, on the small datasets of
tests/cases/irds.py (registered with ir_datasets' own registry, over files in tests/reference/)."""
from __future__ import annotations

from typing import NamedTuple

import pytest

from core.errors import RankboardError, UploadError
from core.formats import read_qrels, read_topics
from core.formats.datasets import (BATCH_ROWS, dataset_doc_batches, dataset_id, read_dataset_topics, text_field)
from tests.cases import irds
from tests.cases.reference import reference_file


@pytest.fixture(scope="module")
def home():
    return irds.register()


def _message(source) -> str:
    with pytest.raises(UploadError) as err:
        read_qrels(source)
    return str(err.value)


def test_the_dataset_qrels_are_the_file_qrels(home):
    from_dataset = read_qrels("irds:rankboard-test/trec")
    from_file = read_qrels(reference_file(irds.QRELS))
    assert from_dataset.table.sort_by([("qid", "ascending"), ("docno", "ascending")]).equals(
        from_file.table.sort_by([("qid", "ascending"), ("docno", "ascending")]))
    assert from_dataset.n_rows == 3681 and from_dataset.warnings == [] and from_dataset.format == "ir_datasets"


def test_trec_topics_give_their_title_and_tsv_queries_their_text(home):
    titles = read_dataset_topics("rankboard-test/trec")           # TrecQuery: title, description, narrative
    texts = read_dataset_topics("rankboard-test/trec/tsv")        # GenericQuery: text
    assert titles.to_dict("records") == texts.to_dict("records") == [
        {"qid": "301", "text": "International Organized Crime"},
        {"qid": "302", "text": "Poliomyelitis and Post-Polio"},
        {"qid": "303", "text": "Hubble Telescope Achievements"}]
    from_file = read_topics(reference_file(irds.TOPICS), filename="topics")
    assert list(from_file.qid) == list(titles.qid)


def test_the_text_field_is_text_then_title_then_the_first_text_field():
    class Both(NamedTuple):
        query_id: str
        title: str
        text: str

    class Titled(NamedTuple):
        query_id: str
        number: int
        title: str

    class Question(NamedTuple):
        query_id: str
        number: int
        question: str
        answer: str

    class Numbers(NamedTuple):
        query_id: str
        number: int

    assert [text_field(c, "query_id") for c in (Both, Titled, Question)] == ["text", "title", "question"]
    with pytest.raises(RankboardError) as err:
        text_field(Numbers, "query_id")
    assert str(err.value) == ("ir_datasets' Numbers records (query_id, number) have no text field, so Rankboard "
                              "cannot tell which field holds the text. Load this part from a file instead.")


def test_documents_come_in_batches_up_to_the_limit(home, monkeypatch):
    import core.formats.datasets as datasets
    monkeypatch.setattr(datasets, "BATCH_ROWS", 2)
    batches = list(dataset_doc_batches("rankboard-test/trec", 3))
    assert [b.num_rows for b in batches] == [2, 1]
    assert batches[0].to_pylist()[0] == {"docno": "CR93E-1282",
                                         "text": "International crime syndicates smuggle cocaine across borders.\n"}
    everything = list(dataset_doc_batches("rankboard-test/trec"))
    assert [b.num_rows for b in everything] == [2, 2, 1]
    assert BATCH_ROWS == 50_000


def test_an_existing_file_named_like_a_dataset_is_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert dataset_id("irds:msmarco-passage/dev") == "msmarco-passage/dev"
    (tmp_path / "irds:qrels").write_text("1 0 d1 1\n")
    assert dataset_id("irds:qrels") is None
    assert read_qrels("irds:qrels").table.to_pylist() == [{"qid": "1", "docno": "d1", "rel": 1}]
    assert dataset_id("qrels.txt") is None and dataset_id(b"irds:x") is None


def test_an_unknown_id_names_the_close_ones(home):
    assert _message("irds:rankboard-test/trec/tvs") == (
        "irds:rankboard-test/trec/tvs: ir_datasets has no dataset with this id. Did you mean rankboard-test/trec/tsv, "
        "rankboard-test/trec, rankboard-test/twice/docs? The ids are listed at https://ir-datasets.com.")
    assert _message("irds:msmarco-passage/trec-dl-2019/judgd") == (
        "irds:msmarco-passage/trec-dl-2019/judgd: ir_datasets has no dataset with this id. Did you mean "
        "msmarco-passage/trec-dl-2019/judged, msmarco-passage/trec-dl-2020/judged, "
        "msmarco-passage-v2/trec-dl-2021/judged? The ids are listed at https://ir-datasets.com.")
    assert _message("irds:robust04") == (            # difflib's matches; then ids that hold the last part
        "irds:robust04: ir_datasets has no dataset with this id. Did you mean trec-robust04, trec-robust04/fold1, "
        "trec-robust04/fold2? The ids are listed at https://ir-datasets.com.")
    assert _message("irds:nothing-like-it-at-all") == (
        "irds:nothing-like-it-at-all: ir_datasets has no dataset with this id. The ids are listed at "
        "https://ir-datasets.com.")


def test_a_dataset_without_qrels_says_which_datasets_under_it_have_them(home):
    assert _message("irds:rankboard-test/queries-only") == (
        "irds:rankboard-test/queries-only: the dataset has no qrels. Choose a dataset with qrels "
        "(https://ir-datasets.com lists what each dataset provides).")
    assert _message("irds:msmarco-passage") == (
        "irds:msmarco-passage: the dataset has no qrels. These datasets under it have qrels: msmarco-passage/dev, "
        "msmarco-passage/dev/2, msmarco-passage/dev/judged, msmarco-passage/dev/small, msmarco-passage/train.")
    with pytest.raises(UploadError) as err:
        read_dataset_topics("rankboard-test/docs-only")
    assert str(err.value) == ("irds:rankboard-test/docs-only: the dataset has no queries. Choose a dataset with "
                              "queries (https://ir-datasets.com lists what each dataset provides).")


def test_files_that_cannot_be_downloaded_say_what_to_download_and_where(home):
    assert _message("irds:rankboard-test/offline") == (
        "irds:rankboard-test/offline: the dataset's qrels are not on this machine and ir_datasets could not get them "
        "(ConnectionError). Download http://127.0.0.1:9/qrels.txt on a machine with network access and save it as "
        f"{home}/rankboard-test/offline/qrels (ir_datasets' folder is {home}, set by IR_DATASETS_HOME), then try "
        "again.")


def test_files_to_download_by_hand_give_ir_datasets_instructions(home):
    path = f"{home}/rankboard-test/manual/qrels.txt"
    assert _message("irds:rankboard-test/manual") == (
        "irds:rankboard-test/manual: the dataset's qrels are not on this machine and ir_datasets could not get them "
        f"(FileNotFoundError). ir_datasets cannot download them itself. Put the file it needs at {path} (its folder "
        f"is {home}, set by IR_DATASETS_HOME), then try again. Its instructions: Copy qrels.txt from the assessors' "
        f"disk to {path}.")


def test_the_tests_keep_ir_datasets_in_a_temporary_folder(home):
    import tempfile
    assert home.startswith(tempfile.gettempdir()) and "rankboard-tests-" in home
