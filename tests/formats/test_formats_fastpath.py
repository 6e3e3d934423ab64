"""The fast reader (core/formats/_fast.py) returns exactly the tolerant parser's tables, and declines
(falls back) on every file the tolerant parser treats specially."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import core.formats.qrels as qrels_mod
import core.formats.runs as runs_mod
from core.errors import UploadError
from core.formats import read_qrels, read_run
from core.formats._fast import fast_qrels, fast_run
from tests.cases.providers import logged
from tests.cases.reference import ROBUST_QRELS, reference_bytes, reference_file, robust_run, robust_runs
from tests.cases.limits import lower_sizes


def _robust_run(data, monkeypatch, **kw):
    with monkeypatch.context() as m:
        m.setattr(runs_mod, "fast_run", lambda data, controls=None, check=True: None)
        return read_run(data, filename="x", **kw)


def _robust_qrels(data, monkeypatch, **kw):
    with monkeypatch.context() as m:
        m.setattr(qrels_mod, "fast_qrels", lambda data, jg, controls=None: None)
        return read_qrels(data, filename="x", **kw)


def _same_outcome_as_tolerant(data, monkeypatch):
    """read_run gives what the tolerant parser gives: the same table, or the same error text."""
    try:
        robust = _robust_run(data, monkeypatch)
    except UploadError as exc:
        with pytest.raises(UploadError) as got:
            read_run(data, filename="x")
        assert str(got.value) == str(exc)
    else:
        _same_run(read_run(data, filename="x"), robust)


def _same_run(a, b):
    assert a.table.combine_chunks().equals(b.table.combine_chunks())
    assert a.table.schema == b.table.schema
    assert (a.tag, a.metadata, a.warnings, a.format) == (b.tag, b.metadata, b.warnings, b.format)


def test_reference_runs_take_the_fast_path_and_match(monkeypatch):
    for path in robust_runs():
        assert fast_run(gzip.decompress(path.read_bytes())) is not None, path.name
        _same_run(read_run(path, filename="x"), _robust_run(path.read_bytes(), monkeypatch))


def test_trec_eval_test_runs_match(monkeypatch):
    """results.test pads scores with extra blanks (the fallback); the others whichever path they take."""
    assert fast_run(reference_bytes("trec_eval_test/results.test.gz")) is None
    for name in ("results.test", "results-302.test", "results.trunc", "results.comment.test"):
        path = reference_file(f"trec_eval_test/{name}.gz")
        _same_run(read_run(path, filename="x"), _robust_run(path.read_bytes(), monkeypatch))


def test_reference_qrels_take_the_fast_path_and_match(monkeypatch):
    for name in [ROBUST_QRELS, "trec_eval_test/qrels.test.gz", "trec_eval_test/qrels-302.test.gz"]:
        path = reference_file(name)
        assert fast_qrels(reference_bytes(name), False) is not None, path.name
        for jg in (False, True):
            a, b = read_qrels(path, filename="x", judgment_groups=jg), _robust_qrels(path.read_bytes(), monkeypatch,
                                                                                     judgment_groups=jg)
            assert a.table.combine_chunks().equals(b.table.combine_chunks())
            assert (a.groups is None) == (b.groups is None)
            if a.groups is not None:
                assert pa.chunked_array(a.groups).to_pylist() == pa.chunked_array(b.groups).to_pylist()
            assert (a.warnings, a.format) == (b.warnings, b.format)


CLEAN = b"301 Q0 d1 1 2.5 tagA\n301 Q0 d2 2 2.5 tagA\n302 Q0 d1 1 -1e-3 tagA\n"


@pytest.mark.parametrize("data", [
    b"301\tQ0\td1\t1\t2.5\ttagA\n301 Q0 d2 2 2.5 tagA\n",          # tabs and spaces
    b"301\tQ0\td1\t1\t2.5\t\ttagA\n",                                 # double tab
    b"301\tQ0\td1\t1\t2.5\ttagA\t\n",                                 # trailing tab
    b"301 Q0  d1 1 2.5 tagA\n301 Q0 d2 2 2.5 tagA\n",              # double space
    b" 301 Q0 d1 1 2.5 tagA\n",                                     # leading space
    b"301 Q0 d1 1 2.5 tagA \n",                                     # trailing space
    b"# ir_metadata.start\n# tag: x\n" + CLEAN,                     # comments
    CLEAN + b"# trailing comment\n",
    CLEAN + b"301 Q0 d9 1 2.5 tagA extra\n",                        # 7 fields
    b"301 Q0 d1 1 2.5 tagA\r302 Q0 d1 1 2.5 tagA\n",                # lone CR
    b"301 Q0 d1 1 2.5 tagA\x0c\n",                                  # form feed
    b"301 Q0 d1 1 +2.5 tagA\n",                                     # leading +
    b"301 Q0 d1 1 1e0005 tagA\n",                                   # 4-digit exponent (FLOAT_RE rejects)
    b"301 Q0 d1 1 nan tagA\n", b"301 Q0 d1 1 inf tagA\n", b"301 Q0 d1 1 1e999 tagA\n",
    b"301 Q0 d1 1 Infinity tagA\n", b"301 Q0 d1 1 -inf tagA\n", b"301 Q0 d1 1 NaN tagA\n",   # no 'e': parsed
    b"301 Q0 d1 1 0x1p3 tagA\n", b"301 Q0 d1 1 1,5 tagA\n", b"301 Q0 d1 1 - tagA\n",       # as doubles first
    b"301 Q0 d1 1 abc tagA\n",
    CLEAN + b"301 Q0 d1 3 1.0 tagA\n",                              # duplicate document
    b"qid Q0 docno rank score tag\n" + CLEAN,                       # header line
    b"301 d1 +1\n301 d2 2\n", b"301 d1 1.0\n", b"301 d1 1234567890\n",   # MS MARCO: '+', not whole, too long
    b"301 d1 1\n301 d2 2 x\n", b"301\td1\t1\n301 d2 2\n",               # MS MARCO: 4 fields, mixed blanks
    b"301 d1 1\n301 d1 2\n", b"qid docno rank\n301 d1 1\n",            # MS MARCO: duplicate, header
    b"301 Q0 d\xff 1 2.5 tagA\n",                                   # not UTF-8
    b"301 Q\xff d1 1 2.5 tagA\n", b"301 Q0 d1 \xff 2.5 tagA\n",       # not UTF-8 in the unused Q0 / rank
    b"301  d1 1 2.5 tagA\n", b"301 Q0 d1  2.5 tagA\n",               # Q0 / rank empty: 6 fields to the reader
    b"301\t\td1\t1\t2.5\ttagA\n",                                  # the same with tabs
    b"301 Q0 d\x01 1 2.5 tagA\n",                                   # binary
    b"\n  \n",
])
def test_unusual_runs_fall_back(data, monkeypatch):
    assert fast_run(data) is None
    _same_outcome_as_tolerant(data, monkeypatch)


@pytest.mark.parametrize("data", [
    CLEAN, CLEAN.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + CLEAN, CLEAN.rstrip(b"\n"), b"\n\n" + CLEAN + b"\n\n",
    CLEAN.replace(b"tagA\n301", b"tagB\n301"), CLEAN.replace(b"d1", b"doc#1"), CLEAN.replace(b"301", b"0301"),
    CLEAN.replace(b" ", b"\t"), CLEAN.replace(b" ", b"\t").replace(b"\n", b"\r\n"),
    CLEAN.replace(b"2.5", b"1.e5").replace(b"-1e-3", b".5"),
    b"301 d1 1\n301 d2 2\n", b"1048585\t7187158\t1\r\n1048585\t10\t007\r\n2\t7\t-0\r\n",   # MS MARCO
])
def test_clean_runs_match(data, monkeypatch):
    assert fast_run(data) is not None
    _same_run(read_run(data, filename="x"), _robust_run(data, monkeypatch))
    _same_run(read_run(gzip.compress(data), filename="x"), _robust_run(data, monkeypatch))


@pytest.mark.parametrize("data", [
    b"301 0 d1 1\n301 0 d1 2\n",                     # judged twice
    b"301 0 d1 +1\n", b"301 0 d1 1.0\n", b"301 0 d1 0000000001\n", b"301 0 d1 x\n",
    b"301 0 d1\n", b"301 0 d1 1 x\n", b"301\t0\td1 1\n", b"# c\n301 0 d1 1\n",
])
def test_unusual_qrels_fall_back(data, monkeypatch):
    assert fast_qrels(data, False) is None
    try:
        robust = _robust_qrels(data, monkeypatch)
    except UploadError as exc:
        with pytest.raises(UploadError) as got:
            read_qrels(data, filename="x")
        assert str(got.value) == str(exc)
    else:
        assert read_qrels(data, filename="x").table.equals(robust.table)


def test_judgment_groups_decide_duplicates(monkeypatch):
    data = b"301 0 d1 1\n301 1 d1 0\n302 1 d2 -1\n"
    assert fast_qrels(data, False) is None
    a = read_qrels(data, filename="x", judgment_groups=True)
    b = _robust_qrels(data, monkeypatch, judgment_groups=True)
    assert a.table.combine_chunks().equals(b.table.combine_chunks())
    assert {k: v.to_pylist() for k, v in a.by_group().items()} == {k: v.to_pylist() for k, v in b.by_group().items()}


@pytest.mark.parametrize("data", [b"301\t0\td1\t1\n302\t0\td1\t-1\n", b"301 0 d1 -12345678\r\n302 0 d1 0007\r\n"])
def test_clean_qrels_match(data, monkeypatch):
    assert fast_qrels(data, False) is not None
    assert read_qrels(data, filename="x").table.combine_chunks().equals(_robust_qrels(data, monkeypatch).table)


def test_streamed_runs_evaluate_like_parsed_ones(monkeypatch, tmp_path):
    """evaluate_files reads large clean runs a piece at a time: topic by topic (stage1.files.pieces), or, when a
    topic's lines are not contiguous, into a DuckDB table (stage1.files.table). Force both on small files (tiny
    pieces, so lines, topics and CRLFs straddle piece ends) and compare with the parsed path."""
    import core.engine.evaluate as ev
    import core.engine.stage1 as stage1

    runs = robust_runs()[:3]
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_bytes(gzip.decompress(runs[0].read_bytes()).replace(b"\n", b"\r\n"))
    lines = gzip.decompress(runs[1].read_bytes()).splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.txt"                            # topics not contiguous: the DuckDB table
    shuffled.write_bytes(b"".join(lines[i] for i in np.random.default_rng(3).permutation(len(lines))))
    msmarco = tmp_path / "msmarco.tsv"                              # qid, docno, rank: score = -rank
    rows = [ln.split() for ln in gzip.decompress(runs[2].read_bytes()).splitlines()]
    msmarco.write_bytes(b"".join(b"%s\t%s\t%s\n" % (r[0], r[2], r[3]) for r in rows))
    ms_shuffled = tmp_path / "msmarco-shuffled.tsv"
    ms_lines = msmarco.read_bytes().splitlines(keepends=True)
    ms_shuffled.write_bytes(b"".join(ms_lines[i] for i in np.random.default_rng(4).permutation(len(ms_lines))))
    headed = tmp_path / "headed.txt"                                # an ir_metadata header, then clean lines
    headed.write_bytes(b"# ir_metadata.start\n# tag: fromheader\n# ir_metadata.end\n" + tabbed.read_bytes())
    ms_headed = tmp_path / "msmarco-headed.tsv"                     # MS MARCO: the run is named by its header
    ms_headed.write_bytes(b"\xef\xbb\xbf# tag: msheader\r\n" + ms_shuffled.read_bytes().replace(b"\t", b" "))
    mixed = reference_file("trec_eval_test/results.test.gz")       # tabs and spaces mixed
    noted = tmp_path / "noted.txt"                      # a comment line further down: the tolerant parser, in pieces
    noted.write_bytes(b"".join(lines[:500]) + b"# a note\n" + b"".join(lines[500:]))
    qrels = reference_file(ROBUST_QRELS)
    paths = runs + [tabbed, msmarco, headed, shuffled, ms_shuffled, ms_headed, mixed, noted]
    measures = ["AP", "nDCG@10", "P@10", "RR", "Bpref", "num_rel_ret", "Rprec", "ndcg"]
    plain = ev.evaluate_files(qrels, paths, measures)
    calls = []
    lower_sizes(monkeypatch, WHOLE_MAX_BYTES=0)
    lower_sizes(monkeypatch, PIECE_BYTES=30011)
    monkeypatch.setitem(stage1.PROVIDERS, stage1.RunFile, [logged(p, calls) for p in stage1.PROVIDERS[stage1.RunFile]])
    streamed = ev.evaluate_files(qrels, paths, measures)
    assert [c for c in calls if c[0] == "empty"] == [("empty", False)] * len(paths)    # none is blank (no -c)
    assert [c for c in calls if c[0] != "empty"] == [("pieces", True)] * 6 + [
        ("pieces", False), ("table", True)] * 3 + [("pieces", True)] + [      # `mixed`: its blanks made one space
        ("pieces", False), ("table", True)]                                    # `noted`: the tolerant parser
    assert "msheader" in streamed.runs
    assert streamed.runs == plain.runs and streamed.warnings == plain.warnings
    pd.testing.assert_frame_equal(streamed.summary, plain.summary, check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(streamed.per_query, plain.per_query, check_exact=False, rtol=1e-12)


def test_large_bad_runs_get_the_whole_file_parsers_errors_in_pieces(monkeypatch, tmp_path):
    """evaluate_files on a large run the column reader declines: the tolerant parser's pieces (stage1.files.table,
    forced here on small files cut into ~1 KB pieces) raise exactly what parsing it whole raises."""
    import core.engine.evaluate as ev
    import core.engine.stage1.files as files

    qrels = reference_file(ROBUST_QRELS)
    good = b"".join(b"%d Q0 d%d 1 %d.5 t\n" % (q, d, 100 - d) for q in range(303, 343) for d in range(30))
    bad = {"repeat": good + b"# note\n342 Q0 d3 1 2.5 t\n", "score": good.replace(b" 77.5 ", b" x77 "),
           "fields": good.replace(b" 1 88.5 t", b" 88.5"), "utf8": good + b"342 Q0 d\xe9 1 1 t\n",
           "empty": b"\n \n" * 500, "comments": b"# c\n" * 500}
    want = {}
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(UploadError) as info:
            ev.evaluate_files(qrels, [tmp_path / name], ["AP"])
        want[name] = str(info.value)
    lower_sizes(monkeypatch, WHOLE_MAX_BYTES=0)
    lower_sizes(monkeypatch, TOLERANT_BYTES=1000)
    served = []
    monkeypatch.setattr(files, "whole", lambda src, options: served.append(src.path))
    for name in bad:
        with pytest.raises(UploadError) as info:
            ev.evaluate_files(qrels, [tmp_path / name], ["AP"])
        assert str(info.value) == want[name], name
    assert served == [] and "appears twice" in want["repeat"] and "line 1202" in want["repeat"]


def test_the_spilled_table_declines_what_the_fast_path_declines(tmp_path):
    """core.formats._tolerant.fill over a clean run's pieces (positioned(run_chunks(...))): NotClean from the pieces
    of a file the column reader declines, None for one that repeats a document or holds no row, else the rows and
    their tags."""
    import duckdb

    from core.formats._stream import NotClean, positioned, run_chunks
    from core.formats._tolerant import fill

    con = duckdb.connect()
    for i, data in enumerate([CLEAN + CLEAN, CLEAN + b"# c\n", CLEAN + CLEAN.replace(b" ", b"\t"),
                              CLEAN + b"\xef\xbb\xbf" + CLEAN.replace(b"d1", b"d7").replace(b"d2", b"d8"), b""]):
        path = tmp_path / f"r{i}.txt"
        path.write_bytes(data)
        try:
            got = fill(con, f"t{i}", positioned(run_chunks(_blocks(path, len(CLEAN)))))
        except NotClean:
            got = "declined"
        assert got == [None, "declined", None, "declined", None][i], i
    path = tmp_path / "ok.txt.gz"
    path.write_bytes(gzip.compress(CLEAN.replace(b"tagA\n302", b"tagB\n302")))
    tags, n = fill(con, "t", positioned(run_chunks(_blocks(path, 7))))
    assert n == 3 and pa.chunked_array(tags, pa.string()).unique().to_pylist() == ["tagA", "tagB"]
    assert con.execute("SELECT pos, qid, docno, score FROM t ORDER BY ALL").fetchall() == [
        (0, "301", "d1", 2.5), (1, "301", "d2", 2.5), (2, "302", "d1", -1e-3)]


def test_random_mutations_agree_with_the_tolerant_parser(monkeypatch):
    """Small runs and qrels with random blanks, CRs, comments, signs and exponents: whichever path read_run /
    read_qrels takes, the outcome (table or exact error text) is the tolerant parser's."""
    import random

    rng = random.Random(7)
    pieces = [" ", "\t", "  ", "\r", "#", "+", "e5", "E-3", "e0001", "", "\n", "-", ".", "x", "\ufeff", "\x0c"]

    def outcome(fn):
        try:
            got = fn()
        except UploadError as exc:
            return ("error", str(exc))
        return ("ok", got.table.combine_chunks().to_pydict(), getattr(got, "tag", None), got.warnings)

    for _ in range(300):
        lines = [f"{rng.choice(['301', '302', '0303'])} Q0 d{rng.randint(1, 9)} {i} {rng.choice(['1.5', '-2', '3e2', '.5'])} "
                 f"{rng.choice(['tA', 'tA', 'tB'])}" for i in range(rng.randint(1, 6))]
        text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
        for _ in range(rng.randint(0, 2)):
            pos = rng.randint(0, len(text))
            text = text[:pos] + rng.choice(pieces) + text[pos:]
        data = text.encode()
        assert outcome(lambda: read_run(data, filename="x")) == outcome(lambda: _robust_run(data, monkeypatch)), data
        qdata = "\n".join(" ".join([ln.split(" ")[0], "0", *ln.split(" ")[2:3], rng.choice(["1", "0", "-1", "+2", "07"])])
                          for ln in text.split("\n") if ln.count(" ") >= 2).encode()
        if qdata.strip():
            assert outcome(lambda: read_qrels(qdata, filename="x")) == outcome(lambda: _robust_qrels(qdata, monkeypatch)), qdata


