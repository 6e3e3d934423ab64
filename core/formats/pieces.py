"""Large run files read a piece at a time: the one reader that evaluating (core.engine.stage1.files, whose sink
ranks pieces into `Rankings`) and loading (core.store.prepare, whose sink writes ranked pieces to Parquet) share.

    src = RunSource.open(path_or_bytes, "run.gz")    # None: read it whole instead (read_run says what is wrong)
    for table, tags in src.batches(): ...            # clean and written topic by topic: pieces of whole topics
    info = src.fill(con, "rb_run")                   # in any order, or not clean: into a DuckDB table (it spills)

Every read goes through `RunSource.blocks`, which refuses a text that passes the text limit (a gzip bomb is refused
when it gets there) and a line longer than the line limit (a file without line ends is refused after its first
megabytes), with the parsers' own messages, so memory stays bounded on every path. Binary data is refused by the
tolerant parser's screen the first time a piece is not clean.

The sizes are named once, below, each with what it bounds (docs/architecture.md describes them too).
"""
from __future__ import annotations

import os
import zlib
from pathlib import Path

import duckdb
from isal import igzip, isal_zlib

from core.db.sqltext import statement
from core.errors import UploadError
from core.formats._stream import MemoryFile, NotClean, NotContiguous, interleaved, positioned, run_batches, run_chunks
from core.formats._text import GZIP_MAGIC, max_line_bytes, max_text_bytes, screen, too_big, too_long_line
from core.formats._tolerant import TolerantRun, fill
from core.formats._fast import run_format
from core.formats.metadata import leading_header
from core.formats.runs import ParsedRun, build_run

__all__ = ["RunSource", "NotClean", "NotContiguous", "PIECE_BYTES", "TOLERANT_BYTES", "HEADER_BYTES", "WHOLE_MAX_BYTES",
           "BIG_QRELS_BYTES", "QRELS_PIECES_MIN_BYTES", "QRELS_PIECE_BYTES", "pieces_min_bytes"]

PIECE_BYTES = 64 << 20             # text read (or gunzipped) at a time, then cut to whole lines or topics
TOLERANT_BYTES = 32 << 20          # text parsed at a time into the DuckDB table (tolerant parser: ~8x it)
HEADER_BYTES = 1 << 20             # text searched for the ir_metadata header, and screened first
WHOLE_MAX_BYTES = 256 << 20        # evaluate reads a smaller run not in topic order whole; never a larger one
BIG_QRELS_BYTES = 32 << 20         # qrels this slow to parse: evaluate parses a mid-sized run beside them
QRELS_PIECES_MIN_BYTES = 64 << 20  # a qrels text this long that the column reader declines is parsed by the
QRELS_PIECE_BYTES = 32 << 20       # tolerant parser in pieces of whole lines of this size (qrels.py)
_READ_ERRORS = (OSError, EOFError, zlib.error, isal_zlib.error)


def pieces_min_bytes() -> int:
    """Run text of at least this many bytes is read in pieces: $RANKBOARD_STREAM_MIN_MB megabytes, default 32. Both
    sinks read such a run in pieces when it is clean and written topic by topic; a load also reads every other run
    of this size in pieces, through the table, for bounded memory."""
    return int(float(os.environ.get("RANKBOARD_STREAM_MIN_MB", "32")) * (1 << 20))


def _as_bytes(source):
    """The bytes of an in-memory source (bytes, or a file object such as a Streamlit UploadedFile), without a copy
    where possible; None for a path."""
    if isinstance(source, (str, Path)):
        return None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return source
    if hasattr(source, "getvalue"):
        return source.getvalue()
    return None


