"""nuggetizer's nuggets and assignments files (core/formats/nuggets.py, nuggetmatch.py): what is read, and every bad
input with its exact message."""
from __future__ import annotations

import gzip
import json

import pytest

from core.errors import UploadError
from core.formats import match_assignments, read_assignments, read_nuggets
from tests.cases import nuggets as case


def nuggets_line(qid, *nuggets) -> str:
    return json.dumps({"qid": qid, "nuggets": [{"text": t, "importance": i} for t, i in nuggets]})


def refused(reader, text: str, name: str) -> str:
    with pytest.raises(UploadError) as info:
        reader(text.encode(), filename=name)
    return str(info.value)


def test_the_nuggets_file_gives_one_row_per_nugget_in_its_place():
    parsed = read_nuggets(gzip.compress(case.nuggets_jsonl().encode()), filename="nuggets.jsonl.gz")
    n = parsed.nuggets
    assert n.columns.tolist() == ["qid", "nugget", "text", "importance", "line"]
    assert n[n["qid"] == "t3"]["nugget"].tolist() == [0, 1, 2, 3, 4]
    assert n[n["qid"] == "t4"]["text"].iat[0] == case.LONG
    assert parsed.records["qid"].tolist() == ["t1", "t2", "t3", "t4", "t5"]
    assert parsed.records["n"].tolist() == [4, 3, 5, 2, 0] and n["line"].tolist()[:5] == [1, 1, 1, 1, 2]


def test_other_keys_are_ignored_and_numeric_ids_are_read_as_text():
    text = ('{"qid": 1024, "query": "q?", "nuggets": [{"text": "a", "importance": "vital", "score": 3}]}\n'
            "# a comment\n\n" + nuggets_line("2024-1", ("b", "okay")) + "\n")
    parsed = read_nuggets(text.encode(), filename="n.jsonl")
    assert parsed.nuggets["qid"].tolist() == ["1024", "2024-1"] and parsed.nuggets["line"].tolist() == [1, 4]


def test_assignments_keep_their_run_and_label():
    parsed = read_assignments(case.assignments_jsonl().encode(), filename="a.jsonl")
    a = parsed.nuggets
    assert a.columns.tolist() == ["qid", "run_id", "nugget", "text", "importance", "assignment", "line"]
    assert len(parsed.records) == 15 and set(a["assignment"]) == {"support", "partial_support", "not_support",
                                                                  "failed"}


@pytest.mark.parametrize("text,message", [
    (nuggets_line("q1", ("a", "vital")) + "\n{bad json\n",
     "n.jsonl, line 2: this line is not valid JSON (Expecting property name enclosed in double quotes). Write one "
     "JSON object per line.\n    '{bad json'"),
    (nuggets_line("q1", ("a", "vital")) + "\n" + nuggets_line("q1", ("b", "okay")) + "\n",
     "n.jsonl, line 2: topic 'q1' appears twice (first on line 1). Keep one line per topic."),
    ('{"nuggets": []}\n', "n.jsonl, line 1: this object has no 'qid'. Give every line a 'qid'.\n"
                          "    '{\"nuggets\": []}'"),
    ('{"qid": "1", "nuggets": "x"}\n', "n.jsonl, line 1: 'nuggets' is not a list. Write the nuggets as a list of "
                                       "{...} objects.\n    '{\"qid\": \"1\", \"nuggets\": \"x\"}'"),
    ('{"qid": [1], "nuggets": []}\n', "n.jsonl, line 1: 'qid' is list, not a string. Write the qid as a JSON "
                                      "string.\n    '{\"qid\": [1], \"nuggets\": []}'"),
    ('{"qid": "1", "nuggets": [{"text": 5, "importance": "vital"}]}\n',
     "n.jsonl, line 1: nugget 1 is not an object of strings text, importance. Write each nugget as {\"text\": \"...\", "
     "\"importance\": \"...\"}.\n    '{\"qid\": \"1\", \"nuggets\": [{\"text\": 5, \"importance\": \"vital\"}]}'"),
    ("[1, 2]\n", "n.jsonl, line 1: this line is not a JSON object. Write one {...} object per line.\n    '[1, 2]'"),
    ("\n \n", "n.jsonl: the file is empty. Choose a file with at least one line of data."),
])
def test_a_bad_nuggets_file_is_refused_naming_the_line(text, message):
    assert refused(read_nuggets, text, "n.jsonl") == message


def test_every_bad_nugget_is_named_in_the_order_of_the_file():
    line = nuggets_line("q1", ("a", "high"), (" ", "okay"), ("c", "vital"))
    assert refused(read_nuggets, line + "\n", "n.jsonl") == (
        f"n.jsonl, line 1: nugget 1 has importance 'high'. Use one of vital, okay, failed.\n    {line!r}\n"
        f"n.jsonl, line 1: nugget 2 has no text. Give every nugget its text.\n    {line!r}")