@pytest.mark.parametrize("score", [b"1.", b".5", b"-0", b"007.50", b"-.25", b"12345678901234567890", b"0.1", b"-1E-3",
                                   b"2.5e+2", b"1e-308", b"4.9e-324"])
def test_plain_and_exponent_scores_read_alike_on_both_paths(score, monkeypatch):
    """Files without '+', 'e' or 'E' let the CSV reader parse scores itself; either way the doubles are the
    tolerant parser's, bit for bit (or both paths reject the file with the same message)."""
    _same_outcome_as_tolerant(b"301 Q0 d1 1 " + score + b" tagA\n301 Q0 d2 2 -7.25 tagA\n", monkeypatch)


def test_evaluate_files_reports_a_repeated_document_exactly(tmp_path):
    """A clean file that repeats a document fails with the tolerant parser's message, naming both lines."""
    from core.engine.evaluate import evaluate_files

    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(UploadError) as got:
        evaluate_files(qrels, [run], ["AP"])
    assert str(got.value) == ("r, line 3: document 'a' appears twice for topic '1' (first on line 1). trec_eval "
                              "refuses duplicate documents; remove one of the lines.\n    '1 Q0 a 3 0.5 t'")


@pytest.mark.parametrize("run_text", ["1 Q0 a 1 2.0 t\n", "1 Q0 a 1 notanumber t\n"])
def test_evaluate_files_reports_the_qrels_problem_first(tmp_path, run_text):
    """The first run is read beside the qrels; a broken qrels file is still the error reported, whether the
    run is fine or broken too (as when the qrels were read first)."""
    from core.engine.evaluate import evaluate_files

    qrels = tmp_path / "q"
    qrels.write_text("1 0 a one\n")
    run = tmp_path / "r"
    run.write_text(run_text)
    with pytest.raises(UploadError) as got:
        evaluate_files(qrels, [run], ["AP"])
    assert str(got.value).startswith("q, line 1:")


