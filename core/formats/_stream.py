"""Clean run text (6-column TREC or 3-column MS MARCO; blanks of any kind and number between fields) parsed a piece
at a time, as core.formats.pieces.RunSource reads it, so a file of any length is never whole in memory: `run_chunks` (pieces cut at line ends by
`line_pieces`), `run_batches` (pieces of whole topics, checked for repeated documents) and `positioned` (each row's
place in the file, for a DuckDB table that spills: core.formats._tolerant.fill). Each piece goes through the fast
path's column reader (core.formats._fast), its blanks made single spaces first when they are mixed or doubled
(`one_space`); anything unclean raises NotClean (or returns None) and the caller reads the file with the tolerant
parser, which reports the problems (a piece at a time when the file is large: core/formats/_tolerant.py)."""
from __future__ import annotations

import io
import zlib
from itertools import chain

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from isal import isal_zlib

from core.formats._fast import _delimiter, _msmarco_columns, _run_columns, unique
from core.formats._text import UTF8_BOM


class NotClean(Exception):
    """A part of the file is not clean (or cannot be read): the tolerant parser must read the whole file."""


class NotContiguous(NotClean):
    """The file's lines are clean so far, but a topic's lines are not one block (or one topic is too large for a
    piece): run_batches cannot serve it, a reader that sorts (a DuckDB table) may."""


class MemoryFile(io.RawIOBase):
    """A read-only binary file over bytes in memory that copies out only what is read (io.BytesIO would copy a
    bytearray or memoryview whole)."""

    def __init__(self, data):
        super().__init__()
        self.view, self.pos = memoryview(data).cast("B"), 0

    def readinto(self, buffer) -> int:
        n = min(len(buffer), len(self.view) - self.pos)
        buffer[:n] = self.view[self.pos:self.pos + n]
        self.pos += n
        return n

    def read(self, n: int = -1) -> bytes:
        end = len(self.view) if n is None or n < 0 else min(self.pos + n, len(self.view))
        out, self.pos = bytes(self.view[self.pos:end]), end
        return out

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = pos if whence == 0 else self.pos + pos if whence == 1 else len(self.view) + pos
        return self.pos

    def close(self) -> None:
        if not self.closed:
            self.view.release()
        super().close()


def interleaved(head: bytes) -> bool:
    """True when the first lines of a run's text (`head`) visit a topic in two separate blocks: the file is not
    written topic by topic, so run_batches would raise NotContiguous a piece later. False for a clean start
    whose topics are contiguous, and whenever the lines are not clean (the readers that follow decide)."""
    text = one_space(head[:head.rfind(b"\n") + 1])
    if not text or text.startswith(UTF8_BOM) or _delimiter(text) != " ":
        return False
    try:
        qid = pacsv.read_csv(pa.BufferReader(text), read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                             parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                             convert_options=pacsv.ConvertOptions(include_columns=["f0"],
                                                                  column_types={"f0": pa.string()}))["f0"]
    except (pa.ArrowException, ValueError):
        return False
    blocks = 1 + pc.sum(pc.not_equal(qid[1:], qid[:-1])).as_py() if len(qid) > 1 else len(qid)
    return blocks > pc.count_distinct(qid).as_py()


_TAB_TO_SPACE = bytes.maketrans(b"\t", b" ")


def one_space(data: bytes) -> bytes:
    """`data` with every run of blanks (spaces, tabs) made one space, and none left at a line's start or end: the
    same fields, as the tolerant parser splits them (on blanks), in the clean form the column reader takes."""
    data = data.translate(_TAB_TO_SPACE)
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n").replace(b" \r\n", b"\r\n")
    return data[data.startswith(b" "):len(data) - data.endswith(b" ")]


