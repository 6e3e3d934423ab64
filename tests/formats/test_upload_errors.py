"""Every bad-upload case: the exact message, the line number, and a store left unchanged."""
from __future__ import annotations

import gzip
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.errors import UploadError
from core.formats import read_qrels, read_run, read_topics
from tests.fixtures_store import fresh_store, snapshot

GOOD_RUN = b"301 Q0 d1 1 2.5 tagA\n301 Q0 d2 2 1.5 tagA\n302 Q0 d3 1 0.5 tagA\n"
QRELS = b"301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n"


def _parquet(columns: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


@pytest.fixture
def store(tmp_path):
    s = fresh_store(tmp_path)
    s.add_qrels("c", QRELS, filename="qrels.txt", assessor="NIST")
    s.add_run("c", GOOD_RUN, filename="good.run")
    yield s
    s.close()


def error_of(fn, *args, **kw) -> UploadError:
    with pytest.raises(UploadError) as info:
        fn(*args, **kw)
    return info.value


# (case, file bytes, exact message, line of the first problem)
RUN_CASES = [
    ("field count", b"301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1.0\n",
     "r.run, line 2: found 5 fields but a run line needs 6 (qid Q0 docno rank score tag). "
     "Separate the fields with spaces or tabs and remove extra fields.\n    '301 Q0 d2 2 1.0'", 2),
    ("looks like qrels", b"301 Q0 d1 1 2.5 t\n\n301 0 d2 1\n",
     "r.run, line 3: found 4 fields but a run line needs 6 (qid Q0 docno rank score tag); this looks like "
     "a qrels file. Upload it as qrels instead.\n    '301 0 d2 1'", 3),
    ("run line cut short is not called qrels", b"301 Q0 d1 1 2.5 t\n301 Q0 d2 10\n",
     "r.run, line 2: found 4 fields but a run line needs 6 (qid Q0 docno rank score tag). "
     "Separate the fields with spaces or tabs and remove extra fields.\n    '301 Q0 d2 10'", 2),
    ("non-numeric score", b"# ir_metadata\n301 Q0 d1 1 2.5 t\n301 Q0 d2 2 high t\n",
     "r.run, line 3: score 'high' is not a number. Use a decimal number such as 12.5, -3 or 1.2e-3.\n"
     "    '301 Q0 d2 2 high t'", 3),
    ("duplicate docno", b"301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1.5 t\n301 Q0 d1 3 0.5 t\n",
     "r.run, line 3: document 'd1' appears twice for topic '301' (first on line 1). trec_eval refuses "
     "duplicate documents; remove one of the lines.\n    '301 Q0 d1 3 0.5 t'", 3),
    ("empty", b"", "r.run: the file is empty. Choose a file with at least one line of data.", None),
    ("blank only", b"  \n\t\n", "r.run: the file is empty. Choose a file with at least one line of data.", None),
    ("comments only", b"# ir_metadata.start\n# ir_metadata.end\n",
     "r.run: the file has no data lines, only blank or '#' comment lines. Choose a file with at least one "
     "line of data.", None),
    ("binary", b"301 Q0 d1 1 2.5 t\n\x00\x01garbage\n",
     "r.run, line 2: the file contains binary data (byte 0x00), not text. Upload a plain-text or "
     "gzip-compressed file.\n    '\\x00\\x01garbage'", 2),
    ("latin-1", b"301 Q0 d1 1 2.5 t\n301 Q0 caf\xe9 2 1.5 t\n",
     "r.run, line 2: the text is not valid UTF-8 (byte 0xe9). Save the file as UTF-8 and upload it again.\n"
     "    '301 Q0 caf\ufffd 2 1.5 t'", 2),
    ("msmarco bad rank", b"301\td1\t1\n301\td2\ttwo\n",
     "r.run, line 2: rank 'two' is not a whole number. Use ranks 1, 2, 3, ... (the score is derived from "
     "the rank).\n    '301\\td2\\ttwo'", 2),
    ("truncated gzip", gzip.compress(GOOD_RUN)[:20],
     "r.run: the file looks gzip-compressed but cannot be decompressed (Compressed file ended before the "
     "end-of-stream marker was reached). Upload the complete file, or an uncompressed copy.", None),
    ("empty ids in csv", b"qid,docno,score\n301,,1.0\n,d2,2\n",
     "r.run, line 2: the docno is empty. Give every run row a qid and a docno.\n    '301,,1.0'\n"
     "r.run, line 3: the qid is empty. Give every run row a qid and a docno.\n    ',d2,2'", 2),
    ("null qid in parquet", _parquet({"qid": ["301", None], "docno": ["a", "b"], "score": [1.0, 2.0]}),
     "r.run, row 2: the qid is empty. Give every run row a qid and a docno.", 2),
]


@pytest.mark.parametrize("case,data,message,line", RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_bad_run_is_rejected_and_store_unchanged(store, case, data, message, line):
    before = snapshot(store)
    exc = error_of(store.add_run, "c", data, filename="r.run")
    if message is not None:
        assert str(exc) == message
    assert exc.problems[0].line == line
    assert exc.problems[0].file == "r.run"
    assert snapshot(store) == before
    assert str(error_of(read_run, data, filename="r.run")) == str(exc)  # the parser alone says the same



DUPLICATE = b"301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1.5 t\n301 Q0 d1 3 0.5 t\n"


@pytest.mark.parametrize("kind", ["path", "bytes", "getvalue", "stream"])
def test_duplicate_found_by_the_store_check_gets_the_parser_message(store, tmp_path, kind):
    """Loading leaves the duplicate check to the store (it runs beside the ranking); a file with a repeated
    document is then read again with the parser's check, whatever the source is, so the message is the same."""
    path = tmp_path / "r.run"
    path.write_bytes(DUPLICATE)
    source = {"path": lambda: path, "bytes": lambda: DUPLICATE, "getvalue": lambda: io.BytesIO(DUPLICATE),
              "stream": lambda: open(path, "rb")}[kind]()
    before = snapshot(store)
    try:
        exc = error_of(store.add_run, "c", source, filename="r.run")
    finally:
        if kind == "stream":
            source.close()
    assert str(exc) == {c[0]: c[2] for c in RUN_CASES}["duplicate docno"]
    assert snapshot(store) == before

QRELS_CASES = [
    ("looks like a run", b"301 0 d1 1\n301 Q0 d2 1 2.5 tag\n",
     "q.txt, line 2: found 6 fields but a qrels line needs 4 (qid iter docno rel); this looks like a run "
     "file. Upload it as a run instead.\n    '301 Q0 d2 1 2.5 tag'", 2),
    ("non-integer grade", b"301 0 d1 1\n301 0 d2 1.5\n",
     "q.txt, line 2: relevance grade '1.5' is not a whole number. Use an integer grade such as 0, 1 or 2 "
     "(negative grades are allowed).\n    '301 0 d2 1.5'", 2),
    ("duplicate judgment", b"301 0 d1 1\n301 0 d1 0\n",
     "q.txt, line 2: document 'd1' is judged twice for topic '301' (first on line 1). Keep one judgment "
     "per document and remove the other.\n    '301 0 d1 0'", 2),
    ("empty", b"\n", "q.txt: the file is empty. Choose a file with at least one line of data.", None),
    ("field count", b"301 0 d1 1\n301 0 d2\n",
     "q.txt, line 2: found 3 fields but a qrels line needs 4 (qid iter docno rel). Separate the fields with "
     "spaces or tabs and remove extra fields.\n    '301 0 d2'", 2),
    ("binary", b"301 0 d1 1\n\x7fELF\x02\n",
     "q.txt, line 2: the file contains binary data (byte 0x7f), not text. Upload a plain-text or "
     "gzip-compressed file.\n    '\\x7fELF\\x02'", 2),
    ("utf-16", "301 0 d1 1\n".encode("utf-16"),
     "q.txt, line 1: the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8. Save the "
     "file as UTF-8 and upload it again.", 1),
    ("empty docno in csv", b"qid,docno,rel\n301,d1,1\n302,,0\n",
     "q.txt, line 3: the docno is empty. Give every qrels row a qid and a docno.\n    '302,,0'", 3),
    ("truncated gzip", gzip.compress(QRELS)[:20],
     "q.txt: the file looks gzip-compressed but cannot be decompressed (Compressed file ended before the "
     "end-of-stream marker was reached). Upload the complete file, or an uncompressed copy.", None),
]


@pytest.mark.parametrize("case,data,message,line", QRELS_CASES, ids=[c[0] for c in QRELS_CASES])
def test_bad_qrels_is_rejected_and_store_unchanged(store, case, data, message, line):
    before = snapshot(store)
    exc = error_of(store.add_qrels, "c", data, filename="q.txt", assessor="B")
    assert str(exc) == message
    assert exc.problems[0].line == line
    assert snapshot(store) == before
    assert str(error_of(read_qrels, data, filename="q.txt")) == message


def test_run_sharing_no_topics_with_qrels(store):
    before = snapshot(store)
    exc = error_of(store.add_run, "c", b"999 Q0 d1 1 1.0 x\n998 Q0 d1 1 1.0 x\n", filename="other.run")
    assert str(exc) == ("other.run: none of the run's 2 topics (998, 999) appear in the collection's qrels "
                        "(2 topics: 301, 302). Check that you chose the right collection, or load the matching "
                        "qrels first.")
    assert exc.problems[0].line is None
    assert snapshot(store) == before


def test_existing_run_name_offers_replace_or_rename(store):
    before = snapshot(store)
    exc = error_of(store.add_run, "c", GOOD_RUN, filename="again.run")
    assert str(exc) == ("again.run: a run named 'tagA' already exists in collection 'c'. Choose replace to "
                        "overwrite it, or rename to load it as 'tagA-2'.")
    assert snapshot(store) == before
    renamed = store.add_run("c", GOOD_RUN, filename="again.run", on_conflict="rename")
    assert renamed.name == "tagA-2"
    assert "loaded as 'tagA-2'" in renamed.warnings[0]
    assert sorted(store.runs("c")["name"]) == ["tagA", "tagA-2"]


def test_topic_mismatch_is_a_warning_with_counts(store):
    rep = store.add_run("c", b"301 Q0 d1 1 1.0 w\n303 Q0 d1 1 1.0 w\n304 Q0 d1 1 1.0 w\n", filename="w.run")
    assert rep.warnings == [
        "2 of the run's 3 topics have no judgments in the qrels (303, 304); evaluation ignores them.",
        "1 of the 2 judged topics are missing from the run (302); trec_eval skips them unless -c counts them as 0.",
    ]


def test_at_most_20_problems_then_and_n_more():
    data = b"".join(b"301 Q0 d%d 1 x%d t\n" % (i, i) for i in range(25))
    exc = error_of(read_run, data, filename="many.run")
    text = str(exc).splitlines()
    assert len(exc.problems) == 20 and exc.total == 25
    assert text[-1] == "...and 5 more"
    assert [p.line for p in exc.problems] == list(range(1, 21))


def test_problems_of_different_kinds_are_listed_in_line_order():
    data = b"301 Q0 d1 1 1.0 t\n301 Q0 d2 2 nan? t\n301 Q0 d1 3 0.5 t\n301 Q0 d4 4\n"
    exc = error_of(read_run, data, filename="mixed.run")
    assert [p.line for p in exc.problems] == [2, 3, 4]
    assert "score 'nan?' is not a number" in exc.problems[0].message
    assert "appears twice" in exc.problems[1].message
    assert "found 4 fields" in exc.problems[2].message


def test_topics_errors_name_the_line():
    exc = error_of(read_topics, b"301\tfirst\n302 no tab here\n", filename="t.tsv")
    assert str(exc) == ("t.tsv, line 2: found no tab between the qid and the text. Write each topic as "
                        "'qid<TAB>text' on one line.\n    '302 no tab here'")
    exc = error_of(read_topics, b'{"qid": "1", "text": "a"}\n{"qid": 2, \n', filename="t.jsonl")
    assert exc.problems[0].line == 2 and "not valid JSON" in str(exc)
    exc = error_of(read_topics, b"301\ta\n301\tb\n", filename="t.tsv")
    assert str(exc) == "t.tsv, line 2: topic '301' appears twice (first on line 1). Keep one entry per topic."


def test_failed_cli_style_batch_leaves_nothing(store):
    """A transaction that fails on its second file rolls back the first one too."""
    from core.store import ingest
    before = snapshot(store)
    with pytest.raises(UploadError):
        with store.transaction() as cur:
            ingest.add_run(cur, ingest.collection_id(cur, "c"), GOOD_RUN.replace(b"tagA", b"tagB"), filename="ok.run")
            ingest.add_run(cur, ingest.collection_id(cur, "c"), b"301 Q0 d1 1 bad t\n", filename="bad.run")
    assert snapshot(store) == before


def test_overflowing_score_and_nan_are_rejected():
    exc = error_of(read_run, b"301 Q0 d1 1 1e999 t\n301 Q0 d2 2 NaN t\n", filename="big.run")
    assert str(exc) == ("big.run, line 1: score is too large to represent. Use a score between -1e308 and 1e308.\n"
                        "    '301 Q0 d1 1 1e999 t'\n"
                        "big.run, line 2: score 'NaN' is not a number. Use a decimal number such as 12.5, -3 or "
                        "1.2e-3.\n    '301 Q0 d2 2 NaN t'")


def test_qrels_sets_need_distinct_assessor_names(store):
    before = snapshot(store)
    exc = error_of(store.add_qrels, "c", QRELS, filename="again.txt", assessor="NIST")
    assert str(exc) == ("again.txt: the collection already has qrels by assessor 'NIST'. Give these judgments a "
                        "different assessor name.")
    assert snapshot(store) == before


def test_a_failed_replace_keeps_the_old_run(store):
    """on_conflict='replace' deletes the old run first; a rejected new file must bring it back."""
    before = snapshot(store)
    exc = error_of(store.add_run, "c", b"999 Q0 d1 1 1.0 tagA\n", filename="new.run", on_conflict="replace")
    assert str(exc).startswith("new.run: none of the run's 1 topic (999) appear in the collection's qrels")
    assert snapshot(store) == before


def test_an_error_after_the_rows_are_inserted_rolls_back_everything(store, monkeypatch):
    """A failure after the old run was deleted and the new rows inserted leaves the store as it was."""
    from core.store import ingest

    class Boom:
        @staticmethod
        def dumps(_):
            raise RuntimeError("disk full")
    before = snapshot(store)
    monkeypatch.setattr(ingest, "json", Boom)
    with pytest.raises(RuntimeError, match="disk full"):
        store.add_run("c", GOOD_RUN, filename="again.run", on_conflict="replace")
    assert snapshot(store) == before


@pytest.mark.parametrize("method,data,message", [
    ("add_topics", b"301\tfirst\n302 no tab\n",
     "t.tsv, line 2: found no tab between the qid and the text. Write each topic as 'qid<TAB>text' on one "
     "line.\n    '302 no tab'"),
    ("add_topics", b"<top>\n<num> Number: 301\n</top>\n",
     "t.tsv, line 1: this <top> has no <title>. Give every topic a <num> and a <title>.\n    '<num> Number: 301'"),
    ("add_documents", b"d1\tone\nd1\ttwo\n",
     "t.tsv, line 2: document 'd1' appears twice (first on line 1). Keep one entry per document."),
    ("add_documents", b"d1\tcaf\xe9\n",
     "t.tsv, line 1: the text is not valid UTF-8 (byte 0xe9). Save the file as UTF-8 and upload it "
     "again.\n    'd1\\tcaf\ufffd'"),
])
def test_bad_topics_and_documents_leave_the_store_unchanged(store, method, data, message):
    store.add_topics("c", b"301\told text\n", filename="old.tsv")
    before = snapshot(store)
    assert str(error_of(getattr(store, method), "c", data, filename="t.tsv")) == message
    assert snapshot(store) == before


def test_collections_by_numpy_integer_id(store):
    """Ids read back from a DataFrame are numpy integers; they name the collection like an int."""
    cid = store.collections()["collection_id"].iloc[0]
    assert not isinstance(cid, int)
    assert store.runs(cid)["name"].tolist() == ["tagA"]
    rep = store.add_run(cid, GOOD_RUN.replace(b"tagA", b"tagB"), filename="b.run")
    assert rep.name == "tagB" and store.collections()["name"].tolist() == ["c"]


def test_an_unknown_on_conflict_is_an_eval_error_and_changes_nothing(store):
    from core.errors import EvalError
    before = snapshot(store)
    with pytest.raises(EvalError, match="on_conflict must be 'error', 'replace' or 'rename', not 'merge'"):
        store.add_run("c", GOOD_RUN, filename="again.run", on_conflict="merge")
    assert snapshot(store) == before
