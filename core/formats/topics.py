"""Topics (TREC `<top>` SGML, TSV `qid<TAB>text`, JSONL) and documents (TREC `<DOC>`, TSV or JSONL).

Topic text is the title; SGML topics also return their description and narrative. A file's format is told by
its first character ('<' SGML or TREC, '{' or '[' JSONL, else TSV).
"""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from core.errors import Problem, UploadError
from core.formats._table import ALIASES
from core.formats._checks import duplicate_rows
from core.formats._text import Problems, split_lines, text_lines

if TYPE_CHECKING:
    import pandas as pd

_TOP = re.compile(r"<top>(.*?)(?:</top>|(?=<top>)|\Z)", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^\s<]+)", re.I)


def _frame(*args, **kwargs) -> pd.DataFrame:
    """A pandas DataFrame; pandas is imported here, when topics are read, not when the module is (loading a run
    from the command line can then import it on a thread while the file is read: see core.store.ingest)."""
    import pandas

    return pandas.DataFrame(*args, **kwargs)


def _field(tag: str, label: str):
    """Text after <tag> up to the next tag; callers _clean() the whitespace. No lazy group before a
    whitespace run, so matching stays linear however long the whitespace is."""
    return re.compile(rf"<{tag}>\s*(?:{label}:)?([^<]*)", re.I)


_TITLE, _DESC, _NARR = _field("title", "Topic"), _field("desc", "Description"), _field("narr", "Narrative")
TEXT_KEYS = {"topic": ("text", "title", "query", "question"),
             "document": ("text", "contents", "content", "body", "passage", "segment")}
ID_KEYS = {"topic": ALIASES["qid"] + ("id", "_id", "number", "num"),
           "document": ALIASES["docno"] + ("id", "_id")}


def read_topics(source, *, filename: str | None = None) -> pd.DataFrame:
    """-> DataFrame(qid, text[, description, narrative]); raises UploadError."""
    return _read(source, filename, "topic")


def read_documents(source, *, filename: str | None = None) -> pd.DataFrame:
    """-> DataFrame(docno, text); raises UploadError."""
    return _read(source, filename, "document").rename(columns={"qid": "docno"})


def _read(source, filename, kind: str) -> pd.DataFrame:
    file, arr, data = text_lines(source, filename)
    if arr is None:
        raise UploadError(Problem(file, None, f"a Parquet file is not a {kind} file",
                                  f"Upload {kind}s as TSV or JSONL"))
    first = pc.find_substring_regex(arr, "[^\\x{feff} \t\r\n]")[0].as_py()     # the first byte that tells
    head = b"" if first < 0 else pc.binary_slice(arr.cast(pa.large_binary()), first, first + 1)[0].as_py()
    if kind == "topic" and head == b"<":
        df = _sgml(arr[0].as_py(), file)
    elif head == b"<":
        df = _trec_docs(arr, file)
    elif head in (b"{", b"["):
        df = _jsonl(arr, file, kind)
    else:
        df = _tsv(arr, file, kind)
    _check_duplicates(df, file, kind)
    return df.drop(columns="line").reset_index(drop=True)


def _sgml(text: str, file: str) -> pd.DataFrame:
    """Each <top> block a row, with its 1-based line number (counted incrementally: linear in the file)."""
    rows, problems, line, pos = [], Problems(file), 1, 0
    for m in _TOP.finditer(text):
        line, pos = line + text.count("\n", pos, m.start()), m.start()
        body = m.group(1)
        num, title = _NUM.search(body), _TITLE.search(body)
        if not num or not title:
            problems.add(line, f"this <top> has no {'<num>' if not num else '<title>'}",
                         "Give every topic a <num> and a <title>", _first_line(body, "<top>"))
            continue
        desc, narr = _DESC.search(body), _NARR.search(body)
        rows.append((num.group(1), _clean(title.group(1)), _clean(desc.group(1)) if desc else "",
                     _clean(narr.group(1)) if narr else "", line))
    problems.raise_if_any()
    if not rows:
        raise UploadError(Problem(file, None, "found no <top> ... </top> topics",
                                  "Upload TREC topics in SGML, or TSV lines 'qid<TAB>text'"))
    return _frame(rows, columns=["qid", "text", "description", "narrative", "line"])


