"""Mid-sized run files (PIECES_BYTES up to STREAM_BYTES) are read in pieces when written topic by topic, with the
next piece read on a second thread (stage1.files.ahead), and whole otherwise: the same values either way."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.engine.evaluate as ev
import core.engine.stage1 as stage1
import core.engine.stage1.files as files
from core.formats._stream import interleaved, one_space
from core.engine.stage1.files import ahead
from tests.cases.providers import logged
from tests.cases.reference import ROBUST_QRELS, reference_file, robust_runs
from tests.cases.limits import lower_sizes

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "Bpref", "num_rel_ret", "Rprec"]


def test_ahead_gives_the_items_of_iter():
    assert list(ahead(range(7))) == list(iter(range(7)))
    assert list(ahead([])) == []


def test_ahead_raises_where_the_items_fail():
    def items():
        yield 1
        yield 2
        raise ValueError("piece 3 is not clean")

    got = []
    with pytest.raises(ValueError, match="piece 3"):
        for x in ahead(items()):
            got.append(x)
    assert got == [1, 2]


def test_ahead_stops_the_items_when_the_caller_stops():
    made, closed = [], []

    def items():
        try:
            for i in range(100):
                made.append(i)
                yield i
        finally:
            closed.append(True)

    for x in ahead(items()):
        if x == 2:
            break
    assert made in ([0, 1, 2], [0, 1, 2, 3]) and closed == [True]    # at most one made ahead; then closed


@pytest.mark.parametrize("head, expected", [
    (b"301 Q0 d1 1 2.5 t\n301 Q0 d2 2 2 t\n302 Q0 d1 1 1 t\n", False),
    (b"301 Q0 d1 1 2.5 t\n302 Q0 d2 2 2 t\n301 Q0 d3 1 1 t\n", True),
    (b"1\td1\t1\n2\td1\t1\n1\td2\t2\n3\td", True),                        # MS MARCO; the cut line is left out
    (b"301 Q0 d1 1 2.5 t\n302 Q0 d2 2 2 t\n301 Q0 d3 1 1 t", False),      # the third line is not whole yet
    (b"301 Q0 d1 1 2.5 t\n302\tQ0  d2 2 2 t\n 301 Q0 d3 1 1 t\n", True),   # blanks of any kind and number
    (b"301 Q0 d1 1 2.5 t\n# c\n302 Q0 d2 2 2 t\n301 Q0 d3 1 1 t\n", False),  # not clean: the readers decide
    (b"", False),
])
def test_interleaved(head, expected):
    assert interleaved(head) is expected


@pytest.fixture
def mid_sized(tmp_path, monkeypatch):
    """Three robust runs (one gzip), one of them also shuffled, and one with a comment line further in; every file
    counts as mid-sized and is read in pieces of ~30 KB."""
    runs = robust_runs()[:3]
    lines = gzip.decompress(runs[1].read_bytes()).splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.txt"
    shuffled.write_bytes(b"".join(lines[i] for i in np.random.default_rng(5).permutation(len(lines))))
    commented = tmp_path / "commented.txt"
    commented.write_bytes(b"".join(lines[:3000]) + b"# a note\n" + b"".join(lines[3000:]))
    plain = tmp_path / "plain.txt"
    plain.write_bytes(gzip.decompress(runs[2].read_bytes()))
    blanks = tmp_path / "blanks.txt"                  # tabs and spaces mixed, runs of blanks, blank lines: streamed
    blanks.write_bytes(b"".join(b"  " + ln.replace(b" ", b"\t", 2).replace(b" ", b"   ") + b" \t\n"
                                if i % 3 == 0 else ln + b"\n" for i, ln in enumerate(plain.read_bytes().splitlines())))
    qrels = reference_file(ROBUST_QRELS)
    return qrels, [runs[0], shuffled, commented, plain, blanks]


def _logged(monkeypatch):
    calls = []
    monkeypatch.setattr(files, "pieces", logged(files.pieces, calls))
    monkeypatch.setattr(files, "whole", logged(files.whole, calls))
    return calls


def test_mid_sized_runs_read_in_pieces_evaluate_like_whole_ones(mid_sized, monkeypatch):
    qrels, paths = mid_sized
    whole = ev.evaluate_files(qrels, paths, MEASURES)                # PIECES_BYTES (32 MB): every file whole
    lower_sizes(monkeypatch, PIECES_MIN=1000)
    lower_sizes(monkeypatch, PIECE_BYTES=30011)
    assert [files.read_whole(p) for p in paths] == [False, True, False, False, False]
    calls = _logged(monkeypatch)
    got = ev.evaluate_files(qrels, paths, MEASURES)
    assert calls == [("pieces", True), ("pieces", False), ("whole", True), ("pieces", False), ("whole", True),
                     ("pieces", True), ("pieces", True)]
    monkeypatch.setattr(files, "ahead", iter)                       # the plain equivalent of reading ahead
    plain = ev.evaluate_files(qrels, paths, MEASURES)
    for other in (whole, plain):
        assert got.runs == other.runs and got.warnings == other.warnings
        pd.testing.assert_frame_equal(got.summary, other.summary, check_exact=False, rtol=1e-12)
        pd.testing.assert_frame_equal(got.per_query, other.per_query, check_exact=False, rtol=1e-12)


def test_which_mid_sized_runs_are_parsed_beside_the_qrels(mid_sized, monkeypatch):
    """read_first parses a run it knows will be read whole on this thread while the qrels are parsed on another,
    and one that would be read in pieces when the qrels are big."""
    qrels, paths = mid_sized
    lower_sizes(monkeypatch, PIECES_MIN=1000)
    assert stage1.choose(stage1.RunFile(paths[0], None, "q")) == [files.empty, files.pieces, files.whole]
    assert files.read_first(qrels, paths[1])[1] is not None
    assert files.read_first(qrels, paths[0])[1] is None
    lower_sizes(monkeypatch, BIG_QRELS_BYTES=1000)
    assert files.read_first(qrels, paths[0])[1] is not None
    lower_sizes(monkeypatch, WHOLE_MAX_BYTES=1000)
    assert files.read_first(qrels, paths[0])[1] is None


_BLANKS = st.sampled_from([b" ", b"\t", b"  ", b" \t ", b"\t\t"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from([b"301", b"Q0", b"d-1", b"2.5", b"tag"]), min_size=1, max_size=6),
                          st.lists(_BLANKS, min_size=7, max_size=7), st.sampled_from([b"\n", b"\r\n"])),
                max_size=8))
def test_one_space_keeps_the_fields_of_every_line(lines):
    """one_space(text) splits into the fields that text.split() gives on every line, with one space between
    fields and none at a line's start or end (the clean form the column reader takes)."""
    text = b"".join(blanks[0] + b"".join(f + b for f, b in zip(fields, blanks[1:])) + end
                    for fields, blanks, end in lines)
    got = one_space(text)
    assert [ln.split() for ln in got.splitlines()] == [ln.split() for ln in text.splitlines()]
    assert b"\t" not in got and b"  " not in got
    assert all(ln == b" ".join(ln.split()) for ln in got.splitlines())
