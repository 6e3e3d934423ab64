"""The tolerant qrels parser a piece at a time (core.formats.qrels._in_pieces, used for large texts) against the
same parser over the whole text (`read_qrels` on a small file): random small qrels with random blanks, CRs,
comment lines, bad fields, bad grades, repeated judgments, judgment groups and byte order marks, cut into pieces of
random sizes, must give the same judgments, or the same error text."""
from __future__ import annotations

import core.formats.pieces as limits

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import UploadError
from core.formats import qrels as Q
from core.formats import read_qrels

BITS = [" ", "\t", "  ", "\r", "# ", "\n# a note\n", "+", "", "\n", "\n\n", "-", "x", " extra", "\ufeff", "\x0c", "é",
        "\xff"]


def outcome(read):
    try:
        q = read()
    except UploadError as exc:
        return "error", str(exc), exc.total
    if q is None:
        return "declined"
    t = q.table
    groups = q.groups.to_pylist() if q.groups is not None else None
    return "ok", list(zip(*(t[c].to_pylist() for c in ("qid", "docno", "rel")))), groups


def whole(data: bytes, jg: bool):
    return outcome(lambda: read_qrels(data, filename="x.qrels", judgment_groups=jg))


def in_pieces(data: bytes, jg: bool, size: int):
    return outcome(lambda: Q._in_pieces("x.qrels", data, jg, size))


line = st.tuples(st.sampled_from(["301", "302", "0303"]), st.sampled_from(["0", "0", "1"]), st.integers(0, 6),
                 st.sampled_from(["0", "1", "2", "-1", "+3", "1.5"]))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(line, min_size=1, max_size=12), ending=st.sampled_from(["", "\n", "\r\n"]),
       bits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(BITS)), max_size=4),
       bom=st.booleans(), jg=st.booleans(), size=st.integers(1, 64))
def test_pieces_give_what_the_whole_file_gives(lines, ending, bits, bom, jg, size):
    text = "\n".join(f"{q} {g} d{d} {r}" for q, g, d, r in lines) + ending
    for at, bit in bits:
        pos = int(at * len(text))
        text = text[:pos] + bit + text[pos:]
    data = ("\ufeff" if bom else "").encode() + text.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff")
    assert in_pieces(data, jg, size) == whole(data, jg), data


@pytest.mark.parametrize("data", [b"", b" \n\t\n", b"# only\n\n# comments\n", b"\xff\xfe3\x000\x001\x00",
                                  b"qid,docno,rel\n301,d1,1\n", b"PAR1xxxx"])
@pytest.mark.parametrize("size", [1, 4, 1 << 20])
def test_empty_and_other_formats(data, size):
    """Empty or comment-only texts get the whole parser's error; UTF-16, CSV with a header and Parquet are left to
    the whole parser (None)."""
    got = in_pieces(data, False, size)
    if data.startswith((b"\xff\xfe", b"qid", b"PAR1")):
        assert got == "declined"
    else:
        assert got == whole(data, False)


def test_many_problems_across_the_pieces():
    """40+ problems of every kind spread over many pieces: the same first 20 by line, and the same count."""
    rows = []
    for i in range(300):
        rows.append(f"{300 + i % 7} 0 d{i} {i % 3}")
        if i % 11 == 0:
            rows.append(f"{300 + i % 7} 0 d{i} 1")          # judged twice
        if i % 13 == 0:
            rows.append(f"301 Q0 x{i} 1 2.5 tag")           # a run line
        if i % 17 == 0:
            rows.append(f"302 0 y{i} high")                 # not a whole number
    data = "\n".join(rows).encode() + b"\n"
    want = whole(data, False)
    assert want[0] == "error" and want[2] > 40
    for size in (7, 100, 1000, 1 << 20):
        assert in_pieces(data, False, size) == want


def test_read_qrels_takes_the_pieces_for_a_large_unclean_text(monkeypatch):
    """read_qrels itself: a text of QRELS_PIECES_MIN_BYTES or more that the column reader declines (a comment line) goes
    to the pieces, plain or gzip, with the same result as the whole parse; a smaller one is parsed whole."""
    data = b"# judged by hand\n" + b"".join(f"{300 + i // 50} 0 doc{i} {i % 3}\n".encode() for i in range(2000))
    calls = []
    real = Q._in_pieces

    def spy(*args, **kw):
        calls.append(len(args[1]))
        return real(*args, **kw)
    monkeypatch.setattr(Q, "_in_pieces", spy)
    want = whole(data, False)
    assert calls == [] and want[0] == "ok" and len(want[1]) == 2000
    monkeypatch.setattr(limits, "QRELS_PIECES_MIN_BYTES", 1000)
    monkeypatch.setattr(limits, "QRELS_PIECE_BYTES", 300)
    assert whole(data, False) == want and whole(gzip.compress(data), False) == want
    assert calls == [len(data), len(data)]
    bad = data + b"301 Q0 doc1 1 2.5 run\n"
    assert "this looks like a run file" in whole(bad, False)[1]


def test_two_byte_order_marks_read_alike_both_ways():
    """After one BOM, pyarrow's CSV reader would drop a second one that the tolerant parser keeps in the qid: the
    column reader declines such a file, so every path reads it as the tolerant parser does (found by the
    hypothesis test above, in CI)."""
    data = b"\xef\xbb\xbf\xef\xbb\xbf301 0 d0 0\n"
    assert whole(data, False) == in_pieces(data, False, 5) == ("ok", [("\ufeff301", "d0", 0)], None)
