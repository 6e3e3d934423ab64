"""Large runs are loaded a piece at a time (core/store/prepare.py): the store must end up exactly as when the
file is parsed whole. The threshold is forced to 0 (every run is read in pieces, pieces of ~30 KB so that lines,
topics and CRLFs straddle piece ends) or to 100 GB (every run is parsed whole), the same 17 files (two Robust 2003
runs and 15 made from them, 100,000 lines each at most) are loaded both ways, from the command line and as uploads
(bytes), and every stored table is compared row for row: a slow test. (Bad files both ways, a failed load and a
killed one: tests/store/test_ingest_stream.py.)"""
from __future__ import annotations

import gzip
import os
import re

import numpy as np
import pytest

import core.formats.pieces as pieces
import core.store.prepare as prep
from core.store.store import Store
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_runs
from tests.fixtures_store import STREAM_WAYS as WAYS
from tests.fixtures_store import cli, file_rows

pytestmark = pytest.mark.slow


@pytest.fixture
def runs(tmp_path):
    """Run files of every kind the pieces path must handle (or decline), and the qrels."""
    gz = robust_runs()[:2]                                               # gzip, 6-column TREC
    lines = gzip.decompress(gz[0].read_bytes()).splitlines(keepends=True)
    ties = tmp_path / "ties.run"                                         # tied scores, listed in docno ascending order
    rows = [ln.split() for ln in lines]
    rows.sort(key=lambda r: (int(r[0]), -round(float(r[4]), 1), r[2]))
    ties.write_bytes(b"".join(b"%s Q0 %s %d %.1f tieA\n" % (r[0], r[2], i, round(float(r[4]), 1))
                              for i, r in enumerate(rows)))
    crlf = tmp_path / "crlf.run"                                         # tabs and CRLF, two tags, an extra topic
    text = ties.read_bytes().replace(b" ", b"\t").replace(b"\n", b"\r\n")
    text = text.replace(b"\ttieA\r\n", b"\ttieB\r\n", 50) + b"999\tQ0\tdX\t1\t1\ttieA\r\n"
    crlf.write_bytes(text)
    gz_ties = tmp_path / "ties.run.gz"
    gz_ties.write_bytes(gzip.compress(ties.read_bytes()))
    shuffled = tmp_path / "shuffled.run"                                 # topics not contiguous: DuckDB ranks
    shuffled.write_bytes(b"".join(lines[i] for i in np.random.default_rng(5).permutation(len(lines))))
    big = tmp_path / "bigtopic.run"                                      # one topic larger than 4 pieces: DuckDB
    big.write_bytes(b"".join(b"303 Q0 doc%d 0 %d big\n" % (d * 7919 % 6007, d // 3) for d in range(6007)) + b"8 Q0 doc1 0 1 big\n")
    msmarco = tmp_path / "msmarco.tsv"                                   # MS MARCO: qid, docno, rank (score = -rank)
    msmarco.write_bytes(b"".join(b"%s\t%s\t%d\n" % (r[0], r[2], i % 1000 + 1) for i, r in enumerate(rows)))
    gz_msmarco = tmp_path / "msmarco.tsv.gz"
    gz_msmarco.write_bytes(gzip.compress(msmarco.read_bytes()))
    ms_shuffled = tmp_path / "msmarco-shuffled.tsv"                      # MS MARCO, topics not contiguous: DuckDB
    ms_lines = msmarco.read_bytes().splitlines(keepends=True)
    ms_shuffled.write_bytes(b"".join(ms_lines[i] for i in np.random.default_rng(6).permutation(len(ms_lines))))
    meta = tmp_path / "meta.run"                                         # a comment header: its lines stream
    meta.write_bytes(b"# ir_metadata: {tag: fromheader}\n" + lines[0] + b"".join(lines[1:200]))
    ms_meta = tmp_path / "meta-msmarco.tsv"                              # the header names an MS MARCO run
    ms_meta.write_bytes(b"\xef\xbb\xbf# ir_metadata.start\r\n\n#  tag: fromheader  \r\n# method:\n"
                        b"#   name: bm25 \xc3\xa9\n# ir_metadata.end\n" + ms_shuffled.read_bytes())
    ms_meta2 = tmp_path / "meta2-msmarco.tsv"                            # the same without the byte order mark
    ms_meta2.write_bytes(ms_meta.read_bytes()[3:])
    mid = tmp_path / "midcomment.run"                                   # a comment further down: tolerant pieces
    mid.write_bytes(b"".join(lines[:150]) + b"# a note\n" + b"".join(lines[150:300]))
    extra = tmp_path / "extra.run"                  # extra fields, comments (metadata among them), CRLF: tolerant
    extra.write_bytes(b"\xef\xbb\xbf" + b"".join(ln.rstrip(b"\n") + b" x y\r\n" if i % 997 == 3 else
                                               b"#  tag: fromcomment\n" + ln if i == 40_000 else ln
                                               for i, ln in enumerate(lines)))
    ms_comment = tmp_path / "comment-msmarco.tsv"                        # MS MARCO with a comment and blank lines
    ms_comment.write_bytes(b"\n".join(ms_lines[:3]) + b"\n\n# note\n" + b"".join(ms_lines[3:]))
    blanks = tmp_path / "blanks.run"                                    # blanks of any kind and number: streamed
    blanks.write_bytes(b"".join(b" \t" + ln.rstrip().replace(b" ", b" \t ") + b"  \n" if i % 5 == 0 else ln
                                for i, ln in enumerate(lines)))
    return {"qrels": reference_file(ROBUST_QRELS),
            "runs": [*gz, ties, crlf, gz_ties, shuffled, big, msmarco, gz_msmarco, ms_shuffled, meta, ms_meta,
                     ms_meta2, mid, blanks, extra, ms_comment]}


def _load_all(tmp_path, way, runs, monkeypatch, calls):
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", WAYS[way])
    store = tmp_path / f"{way}.duckdb"
    assert cli("--store", str(store), "load", "--collection", "c", "--qrels", str(runs["qrels"])) == 0
    for path in runs["runs"]:
        assert cli("--store", str(store), "load", "--collection", "c", "--run", str(path),
                   "--on-conflict", "rename") == 0, path
    with Store.open(store) as s:                       # uploads: the bytes of each file, under another name
        for path in runs["runs"]:
            rep = s.add_run("c", path.read_bytes(), filename="up-" + path.name, name="up-" + path.name)
            calls.append((path.name, rep.n_rows, rep.warnings))
    return file_rows(store)


def test_pieces_and_whole_files_store_the_same_rows(runs, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pieces, "PIECE_BYTES", 30011)
    monkeypatch.setattr(pieces, "TOLERANT_BYTES", 20011)
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path / "spool"))
    (tmp_path / "spool").mkdir()
    spooled, spilled = [], []
    real, real_spill = prep._spool, prep._spill
    monkeypatch.setattr(prep, "_spool", lambda *a, **k: spooled.append(got := real(*a, **k)) or got)
    monkeypatch.setattr(prep, "_spill", lambda *a, **k: spilled.append(got := real_spill(*a, **k)) or got)
    got, err = {}, {}
    for way in WAYS:
        calls = []
        got[way] = (_load_all(tmp_path, way, runs, monkeypatch, calls), calls)
        err[way] = re.sub(r"in \d+\.\d+s", "", capsys.readouterr().err)
    # each way (CLI and upload): pieces served the eight clean topic-by-topic files (two of them MS MARCO, one after
    # a comment header) and the one with blanks of every kind, DuckDB the four shuffled ones (two after a comment
    # header, one of these after a byte order mark) and the one with a topic larger than 4 pieces; the tolerant
    # parser's pieces the three with comments further down (one also with extra fields and CRLFs, one MS MARCO)
    assert len(spooled) == 34 and all(s is not None for s in spooled)
    assert len(spilled) == 16 and all(s is not None for s in spilled)
    assert got["pieces"] == got["whole"]
    assert err["pieces"] == err["whole"]
    tables, calls = got["whole"]
    assert len(tables["runs"]) == 2 * len(runs["runs"]) and len(tables["run_docs"]) > 100_000
    # crlf.run starts with 50 lines tagged tieB and ends with tieA: named by its last line's tag, as trec_eval does
    assert {r[2] for r in tables["runs"]} >= {"tieA", "tieA-2", "tieA-3", "up-ties.run.gz", "fromheader"}
    assert "tieB" not in {r[2] for r in tables["runs"]}
    assert "fromcomment" in str(tables["runs"])                        # metadata from a comment further down
    warned = dict((c[0], c[2]) for c in calls)
    assert any("different tags" in w for w in warned["crlf.run"])
    assert any("have no judgments" in w for w in warned["crlf.run"])
    assert any("lines (first: line 4) have more than 6 fields" in w for w in warned["extra.run"])
    assert os.listdir(tmp_path / "spool") == []                        # every temporary file removed
