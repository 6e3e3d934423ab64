"""Fast path for well-formed TREC run and qrels files.

A clean file (single spaces, or single tabs, between fields, every line the same number of fields, no comments, no tabs or
control characters, valid UTF-8, numbers the tolerant parser would accept, no duplicate documents) is read
by pyarrow's multi-threaded CSV reader with every column typed as a string (ids are never sniffed).
Anything unusual returns None, and the caller falls back to the tolerant parser in `_text`, which
produces the line-numbered error messages. The fast path never raises and never reports a problem:
for every file it accepts, it returns exactly the table the tolerant parser would.
"""
from __future__ import annotations


import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from core.formats._table import match_header
from core.formats._text import FLOAT_RE, GZIP_MAGIC, PARQUET_MAGIC, UTF8_BOM, UTF16_BOMS, control_bytes
from core.db.scratch import shared_cursor
from core.db.sqltext import ident

_CODED = pa.dictionary(pa.int32(), pa.string())
_PARSE = {d: pacsv.ParseOptions(delimiter=d, quote_char=False, double_quote=False, escape_char=False,
                                newlines_in_values=False, ignore_empty_lines=True) for d in " \t"}


def _delimiter(data: bytes, controls: bytes | None = None) -> str | None:
    """' ' or '\t' when the file separates fields with exactly one kind of blank; None when it mixes them, has
    comment lines, or holds control bytes other than LF and the CR of a CRLF (e.g. form feeds, binary data).
    `controls`: the control_bytes(data) that the screen already found, if it did."""
    if data.startswith(b"#") or (data.find(b"#") >= 0 and b"\n#" in data):
        return None
    ctrl = control_bytes(data) if controls is None else controls     # only the control bytes (and DEL) are left
    n_lf, n_tab = ctrl.count(b"\n"), ctrl.count(b"\t")
    if n_tab and b" " in data:
        return None
    delim = "\t" if n_tab else " "
    if n_lf + n_tab == len(ctrl):
        return delim
    n_cr = ctrl.count(b"\r")
    return delim if n_lf + n_tab + n_cr == len(ctrl) and data.count(b"\r\n") == n_cr else None


def _doubled(data: bytes, delim: str) -> bool:
    """True when two delimiters touch somewhere in `data` (an empty field), checked in 16 MB blocks."""
    arr, d, block = np.frombuffer(data, dtype=np.uint8), ord(delim), 1 << 24
    for start in range(0, len(arr), block):
        hit = arr[start:start + block + 1] == d
        if np.any(hit[1:] & hit[:-1]):
            return True
    return False


def read_columns(box: list[bytes], names: list[str], coded: tuple[str, ...] = (), floats: tuple[str, ...] = (),
                 unused: tuple[str, ...] = (), delim: str | None = None) -> pa.Table | None:
    """Every column as strings, or None when the file is not a clean space-separated table of len(names) fields.
    `box` holds the file's bytes; it is emptied once they are parsed, so the caller's last reference goes.
    The `coded` columns (few distinct values: Q0, rank, tag) are read dictionary-encoded, to save memory; the
    `floats` columns are parsed as doubles by the reader itself (the caller checks they are plain decimals).
    The `unused` columns are left out of the table when that cannot hide a problem: the file is ASCII (so
    valid UTF-8) and no two delimiters touch (so no field is empty); otherwise they are read and checked.
    `delim`: what `_delimiter` already said of these bytes (the caller looked), so it is not scanned again."""
    data = box[0]
    if not data or data.startswith((GZIP_MAGIC, PARQUET_MAGIC, *UTF16_BOMS)):
        return None
    buf = pa.py_buffer(data)
    if data.startswith(UTF8_BOM):
        buf = buf.slice(3)
        if data[3:4] == b"#" or data[3:6] == UTF8_BOM:    # pyarrow's reader drops a second BOM; the parser keeps it
            return None
    delim = delim or _delimiter(data)
    if delim is None:
        return None
    if unused and not (data.isascii() and not _doubled(data, delim)):
        unused = ()
    kept = [n for n in names if n not in unused]
    table = _parse(buf, names, coded, floats, kept, delim)
    if table is None:
        return None
    box.clear()
    del data, buf
    if table.num_rows == 0:
        return None
    for name in kept:   # an empty field: a leading, trailing or double blank
        if name in floats:
            if table[name].null_count:
                return None
            continue
        values = [c.dictionary for c in table[name].chunks] if name in coded else [table[name]]
        if any(len(v) and pc.min(pc.binary_length(v)).as_py() == 0 for v in values):
            return None
    header = match_header([str(table[n][0].as_py()) for n in kept])
    if "qid" in header and "docno" in header:   # possibly a header line: the tolerant path decides
        return None
    return table


