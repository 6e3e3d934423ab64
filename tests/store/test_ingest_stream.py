"""Runs read in pieces (core/store/prepare.py) fail as runs parsed whole do: bad files get the same error both ways
(the threshold forced to 0 or to 100 GB, pieces of 1 KB), a failed load leaves the store and no temporary file, and
a killed load's temporary file is removed by the next load. (The same files stored both ways, row for row:
tests/limits/test_ingest_pieces.py.)"""
from __future__ import annotations

import gzip
import os
import re

import pytest

import core.formats.pieces as pieces
import core.store.prepare as prep
from core.errors import UploadError
from core.formats import read_run
from core.store.store import Store
from tests.fixtures_store import STREAM_WAYS as WAYS
from tests.fixtures_store import file_rows


@pytest.mark.parametrize("way", WAYS)
def test_bad_files_get_the_same_error_both_ways(way, tmp_path, monkeypatch):
    """A file the clean pieces decline is parsed by the tolerant parser, a piece at a time (or whole, the other
    way): the same error, line numbers and quoted lines included, either way."""
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", WAYS[way])
    monkeypatch.setattr(pieces, "PIECE_BYTES", 1000)
    monkeypatch.setattr(pieces, "TOLERANT_BYTES", 1000)
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
        before = file_rows(tmp_path / "s.duckdb")
        with pytest.raises(UploadError, match="a run named 't' already exists"):
            s.add_run("c", good, filename="a.run")
    assert file_rows(tmp_path / "s.duckdb") == before
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
