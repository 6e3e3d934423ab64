"""The file variants people really have: whitespace, comments, gzip, MS MARCO, CSV, Parquet, topics, docs."""
from __future__ import annotations

import gzip
import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.formats import read_documents, read_qrels, read_run, read_topics
from tests.cases.reference import reference_file, robust_run

IR_METADATA = b"""# ir_metadata.start
# tag: bm25-tuned
# research goal:
#   description: a baseline
# platform:
#   software:
#     libraries:
#       - pyserini
#       - numpy
# ir_metadata.end
"""


def rows(parsed) -> list[tuple]:
    t = parsed.table
    return list(zip(*(t[c].to_pylist() for c in t.column_names)))


def test_trec_run_any_whitespace_crlf_comments_scientific_negative():
    data = (IR_METADATA + b"0301 Q0  d1\t1 2.5e3 bm25\r\n\n  0301\tQ0 d#2 2 -1.5E-2 bm25 \r\n"
            b"302 Q0 d3 1 +7 bm25\n")
    run = read_run(data, filename="run.txt")
    assert rows(run) == [("0301", "d1", 2500.0), ("0301", "d#2", -0.015), ("302", "d3", 7.0)]
    assert run.tag == "bm25" and run.format == "trec"
    assert run.table.schema.field("qid").type == pa.string()
    assert run.metadata["tag"] == "bm25-tuned"
    assert run.metadata["research goal"] == {"description": "a baseline"}
    assert run.metadata["platform"]["software"]["libraries"] == ["pyserini", "numpy"]
    assert run.metadata["header"].startswith("# ir_metadata.start")


def test_gzip_detected_by_magic_bytes_without_extension(tmp_path):
    path = tmp_path / "input.myrun"
    path.write_bytes(gzip.compress(b"301 Q0 d1 1 1.0 myrun\n"))
    run = read_run(path)
    assert rows(run) == [("301", "d1", 1.0)] and run.tag == "myrun"
    assert read_run(io.BytesIO(path.read_bytes()), filename="x").n_rows == 1


def test_msmarco_three_column_run_keeps_rank_order():
    run = read_run(b"1048585\t7187158\t1\n1048585\t7187157\t2\n1048585\t10\t3\n", filename="dev.tsv")
    assert run.format == "msmarco" and run.tag is None
    assert rows(run) == [("1048585", "7187158", -1.0), ("1048585", "7187157", -2.0), ("1048585", "10", -3.0)]


def test_csv_with_named_columns_any_order_and_aliases():
    run = read_run(b'score,docid,query_id\n1.5,"d1",301\n0.5,d2,301\n', filename="run.csv")
    assert run.format == "csv" and rows(run) == [("301", "d1", 1.5), ("301", "d2", 0.5)]
    exc_data = b"qid,docno,score\n301,d1,1.0\n301,d2\n"
    with pytest.raises(Exception) as info:
        read_run(exc_data, filename="bad.csv")
    assert str(info.value) == ("bad.csv, line 3: found 2 fields but the header names 3 columns. Give every run "
                               "line the same columns as the header.\n    '301,d2'")


def test_parquet_run_casts_ids_to_strings():
    buf = io.BytesIO()
    pq.write_table(pa.table({"qid": [301, 302], "docno": ["a", "b"], "score": [1.0, -2.0]}), buf)
    run = read_run(buf.getvalue(), filename="run.parquet")
    assert run.format == "parquet" and rows(run) == [("301", "a", 1.0), ("302", "b", -2.0)]


def test_several_tags_warn_and_the_last_line_names_the_run_as_in_trec_eval():
    """trec_eval prints the run_id of the file's last line in its runid line (get_trec_results.c)."""
    run = read_run(b"1 Q0 a 1 1 x\n1 Q0 b 2 0 y\n", filename="r")
    assert run.tag == "y" and run.warnings == [
        "The run has 2 different tags in column 6 (x, y); using 'y', the last line's, as trec_eval does."]
    assert read_run(b"1 Q0 a 1 1 x\n1 Q0 b 2 0 y\n2 Q0 a 1 1 x\n", filename="r").tag == "x"
    assert read_run(b"1 Q0 a 1 1 x\n1 Q0 b 2 0 y\n2  Q0 a 1 1 x\n", filename="r").tag == "x"   # the tolerant parser


def test_qrels_negative_grades_and_string_ids():
    q = read_qrels(b"0301 0 d1 -1\n0301 0 d2 2\n10 0 d3 0\n", filename="q")
    assert rows(q) == [("0301", "d1", -1), ("0301", "d2", 2), ("10", "d3", 0)]
    assert q.table.schema.field("rel").type == pa.int32()


def test_qrels_judgment_groups():
    q = read_qrels(reference_file("trec_eval_test/qrels.123.gz"), judgment_groups=True)
    groups = q.by_group()
    assert {g: t.num_rows for g, t in groups.items()} == {"0": 3681, "1": 3681, "2": 3000}


def test_topics_sgml_tsv_jsonl():
    topics = read_topics(reference_file("anserini_tools/topics/topics.robust04.txt.gz"))
    assert len(topics) == 250
    first = topics.iloc[0]
    assert (first.qid, first.text) == ("301", "International Organized Crime")
    assert first.description.startswith("Identify organizations that participate")
    tsv = read_topics(b"156493\tdo goldfish grow\n1110199\twhat is wifi\tvs bluetooth\n", filename="t.tsv")
    assert tsv.to_dict("list") == {"qid": ["156493", "1110199"], "text": ["do goldfish grow", "what is wifi\tvs bluetooth"]}
    jl = read_topics(b'{"id": 464, "title": "community"}\n\n{"id": "200", "title": "holocaust"}\n', filename="t.jsonl")
    assert jl.to_dict("list") == {"qid": ["464", "200"], "text": ["community", "holocaust"]}


