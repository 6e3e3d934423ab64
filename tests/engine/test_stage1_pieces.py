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
from core.formats.pieces import RunSource
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


def test_read_whole_decides_from_the_head_alone_as_from_a_whole_first_block(mid_sized, monkeypatch):
    # probe=True reads the head HEADER_BYTES at a time; the plain equivalent reads a first block of PIECE_BYTES
    qrels, paths = mid_sized
    lower_sizes(monkeypatch, PIECES_MIN=1000, PIECE_BYTES=1 << 20, HEADER_BYTES=4096)
    probed = [files.read_whole(p) for p in paths]
    opened = []
    plain_open = RunSource.open.__func__

    def whole_first_block(cls, *args, probe=False, **kwargs):
        opened.append(probe)
        return plain_open(cls, *args, **kwargs)

    monkeypatch.setattr(RunSource, "open", classmethod(whole_first_block))
    assert [files.read_whole(p) for p in paths] == probed == [False, True, False, False, False]
    assert opened == [True] * len(paths)


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


# -- the first run's duplicate check beside its evaluation -------------------------------------------------------
def _outcome(fn):
    try:
        return ("ok", fn())
    except ValueError as exc:
        return ("error", str(exc))


def _fails(message):
    def run():
        raise ValueError(message)
    return run


@pytest.mark.parametrize("check_fails", [False, True])
@pytest.mark.parametrize("work_fails", [False, True])
def test_confirmed_equals_the_check_then_the_work(check_fails, work_fails):
    """`confirmed(confirm, work)` runs the check beside the work; its plain equivalent makes the check first.
    Same value or same error: the check's error wins over the work's value and over the work's own error."""
    confirm = _fails("document 'a' appears twice") if check_fails else (lambda: None)
    work = _fails("stage 2 failed") if work_fails else (lambda: 42)

    def plain():
        confirm()
        return work()

    assert _outcome(lambda: files.confirmed(confirm, work)) == _outcome(plain)


def test_a_repeated_document_in_a_run_parsed_beside_the_qrels_is_reported_as_before(tmp_path, monkeypatch):
    """The first run's duplicate check runs beside its evaluation: the error is read_run's, word for word, whether
    stage 2 succeeds on the provisional run or fails on it."""
    from core.errors import UploadError
    from core.formats import read_run

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(UploadError) as want:
        read_run(run, filename="r")
    with pytest.raises(UploadError) as got:
        ev.evaluate_files(qrels, [run], ["AP"])
    assert str(got.value) == str(want.value)
    import core.engine.relevance as relevance
    monkeypatch.setattr(relevance, "evaluate_rankings", _fails("stage 2 failed"))
    with pytest.raises(UploadError) as got:
        ev.evaluate_files(qrels, [run], ["AP"])
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("text", [b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n", b"1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n",
                                  b"1 Q0 a 1 2.0 t\n1  Q0 a 2 1.0 t\n", b"1\tQ0\ta\t1\t2\tt\n2 Q0 a 1 1 t\n"])
@pytest.mark.parametrize("duckdb_fails", [False, True])
def test_reading_unchecked_then_confirming_equals_read_run(tmp_path, monkeypatch, text, duckdb_fails):
    """read_run_unchecked and its `confirm` give read_run's table or read_run's error; when the hashed check cannot
    answer (DuckDB fails), the tolerant parser decides, as in read_run."""
    import core.formats.runs as runs_mod
    from core.errors import UploadError
    from core.formats import read_run, read_run_unchecked

    path = tmp_path / "r"
    path.write_bytes(text)
    if duckdb_fails:
        monkeypatch.setattr(runs_mod, "unique", lambda table, keys: False)

    def outcome(fn):
        try:
            return ("ok", fn().table.to_pydict())
        except UploadError as exc:
            return ("error", str(exc))

    def unchecked():
        run, confirm = read_run_unchecked(path, filename="r")
        confirm()
        return run

    assert outcome(unchecked) == outcome(lambda: read_run(path, filename="r"))
