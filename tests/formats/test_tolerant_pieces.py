"""The tolerant parser a piece at a time (core/formats/_tolerant.py) against the same parser over the whole file
(`read_run`): random small runs with random blanks, CRs, comment lines, bad fields, repeats and byte order marks,
cut into pieces of random sizes, must give the same rows, tag, warnings and metadata, or the same error text."""
from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import UploadError
from core.formats import read_run
from core.formats._tolerant import TolerantRun, fill, quote_lines

BITS = [" ", "\t", "  ", "\r", "# ", "#  tag: fromcomment\n", "\n# a note\n", "+", "e5", "", "\n", "\n\n", "-",
        "x", " extra", "\ufeff", "\x0c", "é", "Q0"]


def blocks(data: bytes, size: int):
    for i in range(0, len(data), size):
        yield data[i:i + size]


def whole(data: bytes):
    try:
        run = read_run(data, filename="x.run")
    except UploadError as exc:
        return "error", str(exc)
    t = run.table.combine_chunks()
    return "ok", list(zip(*(t[c].to_pylist() for c in ("qid", "docno", "score")))), run.tag, run.warnings, run.metadata


def in_pieces(data: bytes, size: int):
    run = TolerantRun("x.run", again=lambda: blocks(data, size))
    con = duckdb.connect()
    try:
        fill(con, "t", run.tables(blocks(data, size)), run)
        parsed = run.finish()
        rows = con.execute("SELECT qid, docno, score FROM t ORDER BY pos").fetchall()
    except UploadError as exc:
        return "error", str(exc)
    finally:
        con.close()
    return "ok", rows, parsed.tag, parsed.warnings, parsed.metadata


line = st.tuples(st.sampled_from(["301", "302", "0303", "msm"]), st.integers(1, 6), st.integers(0, 9),
                 st.sampled_from(["1.5", "-2", "3e2", ".5", "7"]), st.sampled_from(["tA", "tA", "tB"]))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(line, min_size=1, max_size=12), ending=st.sampled_from(["", "\n", "\r\n"]),
       bits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(BITS)), max_size=4),
       header=st.booleans(), bom=st.booleans(), size=st.integers(1, 64))
def test_pieces_give_what_the_whole_file_gives(lines, ending, bits, header, bom, size):
    text = "\n".join(f"{q} Q0 d{d} {r} {s} {t}" if q != "msm" else f"302 d{d} {r}" for q, d, r, s, t in lines) + ending
    for at, bit in bits:
        pos = int(at * len(text))
        text = text[:pos] + bit + text[pos:]
    if header:
        text = "# ir_metadata.start\n# tag: fromheader\n# ir_metadata.end\n" + text
    data = ("\ufeff" if bom else "").encode() + text.encode()
    assert in_pieces(data, size) == whole(data), data


@pytest.mark.parametrize("size", [1, 3, 64, 1 << 20])
def test_quote_lines_finds_each_line_wherever_the_pieces_end(size):
    text = b"a\r\nbb\n\nccc\nd" + "é".encode() + b"\n" + b"e" * 100
    want = {1: "a", 2: "bb", 3: "", 4: "ccc", 5: "dé", 6: "e" * 100}
    assert quote_lines(blocks(text, size), set(want), step=7) == want
    assert quote_lines(blocks(text, size), {2, 6}) == {2: "bb", 6: "e" * 100}