def _parse(buf, names, coded, floats, kept, delim) -> pa.Table | None:
    """pyarrow's CSV reader over `buf` with read_columns' options; None when it rejects the bytes."""
    try:
        return pacsv.read_csv(
            pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
            parse_options=_PARSE[delim],
            convert_options=pacsv.ConvertOptions(column_types={n: _CODED if n in coded else pa.float64() if n in floats
                                                               else pa.string() for n in names},
                                                 include_columns=kept,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 check_utf8=True))
    except (pa.ArrowException, ValueError, OverflowError):
        return None


# The key hash: DuckDB's 64-bit hash() of the key columns. It is weak on short strings (real docnos such as
# FR941202-0-00043 and FR941205-0-00044 share a hash), so a repeated hash is only a candidate. Tests replace it
# with a coarser one to exercise the exact check.
_KEY_HASH = "hash({cols})"


def unique(table: pa.Table, keys: list[str]) -> bool:
    """True when no key repeats in `table` (the parsers' duplicate check). False when DuckDB fails (e.g. out of
    memory): the tolerant parser then decides.

    Qrels written in order (`in_order`) are answered by one pass over neighbouring rows. Otherwise each row's key
    is hashed by DuckDB (parallel), the hashes are sorted with numpy, and only the rows whose hash repeats are
    grouped exactly. Plain equivalent: `exact_unique`, one GROUP BY over every key, which holds a hash table of
    all the strings: ~500 MB more at the peak for a 5M-line run, against ~150 MB here (benchmarks/PROFILE.md);
    tests/formats/test_formats_fastpath.py compares the two."""
    if in_order(table, keys):
        return True
    cols = ", ".join(ident(k) for k in keys)
    con = shared_cursor()
    try:
        con.register("_rb_keys", table.select(keys))
        key_hash = _KEY_HASH.format(cols=cols)       # identifiers quoted by ident(); no user text
        h = np.sort(con.sql("SELECT " + key_hash + " AS h FROM _rb_keys").to_arrow_table()["h"].to_numpy())
        repeated = np.unique(h[1:][h[1:] == h[:-1]])
        del h
        if not len(repeated):
            return True
        con.register("_rb_hashes", pa.table({"h": repeated}))
        return not con.execute("SELECT 1 FROM _rb_keys WHERE " + key_hash + " IN (SELECT h FROM _rb_hashes) "
                               "GROUP BY " + cols + " HAVING count(*) > 1 LIMIT 1").fetchall()
    except duckdb.Error:
        return False
    finally:
        con.close()


HEAD_ROWS = 4096     # rows looked at first: a table not in order (a run, by score) is told from them at once


def in_order(table: pa.Table, keys: list[str]) -> bool:
    """True when the rows of each value of keys[0] (a topic) are one block and keys[1] (the docno) strictly
    increases (byte order) inside each block, as qrels are usually written: then no key repeats. False when that
    is not so (or for other keys): `unique` hashes. 0.1 s for the 7.3M judgments of benchmarks' Robust qrels,
    against 0.8 s hashed (benchmarks/PROFILE.md)."""
    if len(keys) != 2 or table.num_rows < 2:
        return False
    head = table.slice(0, HEAD_ROWS)
    if _blocks(head[keys[0]], head[keys[1]]) is None:
        return False
    topic, doc = table[keys[0]], table[keys[1]]
    same = None if topic.null_count or doc.null_count else _blocks(topic, doc)
    if same is None:
        return False
    # No topic in two blocks: the topics that start the blocks are all different. Plain equivalent: the number of
    # blocks equals pc.count_distinct(topic), which hashes every row (0.055 s more on 7.3M judgments);
    # tests/formats/test_formats_fastpath.py's in-order test holds `in_order` to the exact check.
    firsts = np.append(0, np.flatnonzero(~same.to_numpy(zero_copy_only=False)) + 1)
    return pc.count_distinct(topic.take(pa.array(firsts))).as_py() == len(firsts)