def test_documents_tsv_and_jsonl():
    docs = read_documents(gzip.compress(b"d1\tHello world\nd2\tSecond doc\n"), filename="docs.tsv.gz")
    assert docs.to_dict("list") == {"docno": ["d1", "d2"], "text": ["Hello world", "Second doc"]}
    lines = "\n".join(json.dumps({"docid": f"D{i}", "contents": f"text {i}"}) for i in range(3)).encode()
    docs = read_documents(lines, filename="docs.jsonl")
    assert list(docs.docno) == ["D0", "D1", "D2"] and docs.text.iat[2] == "text 2"
    trec = b"<DOC>\n<DOCNO> LA010189-0001 </DOCNO>\n<HEADLINE>Big</HEADLINE>\n<TEXT>\nnews  today\n</TEXT>\n</DOC>\n"
    docs = read_documents(trec + trec.replace(b"0001", b"0002"), filename="la.sgml")
    assert docs.values.tolist() == [["LA010189-0001", "Big news today"], ["LA010189-0002", "Big news today"]]


def test_reference_runs_parse_exactly():
    """Every line of a real run survives: same count and same (qid, docno, score) as a naive parse."""
    path = robust_run("MU03rob01")
    run = read_run(path)
    naive = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, names=["qid", "q0", "docno", "rank", "score", "tag"])
    assert run.n_rows == len(naive) == 100000
    assert run.table["qid"].to_pylist() == naive["qid"].tolist()
    assert run.table["docno"].to_pylist() == naive["docno"].tolist()
    assert run.table["score"].to_pylist() == naive["score"].astype(float).tolist()


def test_utf8_bom_and_unicode_docnos():
    run = read_run("\ufeff301 Q0 café-1 1 1.0 t\n".encode(), filename="bom.run")
    assert rows(run) == [("301", "café-1", 1.0)]


def test_extra_fields_after_the_tag_are_ignored_like_trec_eval():
    run = read_run(reference_file("trec_eval_test/results.trunc.gz"))
    assert run.n_rows == 584 and run.tag == "STANDARD"
    assert run.warnings == ["5 lines (first: line 1) have more than 6 fields; the extra fields were ignored, "
                            "as trec_eval does."]


def test_60000_sgml_documents_parse_with_exact_line_numbers():
    """Line numbers are counted incrementally: 60,000 <DOC>s (4.5 MB) parse in about a second
    (counting from the start of the file for every block took minutes), and a bad block late in
    the file is still reported on its own line. Speed is not asserted (tests never time things);
    a quadratic regression shows up as a slow suite."""
    from core.errors import UploadError
    doc = "<DOC>\n<DOCNO> D{} </DOCNO>\n<TEXT>\nsome text {}\n</TEXT>\n</DOC>\n"   # 6 lines each
    text = "".join(doc.format(i, i) for i in range(60_000))
    docs = read_documents(text.encode(), filename="big.sgml")
    assert len(docs) == 60_000 and docs.iloc[-1].tolist() == ["D59999", "some text 59999"]
    with pytest.raises(UploadError) as info:
        read_documents((text + "<DOC>\n<TEXT>no id</TEXT>\n</DOC>\n").encode(), filename="big.sgml")
    assert str(info.value) == ("big.sgml, line 360001: this <DOC> has no <DOCNO>. Give every document a "
                               "<DOCNO>...</DOCNO>.\n    '<TEXT>no id</TEXT>'")


def test_a_tsv_header_line_is_not_a_topic_or_a_document():
    from core.errors import UploadError
    assert read_topics(b"qid\tquery\n301\tcrime\n", filename="t.tsv").values.tolist() == [["301", "crime"]]
    assert read_documents(b"docno\ttext\nd1\thello\n", filename="d.tsv").values.tolist() == [["d1", "hello"]]
    assert read_topics(b"301\ttext\n", filename="t.tsv").values.tolist() == [["301", "text"]]  # a real topic
    with pytest.raises(UploadError) as info:
        read_documents(b"docno\ttext\n", filename="d.tsv")
    assert str(info.value) == ("d.tsv, line 1: the file has a header line but no data lines. Add one line "
                               "'docno<TAB>text' per document.\n    'docno\\ttext'")


def test_a_huge_comment_line_parses():
    """The ir_metadata key pattern is linear: a 200,000-character '#' line without a colon took
    minutes with the lazy pattern (quadratic backtracking), now milliseconds."""
    data = ("# a" + " " * 200_000 + "b\n# tag: x\n301 Q0 d1 1 1.0 t\n").encode()
    run = read_run(data, filename="r.run")
    assert run.metadata["tag"] == "x" and run.n_rows == 1


def test_long_whitespace_in_sgml_fields_parses():
    spaces = " " * 200_000
    topics = read_topics(f"<top>\n<num> 301\n<title> a{spaces}b\n</top>\n".encode(), filename="t.sgml")
    docs = read_documents(f"<DOC>\n<DOCNO> a{spaces}b </DOCNO>\n</DOC>\n".encode(), filename="d.sgml")
    assert topics.values.tolist() == [["301", "a b", "", ""]]
    assert docs["docno"].tolist() == [f"a{spaces}b"]
