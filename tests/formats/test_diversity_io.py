"""Subtopic qrels in and out: the parser's exact messages, and `python -m core evaluate` on diversity qrels."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import UploadError
from core.formats.subtopics import read_subtopic_qrels

ROOT = Path(__file__).resolve().parents[2]

# (case, file bytes, exact message)
CASES = [
    ("field count", b"1 a d1 1\n1 a d2\n",
     "d.qrels, line 2: found 3 fields but a subtopic qrels line needs 4 (qid subtopic docno rel). Separate the "
     "fields with spaces or tabs and remove extra fields.\n    '1 a d2'"),
    ("grade", b"# TREC 2011 diversity\n1 a d1 1\n1 b d1 yes\n",
     "d.qrels, line 3: relevance grade 'yes' is not a whole number. Use an integer grade such as 0 or 1 "
     "(negative grades are allowed).\n    '1 b d1 yes'"),
    ("same subtopic twice", b"1 a d1 1\n1 b d1 1\n1 a d1 0\n",
     "d.qrels, line 3: document 'd1' is judged twice (same subtopic) for topic '1' (first on line 1). Keep one "
     "judgment per document and subtopic.\n    '1 a d1 0'"),
    ("empty", b"", "d.qrels: the file is empty. Choose a file with at least one line of data."),
]


@pytest.mark.parametrize("case,data,message", CASES, ids=[c[0] for c in CASES])
def test_upload_errors(case, data, message):
    with pytest.raises(UploadError) as info:
        read_subtopic_qrels(data, filename="d.qrels")
    assert str(info.value) == message


def test_reads_in_file_order():
    parsed = read_subtopic_qrels(b"2 b x 1\n1 a y -1\n2 a y 0\n", filename="d.qrels")
    assert parsed.table.to_pydict() == {"qid": ["2", "1", "2"], "subtopic": ["b", "a", "a"],
                                        "docno": ["x", "y", "y"], "rel": [1, -1, 0]}
    assert not parsed.single_subtopic()
    assert read_subtopic_qrels(b"1 0 x 1\n2 0 y 1\n", filename="d.qrels").single_subtopic()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "core", "evaluate", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "div.qrels"
    q.write_text("1 1 A 1\n1 2 B 1\n1 2 C 1\n2 1 X 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 A 1 3 sys\n1 Q0 Z 2 2 sys\n1 Q0 C 3 1 sys\n2 Q0 X 1 1 sys\n")
    return q, r


def test_cli_detects_diversity_measures_and_says_so(files):
    q, r = files
    out = _cli(q, r, "-m", "alpha_nDCG@10", "-m", "NRBP", "-q")
    assert out.returncode == 0, out.stderr
    assert f"note: reading {q} as subtopic qrels" in out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "alpha_nDCG@10         \t1\t0.7975" and lines[-1] == "NRBP                  \tall\t0.6094"


def test_cli_qrels_kind_diversity_defaults_to_ndeval_set(files):
    q, r = files
    out = _cli(q, r, "--qrels-kind", "diversity")
    assert out.returncode == 0, out.stderr
    names = [line.split("\t")[0].strip() for line in out.stdout.splitlines()]
    assert names[:3] == ["ERR_IA@5", "ERR_IA@10", "ERR_IA@20"] and len(names) == 21 and "nNRBP" in names


def test_cli_refuses_a_mix(files):
    q, r = files
    out = _cli(q, r, "-m", "alpha_nDCG@10", "-m", "P@5")
    assert out.returncode != 0
    assert ("alpha_nDCG@10 needs subtopic qrels (qid subtopic docno rel) and P@5 ordinary qrels: evaluate them in "
            "two calls, the diversity measures with --qrels-kind diversity.") in out.stderr


def test_cli_load_and_list_a_diversity_set(files, tmp_path):
    q, r = files
    store = tmp_path / "s.duckdb"
    out = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", "web",
                          "--qrels", str(q), "--diversity-qrels", str(q), "--run", str(r)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "diversity qrels div.qrels as 'div.qrels': 4 rows" in out.stderr
    listing = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "list"], capture_output=True,
                             text=True, cwd=ROOT).stdout
    assert "div.qrels" in listing and "3 subtopics (diversity qrels)" in listing
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 a d1\n")
    out = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", "web",
                          "--diversity-qrels", str(bad)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0 and "bad.qrels, line 1: found 3 fields but a subtopic qrels line needs 4" in out.stderr