# Python's whitespace (what str.split and str.strip take away; tests/formats/test_trec_docs.py checks it against
# str.isspace), and a run of it as an RE2 class: _clean's " ".join(s.split()) in Arrow.
_WS_CHARS = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200b))) +
             "\u2028\u2029\u202f\u205f\u3000")
_WS_CLASS = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in _WS_CHARS) + "]"
# what must become one space: a run of two or more, or one that is not a space (5x faster than every run, ones
# included, which mostly replaces a space by itself)
_WS_RUN = "(?:" + _WS_CLASS + "{2,}|" + _WS_CLASS.replace("\\x{20}", "") + ")"


def _trec_docs(arr: pa.Array, file: str) -> pd.DataFrame:
    """TREC <DOC><DOCNO>id</DOCNO> ... </DOC>; the text is everything else, tags removed, whitespace runs made one
    space. Vectorised over the documents (pyarrow's RE2): a document is what follows a <DOC> (any case) up to
    its </DOC> or the next <DOC>; its id the first <DOCNO> element, trimmed. Line numbers are those of the <DOC>s."""
    pieces = pc.split_pattern_regex(arr, "(?i)<DOC>").flatten()
    lines = np.cumsum(pc.count_substring(pieces, "\n").to_numpy(zero_copy_only=False)) + 1
    body = pc.replace_substring_regex(pieces.slice(1), "(?is)</DOC>.*", "", max_replacements=1)
    del pieces
    line = lines[:-1]
    docno = pc.struct_field(pc.extract_regex(body, "(?is)<DOCNO>(?P<d>.*?)</DOCNO>"), [0])
    docno = pc.utf8_trim(docno, _WS_CHARS)
    bad = ~pc.fill_null(pc.greater(pc.utf8_length(docno), 0), False).to_numpy(zero_copy_only=False)
    problems, bl = Problems(file), np.flatnonzero(bad)
    problems.add_many(bl, lambda i: (int(line[bl[i]]), "this <DOC> has no <DOCNO>",
                                     "Give every document a <DOCNO>...</DOCNO>", _first_line(body[int(bl[i])].as_py())))
    problems.raise_if_any()
    if not len(body):
        raise UploadError(Problem(file, None, "found no <DOC> ... </DOC> documents",
                                  "Upload TREC <DOC> files, TSV lines 'docno<TAB>text', or JSONL"))
    text = pc.replace_substring_regex(body, "(?is)<DOCNO>.*?</DOCNO>", " ")
    del body
    text = pc.replace_substring_regex(text, "<[^>]*>", " ")
    text = pc.utf8_trim(pc.replace_substring_regex(text, _WS_RUN, " "), " ")
    return _frame({"qid": docno.to_pandas().astype(object), "text": text.to_pandas().astype(object), "line": line})


def _first_line(body: str, tag: str = "<DOC>") -> str:
    """How a bad block is quoted: its first line, or the tag when it holds nothing."""
    return body.strip().splitlines()[0] if body.strip() else tag


def _clean(s: str) -> str:
    return " ".join(s.split())


def _tsv(text: pa.Array, file: str, kind: str) -> pd.DataFrame:
    lines = split_lines(text, file, sep="\t", max_splits=1)
    bad = lines.nfields != 2
    bl = lines.lineno[bad]
    problems = Problems(file)
    idname = "qid" if kind == "topic" else "docno"
    problems.add_many(bl, lambda i: (int(bl[i]), f"found no tab between the {idname} and the text",
                                     f"Write each {kind} as '{idname}<TAB>text' on one line", lines.quote(int(bl[i]))))
    problems.raise_if_any()
    ids = pc.ascii_trim_whitespace(lines.column(0)).to_pandas()
    texts = pc.ascii_trim_whitespace(lines.column(1)).to_pandas()
    df = _frame({"qid": ids.astype(object), "text": texts.astype(object), "line": lines.lineno})
    header = str(df["qid"].iat[0]).lower() in ID_KEYS[kind] and str(df["text"].iat[0]).lower() in TEXT_KEYS[kind]
    if header and len(df) == 1:
        raise UploadError(Problem(file, 1, "the file has a header line but no data lines",
                                  f"Add one line '{idname}<TAB>text' per {kind}", lines.quote(1)))
    return df.iloc[1:] if header else df   # a header line such as 'qid<TAB>text' names the columns