def test_a_bad_assignments_file_is_refused_naming_the_line():
    no_run = '{"qid": "1", "nuggets": []}'
    assert refused(read_assignments, no_run + "\n", "a.jsonl") == (
        f"a.jsonl, line 1: this object has no 'run_id'. Give every line a 'run_id'.\n    {no_run!r}")
    line = json.dumps({"qid": "1", "run_id": "r", "nuggets": [
        {"text": "a", "importance": "vital", "assignment": "yes"}, {"text": "b", "importance": "vital"}]})
    assert refused(read_assignments, line + "\n", "a.jsonl") == (
        f"a.jsonl, line 1: nugget 1 has assignment 'yes'. Use one of support, partial_support, not_support, failed."
        f"\n    {line!r}\na.jsonl, line 1: nugget 2 has no assignment. Use one of support, partial_support, "
        f"not_support, failed.\n    {line!r}")
    records = case.assignments()
    records[0]["qid"] = records[1]["qid"]
    assert refused(read_assignments, case.assignments_jsonl(records), "a.jsonl") == (
        "a.jsonl, line 2: run 'rag-bm25' has topic 't2' twice (first on line 1). Keep one line per run and topic.")


def test_a_parquet_file_is_not_a_nuggets_file():
    assert refused(read_nuggets, "PAR1" + "x" * 20, "n.parquet") == (
        "n.parquet: a Parquet file is not a nuggets file. Upload nuggetizer's JSON Lines output (one JSON object per "
        "line).")


def matched(records):
    return match_assignments(read_nuggets(case.nuggets_jsonl().encode(), filename="nuggets.jsonl"),
                             read_assignments(case.assignments_jsonl(records).encode(), filename="a.jsonl"))


def test_each_assignment_learns_its_nuggets_place_whatever_the_order():
    m = matched(case.assignments())
    a = m.assignments
    dense_t1 = a[(a["run_id"] == "rag-dense") & (a["qid"] == "t1")]
    assert dense_t1["nugget"].tolist() == [3, 2, 1, 0]          # written in reverse order
    bm25_t3 = a[(a["run_id"] == "rag-bm25") & (a["qid"] == "t3")]
    assert bm25_t3["nugget"].tolist() == [0, 1, 2, 3, 4]        # the twice-given nugget takes both places
    assert m.runs == list(case.RUNS) and m.topics == ["t1", "t2", "t3", "t4", "t5"] and m.warnings == []


def test_a_topic_whose_nuggets_differ_is_refused_naming_the_topic():
    records = case.assignments()
    records[2]["nuggets"][0]["text"] = "Something else"
    records[6]["nuggets"].pop()
    records[7]["qid"] = "t9"
    records[8]["nuggets"][1]["importance"] = "okay"
    records[12]["nuggets"].append(dict(records[12]["nuggets"][0]))
    with pytest.raises(UploadError) as info:
        matched(records)
    assert str(info.value) == "\n".join([
        "a.jsonl, line 3: the nuggets of topic 't3' (run 'rag-bm25') differ from those in nuggets.jsonl: 'Something "
        "else' (vital) is not among them. Load the nuggets file these assignments were made from, or assign its "
        "nuggets again.",
        "a.jsonl, line 7: the nuggets of topic 't2' (run 'rag-dense') differ from those in nuggets.jsonl: this line "
        "has 2 nuggets, nuggets.jsonl has 3. Load the nuggets file these assignments were made from, or assign its "
        "nuggets again.",
        "a.jsonl, line 8: topic 't9' (run 'rag-dense') is not in nuggets.jsonl. Load the nuggets file these "
        "assignments were made from, or remove the lines of topic 't9'.",
        "a.jsonl, line 9: the nuggets of topic 't4' (run 'rag-dense') differ from those in nuggets.jsonl: 'Citations "
        "help assessors' (okay) is not among them. Load the nuggets file these assignments were made from, or assign "
        "its nuggets again.",
        "a.jsonl, line 13: the nuggets of topic 't3' (run 'rag-hybrid') differ from those in nuggets.jsonl: 'BM25 is "
        "a bag-of-words ranking function' (vital) is not among them. Load the nuggets file these assignments were "
        "made from, or assign its nuggets again."])


def test_a_run_without_a_topic_is_matched_with_a_warning():
    m = matched(case.assignments(skip=(("rag-hybrid", "t5"),)))
    assert m.missing == {"rag-hybrid": ["t5"]}
    assert m.warnings == ["run 'rag-hybrid' has no assignments for topic t5: it scores 0 there"]