# -- unique: the one duplicate check of the fast paths ---------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import core.formats._fast as fast_mod  # noqa: E402

_topics = st.lists(st.lists(st.sampled_from(["d1", "d2", "D10", "d10", "é", "x" * 20, "a b", "",
                                              "FR941202-0-00043", "FR941205-0-00044"]), max_size=9),
                   min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(topics=_topics, seed=st.integers(0, 2**16))
def test_unique_agrees_with_a_set_of_pairs(topics, seed):
    """Per topic, any docno twice is found, in any row order (DuckDB's hash collides on some docnos, e.g. the
    two FR ones: the check groups the strings themselves)."""
    rows = [(f"q{t}", d) for t, docs in enumerate(topics) for d in docs]
    rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    table = pa.table({"qid": pa.array([q for q, _ in rows], pa.string()), "docno": pa.array([d for _, d in rows], pa.string())})
    expected = len(set(rows)) == len(rows)
    assert fast_mod.unique(table, ["qid", "docno"]) == expected
    assert fast_mod.exact_unique(table, ["qid", "docno"]) == expected


@settings(max_examples=100, deadline=None)
@given(topics=_topics, seed=st.integers(0, 2**16), buckets=st.sampled_from([1, 2, 3, 7]))
def test_unique_with_a_coarse_hash_agrees_with_the_exact_check(topics, seed, buckets):
    """The hashed check compares only the rows whose hash repeats: with a hash of 1-7 values nearly every row is
    such a candidate, and the answer must still be exact_unique's (the plain equivalent)."""
    rows = [(f"q{t}", d) for t, docs in enumerate(topics) for d in docs]
    rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    table = pa.table({"qid": pa.array([q for q, _ in rows], pa.string()), "docno": pa.array([d for _, d in rows], pa.string())})
    with pytest.MonkeyPatch.context() as m:
        m.setattr(fast_mod, "_KEY_HASH", f"hash({{cols}}) % {buckets}")
        assert fast_mod.unique(table, ["qid", "docno"]) == fast_mod.exact_unique(table, ["qid", "docno"]) \
            == (len(set(rows)) == len(rows))


@settings(max_examples=200, deadline=None)
@given(topics=_topics, split=st.booleans(), swap=st.booleans(), chunk=st.integers(1, 5))
def test_qrels_in_order_agree_with_the_exact_check(topics, split, swap, chunk):
    """Rows written topic by topic, docnos ascending (as qrels usually are), answered by `in_order` without hashing:
    with a repeated docno (neighbours), a topic split into two blocks, or two rows swapped, the answer must still
    be exact_unique's (the plain equivalent); `in_order` says True only when the rows really are in order and
    hold no repeat. Any chunking of the columns."""
    rows = sorted((f"q{t}", d) for t, docs in enumerate(topics) for d in docs)
    if split and len(rows) > 2:
        rows = rows[1:] + rows[:1]            # the first topic's first row goes to the end: two blocks
    if swap and len(rows) > 1:
        rows[0], rows[1] = rows[1], rows[0]
    cut = list(range(0, len(rows), chunk))

    def col(i):
        return pa.chunked_array([pa.array([r[i] for r in rows[a:a + chunk]], pa.string()) for a in cut], pa.string())
    table = pa.table({"qid": col(0), "docno": col(1)}) if rows else pa.table({"qid": pa.array([], pa.string()),
                                                                              "docno": pa.array([], pa.string())})
    expected = len(set(rows)) == len(rows)
    assert fast_mod.unique(table, ["qid", "docno"]) == fast_mod.exact_unique(table, ["qid", "docno"]) == expected
    ordered = all((a[0] != b[0] or a[1] < b[1]) for a, b in zip(rows, rows[1:])) and \
        len({q for q, _ in rows}) == 1 + sum(a[0] != b[0] for a, b in zip(rows, rows[1:]))
    assert fast_mod.in_order(table, ["qid", "docno"]) == (ordered and len(rows) > 1)


def test_a_check_that_cannot_decide_does_not_fail_a_clean_run(monkeypatch):
    """When the duplicate check says "maybe" for a clean run (it answers False when DuckDB fails), the tolerant
    parser finds no repeat and the evaluation goes on with the same values."""
    import core.engine.evaluate as ev
    run, qrels = robust_run("MU03rob01"), reference_file(ROBUST_QRELS)
    want = ev.evaluate_files(qrels, [run], ["AP", "P@10"])
    monkeypatch.setattr(fast_mod, "unique", lambda *a, **k: False)
    got = ev.evaluate_files(qrels, [run], ["AP", "P@10"])
    pd.testing.assert_frame_equal(got.per_query, want.per_query)


def test_reading_the_qrels_beside_the_run_equals_reading_one_after_the_other():
    from core.engine.stage1.files import read_first

    from core.engine.stage1.tables import arrow_qrels_summary

    qrels_path, run_path = reference_file(ROBUST_QRELS), robust_run("MU03rob01")
    qrels, run, summary, confirm = read_first(qrels_path, run_path)
    assert qrels.table.equals(read_qrels(qrels_path).table)
    _same_run(run, read_run(run_path))
    confirm()                                                   # the run's duplicate check, left to the caller
    topics, levels = arrow_qrels_summary(read_qrels(qrels_path).table)     # summarised beside the run: the same
    assert summary[0] == topics
    pd.testing.assert_frame_equal(summary[1].sort_values(["qid", "rel"]).reset_index(drop=True),
                                  levels.sort_values(["qid", "rel"]).reset_index(drop=True))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=310))
