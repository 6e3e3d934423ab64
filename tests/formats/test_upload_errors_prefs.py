"""Bad preference files (trec_eval -R prefs, `qid jg jsg docno rel_level`): the exact message and line."""
from __future__ import annotations

import gzip

import pytest

from core.errors import UploadError
from core.formats.prefs import read_prefs

CASES = [
    ("field count", b"1 a s d1 1\n1 a s d2\n",
     "p.txt, line 2: found 4 fields but a prefs line needs 5 (qid jg jsg docno rel_level). Separate the fields "
     "with spaces or tabs and remove extra fields.\n    '1 a s d2'"),
    ("looks like qrels", b"1 a s d1 1\n\n1 0 d2 1\n",
     "p.txt, line 3: found 4 fields but a prefs line needs 5 (qid jg jsg docno rel_level); this looks like a qrels "
     "file. Evaluate it with -R qrels_prefs (a qrels file read as preferences) instead.\n    '1 0 d2 1'"),
    ("extra field", b"1 a s d1 1 extra\n",
     "p.txt, line 1: found 6 fields but a prefs line needs 5 (qid jg jsg docno rel_level). Separate the fields "
     "with spaces or tabs and remove extra fields.\n    '1 a s d1 1 extra'"),
    ("level not a number", b"# judged by A\n1 a s d1 high\n",
     "p.txt, line 2: rel_level 'high' is not a number. Use a number such as 0, 1 or 2.5 (higher is preferred; 0 is "
     "non-relevant).\n    '1 a s d1 high'"),
    ("twice in a subgroup", b"1 a s d1 1\n1 a t d1 2\n1 a s d1 2\n",
     "p.txt, line 3: document 'd1' appears twice in one judgment subgroup for topic '1' (first on line 1). Give a "
     "document one rel_level per (topic, jg, jsg): remove the other line.\n    '1 a s d1 2'"),
    ("only comments", b"# nothing\n\n",
     "p.txt: the file has no data lines, only blank or '#' comment lines. Choose a file with at least one line of "
     "data."),
]


@pytest.mark.parametrize("case,data,message", CASES, ids=[c[0] for c in CASES])
def test_bad_prefs_file(case, data, message):
    with pytest.raises(UploadError) as info:
        read_prefs(data, filename="p.txt")
    assert str(info.value) == message


def test_good_prefs_file_with_comments_gzip_and_negative_levels():
    data = gzip.compress(b"# comment\n1 a s d1 1\n  1 a s d2 -1.5 \n1 a t d1 0.5\n")
    table = read_prefs(data, filename="p.txt.gz").table
    assert table.to_pylist() == [
        {"qid": "1", "jg": "a", "jsg": "s", "docno": "d1", "rel": 1.0},
        {"qid": "1", "jg": "a", "jsg": "s", "docno": "d2", "rel": -1.5},
        {"qid": "1", "jg": "a", "jsg": "t", "docno": "d1", "rel": 0.5}]


def test_many_problems_are_counted():
    data = b"".join(b"1 a s d%d x\n" % i for i in range(25))
    with pytest.raises(UploadError) as info:
        read_prefs(data, filename="p.txt")
    assert info.value.total == 25 and str(info.value).endswith("...and 5 more")