class RunSource:
    """A run file (a path, bytes or a file object) read a piece at a time; see the module docstring."""

    def __init__(self, raw, size: int, gz: bool, file: str, progress=None):
        self.raw, self.size, self.gz, self.file, self.progress = raw, size, gz, file, progress
        self.head = b""                  # the text's first HEADER_BYTES (or more), header included
        self.skip, self.meta, self.fmt = 0, {}, "trec"
        self._live = None                # the blocks after the head, on the first pass (not read twice)
        self.complete = False            # the head holds the whole text

    @classmethod
    def open(cls, source, file: str | None = None, *, progress=None, head_bytes: int | None = None,
             min_bytes: int = 0, probe: bool = False):
        """The source opened, its first `head_bytes` of text read and screened (an over-long line or binary data
        there raises UploadError at once) and its ir_metadata header parsed; None when it cannot be read in pieces
        (no such file, not gzip after all, a header that is not UTF-8): read it whole, and read_run says why.
        A plain file larger than the text limit is refused before it is read, and None is returned without reading
        for a plain one smaller than `min_bytes`. `progress(done, total, what)` hears how much of the file each pass
        has read, and what the pass does (reading, re-reading, measuring, parsing, quoting). `probe`: only the head
        will be looked at (its format, `interleaved`), so it is read `head_bytes` at a time rather than a whole
        PIECE_BYTES block."""
        head_bytes = head_bytes or HEADER_BYTES
        file = file or (Path(source).name if isinstance(source, (str, Path)) else "<upload>")
        data = _as_bytes(source)
        try:
            raw = MemoryFile(data) if data is not None else open(source, "rb")
        except (OSError, TypeError):
            return None
        size = len(raw.view) if data is not None else os.fstat(raw.fileno()).st_size
        gz = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        if not gz and size > max_text_bytes():
            raw.close()
            raise too_big(file, "holds")
        if not gz and size < min_bytes:
            raw.close()
            return None
        src = cls(raw, size, gz, file, progress)
        try:
            blocks = src._read(head_bytes if probe else PIECE_BYTES, "reading")
            head = next(blocks, None) or b""       # the first block as read: when it holds the head, no copy of it
            if len(head) < head_bytes:
                head = bytearray(head)
                while len(head) < head_bytes and (block := next(blocks, None)) is not None:
                    head += block      # (a large bytearray grows in place: no second copy of the head)
                    del block
            src.head, src._live, src.complete = head, blocks, len(head) < head_bytes
            start = bytes(head[:HEADER_BYTES])
            screen(start, file)        # binary data or an over-long line at the start: refused at once
            header = leading_header(start)
        except _READ_ERRORS:
            header = None
        except BaseException:
            src.close()
            raise
        if header is None:
            src.close()
            return None
        src.skip, src.meta = header
        src.fmt = run_format(src.head[src.skip:src.skip + 4096])
        return src

    def close(self) -> None:
        """Close the file and let go of the head (the live pass's generator refers back to this object: without
        this the head would wait for the garbage collector)."""
        if self._live is not None:
            self._live.close()
        self._live, self.head = None, b""
        self.raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def interleaved(self) -> bool:
        """Its first lines visit a topic in two separate blocks: not written topic by topic."""
        return interleaved(self.head[self.skip:self.skip + HEADER_BYTES])

    def _read(self, read_bytes: int, what: str):
        """The text from its first byte, `read_bytes` at a time (gunzipped when gzip), bounded: past the text limit
        the parsers' too_big error; a line longer than the line limit, too_long_line. Raises what the file raises."""
        limit, longest, seen, carry = max_text_bytes(), max_line_bytes(), 0, 0
        for block in self._read_unchecked(read_bytes):
            seen += len(block)
            if seen > limit:
                raise too_big(self.file, "expands to" if self.gz else "holds")
            carry = self._line_check(block, carry, longest, seen - len(block))
            if self.progress is not None:
                self.progress(self.raw.tell(), self.size, what)
            yield block

    def _line_check(self, block: bytes, carry: int, longest: int, offset: int) -> int:
        """Raise too_long_line for a line longer than `longest` ending in or running through `block` (`carry`: the
        bytes of the line that began in the blocks before); the bytes of its last, unfinished line."""
        end = len(block)
        first = block.find(b"\n", 0, max(longest - carry + 1, 0))
        if first < 0:
            if carry + end > longest:
                self._too_long(offset - carry)
            return carry + end
        pos = first + 1
        while end - pos > longest:
            nl = block.rfind(b"\n", pos, pos + longest + 1)
            if nl < 0:
                self._too_long(offset + pos)
            pos = nl + 1
        return end - block.rfind(b"\n", pos - 1) - 1

    def _too_long(self, start: int) -> None:
        """The error for the line that starts at text offset `start`: its number counted in the text once more (the
        error path only)."""
        lines, seen, quote = 1, 0, b""
        try:
            for block in self._read_unchecked():
                if seen + len(block) > start:
                    if seen == 0:       # binary data in the line is the likelier cause: screen names it first
                        screen(block[:start + max_line_bytes() + 1], self.file)
                    lines += block.count(b"\n", 0, start - seen)
                    quote = block[start - seen:start - seen + 80]
                    break
                lines += block.count(b"\n")
                seen += len(block)
        except _READ_ERRORS:
            pass
        raise too_long_line(self.file, lines, quote)

    def _read_unchecked(self, read_bytes: int = PIECE_BYTES):
        """The text from its first byte, `read_bytes` at a time (gunzipped when gzip), with no limit."""
        self.raw.seek(0)
        reader = igzip.GzipFile(fileobj=self.raw) if self.gz else self.raw
        while block := reader.read(read_bytes):
            yield block

    def blocks(self, read_bytes: int | None = None, what: str = "reading", *, header: bool = False):
        """The text after the ir_metadata header (with it, when `header`), a block at a time, bounded as `_read`.
        The first pass goes on from the head already read (in blocks of PIECE_BYTES); later passes read the file once
        more."""
        read_bytes = read_bytes or PIECE_BYTES
        if self._live is not None and not header and read_bytes == PIECE_BYTES:
            live, self._live = self._live, None
            head, self.head = self.head, self.head[:HEADER_BYTES]
            for start in range(self.skip, len(head), read_bytes):
                yield head if start == 0 and len(head) <= read_bytes else head[start:start + read_bytes]
            del head
            yield from live
            return
        again = self._live is None       # a file read once already (its head pass is over, or never taken)
        self._live = None
        skip = 0 if header else self.skip
        for block in self._read(read_bytes, "re-reading" if what == "reading" and again else what):
            if skip >= len(block):
                skip -= len(block)
                continue
            yield block[skip:] if skip else block
            skip = 0

    def batches(self, read_bytes: int | None = None, max_topic_bytes: int | None = None):
        """(qid, docno, score) and tags of each piece of whole topics of a clean run written topic by topic; raises
        NotClean (NotContiguous when its topics are not written one after another) for any other run."""
        try:
            yield from run_batches(self.blocks(read_bytes), max_topic_bytes=max_topic_bytes, fmt=self.fmt)
        except _READ_ERRORS:
            raise NotClean() from None

    def fill(self, con, table: str, *, clean: bool = True) -> ParsedRun | None:
        """Every row of the run into a new temporary DuckDB table `table` (pos, qid, docno, score) on `con`, pos
        ordering the rows as the file does; its ParsedRun without rows (tag, metadata, warnings). A clean run is
        read by the column reader (unless `clean` is false: it is known not to be); any other by the tolerant
        parser, which raises every problem (UploadError) as read_run would. A gzip text is first read to its end
        without parsing, so one over the text limit is refused before a parser reads it. None for a file that
        parser reads differently (a CSV or TSV with a header line, Parquet, UTF-16: read it whole) or when DuckDB
        fails (e.g. the disk is full)."""
        try:
            if clean:
                try:
                    got = fill(con, table, positioned(run_chunks(self.blocks(TOLERANT_BYTES), fmt=self.fmt)))
                except NotClean:
                    got = None
                if got is not None:
                    return build_run(None, got[0], None, self.meta, self.fmt)
                con.execute(statement("DROP TABLE IF EXISTS {t}", t=table)).fetchall()
            if self.gz:
                for _ in self.blocks(what="measuring"):
                    pass
            tolerant = TolerantRun(self.file, again=lambda: self.blocks(what="quoting", header=True))
            fill(con, table, tolerant.tables(self.blocks(TOLERANT_BYTES, "parsing", header=True)), tolerant)
            return tolerant.finish()
        except UploadError:
            raise
        except (NotClean, duckdb.Error, *_READ_ERRORS):
            return None