def test_binary_at_finds_what_the_regex_finds(data, start):
    """`_text.binary_at` (a translate pass, then the regex only if a binary byte is left) equals its plain
    equivalent, the regex search, on bytes and on a bytearray (the gzip path screens a growing bytearray)."""
    from core.formats import _text
    hit = _text._BINARY.search(data, start)
    want = hit.start() if hit else -1
    assert _text.binary_at(data, start) == want
    assert _text.binary_at(bytearray(data), start) == want


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=3), st.integers(min_value=1, max_value=9))
def test_isal_gunzip_equals_zlib(members, level):
    """`_text.decompress` with ISA-L gives what it gives with the standard library's zlib (its plain equivalent),
    for one gzip member or several concatenated, on any bytes (the screen may refuse both alike)."""
    import gzip
    import zlib

    from core.formats import _text
    data = b"".join(gzip.compress(m, compresslevel=level) for m in members)

    def run():
        try:
            return _text.decompress(data, "f")
        except UploadError as exc:
            return str(exc)
    got = run()
    old, _text.INFLATE = _text.INFLATE, zlib.decompressobj
    try:
        assert run() == got
    finally:
        _text.INFLATE = old
    if isinstance(got, bytes):
        assert got == b"".join(members)


def test_duplicate_checks_on_two_threads_share_the_database_but_not_their_tables():
    """`duck.shared_cursor` gives each caller its own connection to one scratch database (plain equivalent: a
    database per check): the qrels and the run are checked at once on two threads (stage1.files.read_first), each
    registering its keys under the same name, and each must see only its own table."""
    from concurrent.futures import ThreadPoolExecutor
    clean = pa.table({"qid": ["1", "1", "2"], "docno": ["a", "b", "a"]})
    repeat = pa.table({"qid": ["1", "1", "2"], "docno": ["a", "a", "b"]})
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda t: fast_mod.unique(t, ["qid", "docno"]), [clean, repeat] * 40))
    assert got == [True, False] * 40


