"""Large runs are loaded a piece at a time (core/store/prepare.py): the store must end up exactly as when the
file is parsed whole. The threshold is forced to 0 (every run is read in pieces, pieces of ~30 KB so that lines,
topics and CRLFs straddle piece ends) or to 100 GB (every run is parsed whole), the same files are loaded both
ways, from the command line and as uploads (bytes), and every stored table is compared row for row."""
from __future__ import annotations

import gzip
import os
import re

import numpy as np
import pytest

import core.store.prepare as prep
from core.errors import UploadError
from core.formats import read_run
from core.store.store import Store
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_runs
from tests.fixtures_store import cli

WAYS = {"pieces": "0", "whole": "100000"}


def dump(path) -> dict:
    """Every row of every table, timestamps left out (they differ between two loads)."""
    with Store.open(path) as store, store.session() as con:
        cur = con.cursor()
        tables = [r[0] for r in cur.execute("SELECT table_name FROM information_schema.tables "
                                            "WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        out = {}
        for t in tables:
            cols = [r[0] for r in cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                              "AND data_type NOT LIKE 'TIMESTAMP%' ORDER BY ordinal_position",
                                              [t]).fetchall()]
            out[t] = cur.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY ALL").fetchall()
        return out


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
    return dump(store)


def test_pieces_and_whole_files_store_the_same_rows(runs, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(prep, "CHUNK_BYTES", 30011)
    monkeypatch.setattr(prep, "TOLERANT_BYTES", 20011)
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path / "spool"))
    (tmp_path / "spool").mkdir()
    spooled, spilled = [], []
    real, real_spill = prep._spool, prep.spill
    monkeypatch.setattr(prep, "_spool", lambda *a, **k: spooled.append(got := real(*a, **k)) or got)
    monkeypatch.setattr(prep, "spill", lambda *a, **k: spilled.append(got := real_spill(*a, **k)) or got)
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


@pytest.mark.parametrize("way", WAYS)
def test_bad_files_get_the_same_error_both_ways(way, tmp_path, monkeypatch):
    """A file the clean pieces decline is parsed by the tolerant parser, a piece at a time (or whole, the other
    way): the same error, line numbers and quoted lines included, either way."""
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", WAYS[way])
    monkeypatch.setattr(prep, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(prep, "TOLERANT_BYTES", 1000)
    good = b"".join(b"%d Q0 d%d 1 %d.5 t\n" % (q, d, 100 - d) for q in range(1, 40) for d in range(30))
    cases = {
        b"39 Q0 d3 1 2.5 t\n": "line 1171: document 'd3' appears twice for topic '39' (first on line 1144)",
        b"39 Q0 d77 1 abc t\n": "line 1171: score 'abc' is not a number",
        b"39 Q0 d77 1\0 2 t\n": "line 1171: the file contains binary data (byte 0x00)",
        b"39 Q0 " + b"x" * (9 << 20) + b" 1 2 t\n": "line 1171: the line is longer than 8 MB",
        b"# a note\n39 Q0 d3 1 2.5 t x\n": "line 1172: document 'd3' appears twice for topic '39' (first on line 1144)",
        b"# a note\n39 Q0 d\xe9 1 2 t\n": "line 1172: the text is not valid UTF-8 (byte 0xe9)",
        b"\n\n39 Q0 d77 1\n": "line 1173: found 4 fields but a run line needs 6",
    }
    for tail, what in cases.items():
        for data in (good + tail, gzip.compress(good + tail)):
            with pytest.raises(UploadError) as info:
                prep.prepare_run(data, filename="bad.run")
            assert f"bad.run, {what}" in str(info.value)
            with pytest.raises(UploadError) as plain:
                read_run(data, filename="bad.run")
            assert str(info.value) == str(plain.value)
        headed = b"# ir_metadata.start\n# tag: fromheader\n# ir_metadata.end\n" + good + tail   # after a header
        with pytest.raises(UploadError) as info:
            prep.prepare_run(headed, filename="bad.run")
        with pytest.raises(UploadError) as plain:
            read_run(headed, filename="bad.run")
        moved = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + 3}", what)     # the header's 3 lines
        assert str(info.value) == str(plain.value) and moved in str(info.value)
    lines = good.splitlines(keepends=True)     # many problems, every kind, spread over the pieces: the first 20
    messy = b"".join(ln.replace(b" 1 ", b" 1 x") if i % 41 == 7 else ln.replace(b" t", b"") if i % 53 == 9 else
                     ln + ln if i % 97 == 11 else b"# c\n" + ln if i % 89 == 5 else ln for i, ln in enumerate(lines))
    errors = []
    utf16 = good.decode().encode("utf-16")                  # read_run names the encoding; the pieces leave it to it
    for data in (messy, gzip.compress(messy), b" \n\t\n" * 600, b"# only a comment\n" * 100, utf16):
        with pytest.raises(UploadError) as info:
            prep.prepare_run(data, filename="bad.run")
        with pytest.raises(UploadError) as plain:
            read_run(data, filename="bad.run")
        assert str(info.value) == str(plain.value)
        errors.append(str(info.value))
    assert len(errors[0].splitlines()) == 41 and re.search(r"\.\.\.and \d+ more$", errors[0])   # 20 quoted, then a count
    assert all(m in errors[0] for m in ("is not a number", "found 5 fields", "appears twice"))
    assert errors[2] == "bad.run: the file is empty. Choose a file with at least one line of data."
    assert errors[3].startswith("bad.run: the file has no data lines")
    assert errors[4].startswith("bad.run, line 1: the file is UTF-16 text")
    monkeypatch.setenv("RANKBOARD_MAX_TEXT_MB", str(len(good) / 2 / (1 << 20)))
    for data in (good, gzip.compress(good)):
        with pytest.raises(UploadError) as info:
            prep.prepare_run(data, filename="big.run")
        with pytest.raises(UploadError) as plain:
            read_run(data, filename="big.run")
        assert str(info.value) == str(plain.value)
        assert "big.run: the file " + ("expands to" if data[:2] == b"\x1f\x8b" else "holds") in str(info.value)


def test_a_failed_load_leaves_the_store_and_no_temporary_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", "0")
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path))
    good = b"".join(b"%d Q0 d%d 1 %d.5 t\n" % (q, d, 100 - d) for q in range(1, 40) for d in range(30))
    with Store.open(tmp_path / "s.duckdb") as s:
        s.add_qrels("c", b"1 0 d1 1\n", filename="q.txt")
        s.add_run("c", good, filename="a.run")
        before = dump(tmp_path / "s.duckdb")
        with pytest.raises(UploadError, match="a run named 't' already exists"):
            s.add_run("c", good, filename="a.run")
    assert dump(tmp_path / "s.duckdb") == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".parquet") == []


def test_a_killed_loads_temporary_file_is_removed_by_the_next_load(tmp_path, monkeypatch):
    """A load killed with -9 cannot remove its temporary file; the next load in pieces removes the files of
    processes that are gone, and leaves those of running ones."""
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", "0")
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path))
    gone, alive = tmp_path / "rankboard-run-99999999-abc.parquet", tmp_path / f"rankboard-run-{os.getppid()}-x.parquet"
    gone.write_bytes(b"x")
    alive.write_bytes(b"x")
    spooled = prep.prepare_run(b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5 t\n", filename="a.run")
    assert isinstance(spooled, prep.SpooledRun) and spooled.rows.exists() and spooled.run.n_rows == 2
    assert not gone.exists() and alive.exists()
    spooled.close()
    assert not spooled.rows.exists()