def _blocks(topic, doc) -> pa.ChunkedArray | None:
    """Whether each row's topic equals the next row's, when `doc` strictly increases wherever it does; else None."""
    n = len(topic)
    same = pc.equal(topic.slice(1), topic.slice(0, n - 1))
    ok = pc.all(pc.or_(pc.invert(same), pc.greater(doc.slice(1), doc.slice(0, n - 1)))).as_py()
    return same if ok else None


def exact_unique(table: pa.Table, keys: list[str]) -> bool:
    """`unique`'s plain equivalent: DuckDB's hash aggregate over the keys themselves, asked for any key held by
    two rows."""
    cols = ", ".join(ident(k) for k in keys)
    con = shared_cursor()
    try:
        con.register("_rb_keys", table.select(keys))
        return not con.execute("SELECT 1 FROM _rb_keys GROUP BY " + cols + " HAVING count(*) > 1 LIMIT 1").fetchall()
    except duckdb.Error:
        return False
    finally:
        con.close()


def _scores(score: pa.ChunkedArray, scan: bool = True) -> pa.ChunkedArray | None:
    """The scores as doubles, when every one matches FLOAT_RE and is finite; else None.
    A finite double that pyarrow parsed from text without '+', 'e' or 'E' is a plain decimal FLOAT_RE accepts, so
    with `scan` the text checks run only when one of those bytes is in the column (`_holds_bytes`: one memchr per
    byte over each chunk's value bytes, ~0.01 s for 5M scores against ~0.25 s for the checks). Plain equivalent:
    `scan=False`, the checks on every value; tests/formats/test_formats_fastpath.py compares the two."""
    try:
        values = pc.cast(score, pa.float64())
    except (pa.ArrowException, ValueError):
        return None
    if not pc.all(pc.is_finite(values)).as_py():
        return None
    if scan and not _holds_bytes(score, b"eE+"):
        return values
    has_exp = pc.or_(pc.match_substring(score, "e"), pc.match_substring(score, "E"))
    if pc.any(has_exp).as_py():   # the cast accepts long exponents that FLOAT_RE rejects
        exp = score.filter(has_exp)
        if not pc.all(pc.match_substring_regex(exp, FLOAT_RE)).as_py():
            return None
    if pc.any(pc.starts_with(score, "+")).as_py():
        return None
    return values


def _holds_bytes(column, chars: bytes) -> bool:
    """Whether a value of the string column (an Array or ChunkedArray) holds one of the bytes `chars`; True for a
    column of another type (the caller then checks each value)."""
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        width = np.int32 if pa.types.is_string(chunk.type) else np.int64 if pa.types.is_large_string(chunk.type) \
            else None
        if width is None:
            return True
        if len(chunk) == 0:
            continue
        offsets = np.frombuffer(chunk.buffers()[1], dtype=width, count=chunk.offset + len(chunk) + 1)
        start, end = int(offsets[chunk.offset]), int(offsets[-1])
        text = chunk.buffers()[2].slice(start, end - start).to_pybytes() if end > start else b""
        if any(bytes([b]) in text for b in chars):
            return True
    return False


def _box(data) -> list[bytes]:
    return data if isinstance(data, list) else [data]


def _run_columns(box: list[bytes], delim: str | None = None) -> tuple[pa.Table, pa.Array] | None:
    """(qid, docno, score) and the distinct tags in order of first appearance, then the last line's tag, without
    the duplicate check.
    `delim`: as read_columns takes it."""
    data = box[0] if box else b""
    # Without '+', 'e' or 'E' anywhere in the file, every score the reader parses as a finite double is a plain
    # decimal that FLOAT_RE accepts, so the reader may parse them itself; otherwise they are checked as text.
    plain = b"+" not in data and b"e" not in data and b"E" not in data
    del data
    t = read_columns(box, ["qid", "q0", "docno", "rank", "score", "tag"], ("q0", "rank", "tag"),
                     ("score",) if plain else (), unused=("q0", "rank"), delim=delim)
    if t is None:
        return None
    score = _scores(t["score"]) if not plain else t["score"] if pc.all(pc.is_finite(t["score"])).as_py() else None
    if score is None:
        return None
    tags = pc.unique(pa.chunked_array([c.dictionary.take(pc.unique(c.indices)) for c in t["tag"].chunks], pa.string()))
    last = pa.array([t["tag"][t.num_rows - 1].as_py()], pa.string())     # the run's name (runs.build_run)
    return pa.table({"qid": t["qid"], "docno": t["docno"], "score": score}), pa.concat_arrays([tags, last])