@pytest.mark.parametrize("text", [
    b"301 Q0 d1 1 2.5 t\n# c\n301 Q0 d2 2 2 t\n302 Q0 d1 1 1 t\n",                  # no repeat
    b"301 Q0 d1 1 2.5 t\n# c\n301 Q0 d1 2 2 t\n301\tQ0 d1 3 1 t\n302 Q0 d1 x 1 t\n",  # repeats: lines named
])
@pytest.mark.parametrize("jg", [False, True])
def test_the_tolerant_parsers_hashed_duplicate_check_equals_the_exact_one(text, jg, monkeypatch):
    """runs._finish and qrels._finish ask the hashed check (`unique`) first; its plain equivalent is the exact
    grouping alone (check_duplicates). Same table or same error text either way."""
    qtext = b"".join(b"%s %s %s 1\n" % (f[0], f[1], f[2]) if not ln.startswith(b"#") else ln
                     for ln in text.splitlines() for f in [ln.split()[:1] + [b"0"] + ln.split()[2:3]])

    def outcome(fn):
        try:
            got = fn()
        except UploadError as exc:
            return ("error", str(exc))
        return ("ok", got.table.combine_chunks().to_pydict())

    hashed = (outcome(lambda: _robust_run(text, monkeypatch)),
              outcome(lambda: _robust_qrels(qtext, monkeypatch, judgment_groups=jg)))
    monkeypatch.setattr(runs_mod, "unique", lambda table, keys: False)
    monkeypatch.setattr(qrels_mod, "unique", lambda table, keys: False)
    exact = (outcome(lambda: _robust_run(text, monkeypatch)),
             outcome(lambda: _robust_qrels(qtext, monkeypatch, judgment_groups=jg)))
    assert hashed == exact
    assert (hashed[0][0] == "ok") == (b"d1 2 2" not in text)