def _jsonl(text: pa.Array, file: str, kind: str) -> pd.DataFrame:
    lineno = split_lines(text, file, sep="\x00", max_splits=0).lineno
    try:
        table = pj.read_json(pa.BufferReader(text[0].as_buffer()),
                             parse_options=pj.ParseOptions(newlines_in_values=False))
    except pa.ArrowException:  # bad JSON, or mixed types (ids as numbers and strings): the slow path
        table = _jsonl_slow(text[0].as_py(), file)
    if table.num_rows != len(lineno):  # e.g. two objects on one line
        table = _jsonl_slow(text[0].as_py(), file)
    names = {n.lower(): n for n in table.column_names}
    id_col = next((names[k] for k in ID_KEYS[kind] if k in names), None)
    text_col = next((names[k] for k in TEXT_KEYS[kind] if k in names), None)
    if id_col is None or text_col is None:
        want = f"an id ({', '.join(ID_KEYS[kind][:3])}) and a text field ({', '.join(TEXT_KEYS[kind][:3])})"
        raise UploadError(Problem(file, 1, f"the JSON objects have keys {table.column_names} but need {want}",
                                  "Rename the keys and upload again"))
    try:
        ids = pc.cast(table[id_col], pa.string()).to_pandas()
        texts = pc.cast(table[text_col], pa.string()).to_pandas()
    except pa.ArrowException:
        raise UploadError(Problem(file, None, f"the '{id_col}' and '{text_col}' values must be strings or numbers",
                                  "Write them as plain JSON strings")) from None
    empty = (ids.isna() | texts.isna()).to_numpy()
    if empty.any():
        n = int(lineno[np.flatnonzero(empty)[0]])
        raise UploadError(Problem(file, n, f"this object has no '{id_col}' or no '{text_col}'",
                                  f"Give every {kind} both fields", text[0].as_py().split("\n")[n - 1]))
    return _frame({"qid": ids.astype(object), "text": texts.astype(object), "line": lineno})


def _jsonl_slow(text: str, file: str) -> pa.Table:
    """Line-by-line JSON (only when the fast reader fails): names the bad line, stringifies values."""
    records = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise UploadError(Problem(file, n, f"this line is not valid JSON ({exc.msg})",
                                      "Write one JSON object per line", line)) from None
        if not isinstance(obj, dict):
            raise UploadError(Problem(file, n, "this line is not a JSON object", "Write one {...} object per line", line))
        records.append({k: v if v is None or isinstance(v, str) else json.dumps(v) for k, v in obj.items()})
    if len(records) != len(split_lines(text, file, sep="\x00", max_splits=0).lineno):
        raise UploadError(Problem(file, None, "some lines hold no JSON object or more than one",
                                  "Write exactly one JSON object per line"))
    keys = list(dict.fromkeys(k for r in records for k in r))
    return pa.table({k: pa.array([r.get(k) for r in records], pa.string()) for k in keys})


def _check_duplicates(df: pd.DataFrame, file: str, kind: str) -> None:
    table = pa.table({"qid": pa.array(df["qid"], pa.string())})
    rows, first = duplicate_rows(table, ["qid"])
    problems = Problems(file)
    lines = df["line"].to_numpy()
    problems.add_many(rows, lambda i: (int(lines[rows[i]]), f"{kind} '{df['qid'].iat[rows[i]]}' appears twice "
                                       f"(first on line {int(lines[first[i]])})", f"Keep one entry per {kind}", None))
    problems.raise_if_any()