_RANK = r"^-?[0-9]{1,9}$"     # the ranks read here (INT_RE without '+', which the tolerant path strips)


def _msmarco_columns(box: list[bytes], delim: str | None = None) -> tuple[pa.Table, None] | None:
    """(qid, docno, score = -rank) of a clean MS MARCO run (qid, docno, rank), as the tolerant parser reads it.
    The rank column has few distinct values: each chunk's dictionary is checked and converted once."""
    t = read_columns(box, ["qid", "docno", "rank"], ("rank",), delim=delim)
    if t is None:
        return None
    scores = []
    for chunk in t["rank"].chunks:
        if not pc.all(pc.match_substring_regex(chunk.dictionary, _RANK)).as_py():
            return None
        scores.append(pc.negate(pc.cast(chunk.dictionary, pa.float64())).take(chunk.indices))
    return pa.table({"qid": t["qid"], "docno": t["docno"], "score": pa.chunked_array(scores, pa.float64())}), None


def run_format(head: bytes) -> str:
    """'msmarco' when the first line of `head` (the start of a run's text) has 3 fields (qid, docno, rank), else
    'trec'."""
    head = head[:4096]
    return "msmarco" if len(head[:head.find(b"\n")].split()) == 3 else "trec"


def fast_run(data: bytes | list[bytes], controls: bytes | None = None, check: bool = True
             ) -> tuple[pa.Table, pa.ChunkedArray | None, str] | None:
    """(qid, docno, score) table, the tags (as _run_columns gives them; None for MS MARCO) and the format ('trec' or
    'msmarco') of a clean 6-column TREC run or 3-column MS MARCO run in which no document repeats within a topic,
    else None. `data`: the bytes, or a one-element list holding them (emptied once parsed); `controls`: their
    control_bytes, when the screen found them (core.formats._text.screened). `check` False: the duplicate check is
    the caller's (core.formats.runs.read_run_unchecked)."""
    box = _box(data)
    fmt = run_format(box[0]) if box else "trec"
    delim = _delimiter(box[0], controls) if box and controls is not None else None
    got = _msmarco_columns(box, delim) if fmt == "msmarco" else _run_columns(box, delim)
    if got is None:
        return None
    table, tags = got
    pa.default_memory_pool().release_unused()   # the parser's scratch blocks, before DuckDB's hash table
    if check and not unique(table, ["qid", "docno"]):
        return None
    return table, tags, fmt


def fast_qrels(data: bytes | list[bytes], judgment_groups: bool, controls: bytes | None = None
               ) -> tuple[pa.Table, pa.ChunkedArray] | None:
    """(qid, docno, rel) table and column 2 of a clean 4-column TREC qrels file, else None. `controls`: as fast_run
    takes them."""
    box = _box(data)
    delim = _delimiter(box[0], controls) if box and controls is not None else None
    t = read_columns(box, ["qid", "iter", "docno", "rel"], delim=delim)
    if t is None:
        return None
    rel = t["rel"]
    if pc.max(pc.utf8_length(rel)).as_py() > 9 or pc.any(pc.starts_with(rel, "+")).as_py():
        return None
    try:
        rel = pc.cast(rel, pa.int32())
    except (pa.ArrowException, ValueError):
        return None
    table = pa.table({"qid": t["qid"], "docno": t["docno"], "rel": rel})
    keyed = table.append_column("_g", t["iter"]) if judgment_groups else table
    if not unique(keyed, (["_g"] if judgment_groups else []) + ["qid", "docno"]):
        return None
    return table, t["iter"]