def _blocks(path, size: int):
    """The text of the file at `path` (gunzipped when it is gzip), `size` bytes at a time."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        while block := f.read(size):
            yield block


# -- scores: the text checks run only when a '+', 'e' or 'E' is in the column -----------------------------------
_SCORE_TEXT = st.lists(st.sampled_from(["1.5", "-2", ".5", "7.", "3e2", "2.5E-3", "1e0001", "+1", "1+", "inf", "-nan",
                                        "1e400", "x", "e", "0", "12345678901234567890", ""]), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(values=_SCORE_TEXT, cut=st.integers(0, 12), start=st.integers(0, 3), large=st.booleans())
def test_scanned_scores_equal_the_checks_on_every_value(values, cut, start, large):
    """`_scores` looks for '+', 'e' and 'E' in the column's bytes and skips the per-value checks when none is
    there; its plain equivalent checks every value (`scan=False`). Same doubles or the same refusal, for columns
    in several chunks, sliced chunks (whose buffers hold bytes outside the values) and large strings."""
    kind = pa.large_string() if large else pa.string()
    whole = pa.array(["+9e9"] * start + values, kind).slice(start)
    column = pa.chunked_array([whole.slice(0, cut), whole.slice(cut)], kind)
    fast, plain = fast_mod._scores(column), fast_mod._scores(column, scan=False)
    assert (fast is None) == (plain is None)
    if fast is not None:
        assert fast.equals(plain)
    assert fast_mod._holds_bytes(column, b"eE+") == any(c in v for v in values for c in "eE+")


# -- one pass over the text for the screen and the delimiter ---------------------------------------------------
_TEXTISH = st.lists(st.sampled_from([b"301 Q0 d1 1 2.5 t", b"a\tb", b" ", b"\t", b"\n", b"\r\n", b"\r", b"#", b"\n#",
                                     b"\x00", b"\x08", b"\x0b", b"\x0c", b"\x0e", b"\x1f", b"\x7f", b"\xc3\xa9", b"\xff"]),
                    max_size=30).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=_TEXTISH)
def test_the_screens_control_bytes_equal_two_passes(data):
    """The screen keeps the text's control bytes (one translate pass) and _delimiter reads them; the plain
    equivalent passes over the text twice: `binary_at` for the screen and _delimiter's own translate. Same
    binary byte found, same delimiter, and read_run / read_qrels give the same outcome either way."""
    from core.formats import _text
    controls = _text.control_bytes(data)
    assert _text.first_binary(data, controls) == _text.binary_at(data)
    assert fast_mod._delimiter(data, controls) == fast_mod._delimiter(data)
    screened = _text.screened(data, "x")[1] if _text.binary_at(data) < 0 else None
    assert screened is None or screened == data.translate(None, bytes(range(0x20, 0x7f)) + bytes(range(0x80, 0x100)))


@pytest.mark.parametrize("reader", [read_run, read_qrels])
@pytest.mark.parametrize("text", [b"301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1.5 t\n", b"301\tQ0\td1\t1\t2.5\tt\r\n",
                                  b"301 0 d1 1\n301 0 d2 0\n", b"301 0 d1 1\n#x\n", b"301 0 d1\x0c 1\n",
                                  b"301 Q0 d1 1 2.5 t\n\x01", b"301 0 d1 1\r\n301\t0 d2 0\n"])
def test_reading_with_the_screens_control_bytes_equals_reading_without(reader, text, monkeypatch):
    """read_run / read_qrels hand the screen's control bytes to the fast path; without them (its plain form, each
    fast parser translating the text itself) the table or the error text is the same."""
    from core.formats import _text

    def outcome():
        try:
            got = reader(text, filename="x")
        except UploadError as exc:
            return ("error", str(exc))
        return ("ok", got.table.combine_chunks().to_pydict())

    fast = outcome()
    for mod in (runs_mod, qrels_mod):
        monkeypatch.setattr(mod, "screened", lambda data, file: (_text.decompress(data, file), None))
    assert outcome() == fast