def line_pieces(blocks, max_line: int | None = None, too_long=None):
    """The text of `blocks` cut at line ends: each piece holds whole lines (the last one may lack its line end).
    When a line grows past `max_line` bytes before its end, `too_long(the line so far)` is called; it raises."""
    rest = b""
    for block in chain(blocks, [b""]):
        if block:
            data = rest + block
            cut = data.rfind(b"\n") + 1
            if cut == 0:                           # no line end yet: read on
                rest = data
                if max_line is not None and len(rest) > max_line:
                    too_long(rest)
                continue
            data, rest = data[:cut], data[cut:]
        else:
            data, rest = rest, b""
            if not data:
                return
        box = [data]
        del data
        yield box.pop()        # the caller holds the only reference, so it frees the piece when done with it


def run_chunks(blocks, *, fmt: str = "trec"):
    """(qid, docno, score) table and tags (distinct, then the last line's: runs.build_run) of each piece of a clean
    run's text, given as byte blocks (core.formats.pieces.RunSource.blocks, which bounds them) and cut here at line
    ends, so the whole file is never in memory at once. Raises NotClean as soon as a piece is not clean (no duplicate
    check: a document may repeat across pieces). `fmt`: 'trec' (6 columns) or 'msmarco' (qid, docno, rank: score =
    -rank, no tags), as `run_format` tells them apart."""
    columns = _msmarco_columns if fmt == "msmarco" else _run_columns
    first = True
    try:
        for data in line_pieces(blocks):
            if not first and data.startswith(UTF8_BOM):
                raise NotClean()
            first = False
            delim = _delimiter(data)
            got = columns([data], delim) if delim is not None else None
            if got is None:                # e.g. tabs and spaces mixed, or runs of blanks: the fields they separate
                spaced = one_space(data)
                got = columns([spaced], " ") if spaced != data and _delimiter(spaced) == " " else None
            del data
            if got is None:
                raise NotClean()
            yield got[0], got[1] if got[1] is not None else pa.array([], pa.string())
    except (OSError, EOFError, ValueError, zlib.error, isal_zlib.error):
        raise NotClean() from None


def run_batches(blocks, *, max_topic_bytes: int | None = None, fmt: str = "trec"):
    """(qid, docno, score) table and tags (as run_chunks gives them) of each piece of a clean run file, cut at topic
    ends, so every piece holds whole topics (runs are written topic by topic; the last topic of a piece waits for the
    next). Raises NotClean when a piece is not clean or a document repeats within a topic, NotContiguous (a
    NotClean) when a topic's lines are not contiguous: the caller then reads the file another way.
    `max_topic_bytes`: NotContiguous also when the rows of one topic grow past this many bytes (a piece of whole
    topics would not fit); `fmt`: as for run_chunks."""
    done, pending = set(), None

    def whole(batch: pa.Table) -> pa.Table:
        names = pc.unique(batch["qid"]).to_pylist()
        if done.intersection(names):
            raise NotContiguous()
        if not unique(batch, ["qid", "docno"]):
            raise NotClean()
        done.update(names)
        return batch

    for piece, tags in run_chunks(blocks, fmt=fmt):
        if pending is not None:
            piece = pa.concat_tables([pending, piece])
        last = piece["qid"][piece.num_rows - 1]
        tail = pc.equal(piece["qid"], last).to_numpy(zero_copy_only=False)
        start = piece.num_rows - int(np.argmin(tail[::-1])) if not tail.all() else 0
        pending = piece.slice(start)
        if max_topic_bytes is not None and pending.nbytes > max_topic_bytes:
            raise NotContiguous()
        yield (whole(piece.slice(0, start)) if start else piece.slice(0, 0)), tags
    if pending is not None and pending.num_rows:
        yield whole(pending), pa.array([], pa.string())


def positioned(chunks):
    """run_chunks' pieces, each table with the row's position in the file first (pos, qid, docno, score), as
    core.formats._tolerant.fill takes them."""
    n = 0
    for part, tags in chunks:
        yield part.add_column(0, "pos", pa.array(np.arange(n, n + part.num_rows))), tags
        n += part.num_rows
