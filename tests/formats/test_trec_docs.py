"""TREC <DOC> files, parsed over whole columns (core.formats.topics._trec_docs), against the per-document loop
they replaced (kept here as the oracle): random documents with tags in any case, missing or empty DOCNOs, unclosed
blocks, text outside blocks and whitespace of every kind must give the same rows and line numbers, or the same
error text."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import Problem, UploadError
from core.formats import read_documents
from core.formats import topics as T
from core.formats._text import Problems

_DOC = re.compile(r"<DOC>(.*?)(?:</DOC>|(?=<DOC>)|\Z)", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")


def oracle(text: str, file: str) -> list[tuple]:
    """The plain per-document regex loop that core/formats/topics.py's column parse must equal."""
    rows, problems, line, pos = [], Problems(file), 1, 0
    for m in _DOC.finditer(text):
        line, pos = line + text.count("\n", pos, m.start()), m.start()
        body = m.group(1)
        docno = _DOCNO.search(body)
        if not docno or not docno.group(1).strip():
            problems.add(line, "this <DOC> has no <DOCNO>", "Give every document a <DOCNO>...</DOCNO>",
                         body.strip().splitlines()[0] if body.strip() else "<DOC>")
        else:
            rows.append((docno.group(1).strip(), " ".join(_TAG.sub(" ", _DOCNO.sub(" ", body)).split())))
    problems.raise_if_any()
    if not rows:
        raise UploadError(Problem(file, None, "found no <DOC> ... </DOC> documents",
                                  "Upload TREC <DOC> files, TSV lines 'docno<TAB>text', or JSONL"))
    return rows


def outcome(fn):
    try:
        return "ok", fn()
    except UploadError as exc:
        return "error", str(exc), exc.total


def new(text: str) -> list[tuple]:
    df = read_documents(text.encode(), filename="d.trec")
    return list(zip(df["docno"], df["text"]))


BITS = ["<DOC>", "<doc>", "</DOC>", "</Doc>", "<DOCNO>", "</DOCNO>", "<docno> x7 </docno>", "<TEXT>", "</TEXT>", "<b>",
        ">", "<", "\n", "\r\n", "\t", "  ", "\x0b", "\x0c", "\x85", "\xa0", "\u2003", "\u3000", "é", "word", "\n\n"]


@settings(max_examples=400, deadline=None)
@given(docs=st.lists(st.tuples(st.sampled_from(["d1", " d2 ", "D-3", "", "\u2003d4\n", "d1"]),
                               st.sampled_from(["text", "two words", "<P>para</P>", "", "a\n b\tc"])),
                     min_size=1, max_size=6),
       bits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(BITS)), max_size=5))
def test_columns_give_what_the_loop_gives(docs, bits):
    text = "".join(f"<DOC>\n<DOCNO>{d}</DOCNO>\n<TEXT>{t}</TEXT>\n</DOC>\n" for d, t in docs)
    for at, bit in bits:
        pos = int(at * len(text))
        text = text[:pos] + bit + text[pos:]
    text = "<DOC>" + text if not text.lstrip("\ufeff \t\r\n").startswith("<") else text
    want = outcome(lambda: oracle(text, "d.trec"))
    got = outcome(lambda: new(text))
    if want[0] == "ok" and len({d for d, _ in want[1]}) < len(want[1]):
        assert got[0] == "error" and "appears twice" in got[1]      # the duplicate check that follows both
    else:
        assert got == want, text


def test_a_repeated_document_names_the_lines_of_both_docs():
    """Line numbers are those of the <DOC> tags, however the blocks end (closed, by the next <DOC>, by the file)."""
    text = b"<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\n\n<doc><docno>b</docno>x\ny</doc>\n<DOC>\n<DOCNO>a</DOCNO>"
    try:
        read_documents(text, filename="d.trec")
    except UploadError as exc:
        assert str(exc) == "d.trec, line 7: document 'a' appears twice (first on line 1). Keep one entry per document."
    else:
        raise AssertionError("the repeated document was not reported")


def test_whitespace_is_pythons():
    """The whitespace the text loses is exactly what str.split() splits on."""
    assert set(T._WS_CHARS) == {chr(c) for c in range(0x110000) if chr(c).isspace()}
