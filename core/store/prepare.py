"""A run parsed, checked and ranked before the store is taken (`prepare_run`), so a loader holds the store only
for the insert; and large run files read a piece at a time, so a load holds a bounded amount of memory whatever
the file's size.

A run whose text is at least `stream_min_bytes()` (RANKBOARD_STREAM_MIN_MB, default 64), clean (6-column TREC or
3-column MS MARCO, after an optional ir_metadata comment header) and written topic by topic
(core.formats._stream.run_batches), is read in pieces of whole topics; each piece is ranked (its topics
are whole, so its ranks are the canonical ranks of the whole file) and appended to a temporary Parquet file, all
before the store is taken; a clean run whose topics are not contiguous is ranked in a spilling DuckDB table
instead (core/store/spill.py). The store then inserts from that file, which DuckDB reads a row group at a time,
inside the load's one transaction (`core.store.ingest._insert_run`). Everything else (a smaller file, a file that is
not clean) is parsed whole by `read_run`, which reports the problems; either way the store ends up with the same
rows, warnings and metadata (tests/store/test_ingest_stream.py loads files both ways and compares every stored table).
"""
from __future__ import annotations

import importlib
import os
import sys
import tempfile
import threading
import weakref
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from isal import isal_zlib

from core.errors import UploadError
from core.formats import read_run
from core.formats._fast import run_format
from core.formats._stream import (MemoryFile, NotClean, NotContiguous, positioned, run_batches, run_chunks, skip_bytes,
                                  text_blocks)
from core.formats._tolerant import TolerantRun
from core.formats._text import GZIP_MAGIC, max_line_bytes, max_text_bytes, screen, source_name
from core.formats.metadata import leading_header
from core.formats.runs import _build
from core.store.spill import spill
from core.engine.stage1.order import canonical_ranks, topic_codes

CHUNK_BYTES = 1 << 26        # text read (or gunzipped) at a time: a piece, then cut back to whole topics
TOLERANT_BYTES = 32 << 20    # text parsed at a time by the tolerant parser (which holds ~8x its text)
HEAD_BYTES = 64 << 20        # text screened before any parsing, so a wrong file is declined before threads start
ROWS = pa.schema([("topic", pa.int32()), ("docno", pa.string()), ("score", pa.float64()), ("rank", pa.int32())])


@dataclass
class PreparedRun:
    """A run parsed, checked and ranked, ready to insert: the part of a load that needs no store."""
    file: str
    run: object                 # core.formats.ParsedRun
    rows: pa.Table              # topic, docno, score, rank
    topics: pa.Table            # qid, n, topic

    def close(self) -> None:
        """Nothing to let go (SpooledRun's counterpart)."""


def prepare_run(source, *, filename=None, parsed=None, progress=None) -> PreparedRun | SpooledRun:
    """Parse, check and rank a run without the store (raises UploadError): a loader does this before it
    takes its turn on the store, so the store is held only for the insert. A large clean run is ranked into a
    temporary file (a SpooledRun: call `close()` once it is inserted); `progress(done, total, what)` hears how much
    of it has been read, and what the pass does (reading, re-reading, measuring, parsing, quoting)."""
    file = source_name(source, filename)
    _import_pandas_meanwhile()
    if parsed is None:
        got = spool_run(source, file, progress=progress)
        if isinstance(got, SpooledRun):
            return got
        parsed = read_run(source if got is None else got, filename=file)  # the parser checks for repeated documents
    rows, topics = _ranked(parsed.table)
    return PreparedRun(file, parsed, rows, topics)


def _import_pandas_meanwhile() -> None:
    """DuckDB imports pandas the first time it scans an Arrow table (0.15 s of one core, whatever the table). When
    nothing has imported it yet (a command-line load), import it on a thread while the file is read."""
    if "pandas" not in sys.modules:
        threading.Thread(target=importlib.import_module, args=("pandas",)).start()


def _ranked(table: pa.Table) -> tuple[pa.Table, pa.Table]:
    """(the run's rows with their topic number and canonical trec_eval rank: topic, docno, score, rank; its
    topics: qid, n = rows, topic = 0, 1, ...). A function of its own so that the numpy temporaries are freed
    before the rows are written."""
    if not table.num_rows:
        codes, qids = np.zeros(0, np.int32), pa.array([], pa.string())
    else:
        codes, qids = topic_codes(table["qid"])
    rank = canonical_ranks(codes, table["score"].to_numpy(), table["docno"]).astype(np.int32)
    rows = pa.table({"topic": codes, "docno": table["docno"], "score": table["score"], "rank": rank})
    counts = np.bincount(codes, minlength=len(qids)).astype(np.int32)
    return rows, pa.table({"qid": qids, "n": counts, "topic": np.arange(len(qids), dtype=np.int32)})


def stream_min_bytes() -> int:
    """Run text of at least this many bytes is read in pieces: $RANKBOARD_STREAM_MIN_MB megabytes, default 64."""
    return int(float(os.environ.get("RANKBOARD_STREAM_MIN_MB", "64")) * (1 << 20))


@dataclass
class RunInfo:
    """What `add_run` needs of a parsed run besides its rows (core.formats.ParsedRun without the table)."""
    tag: str | None
    metadata: dict
    warnings: list[str]
    format: str
    n_rows: int


@dataclass
class SpooledRun:
    """A run ranked into a temporary Parquet file (topic, docno, score, rank); `topics` (qid, n, topic) as in
    core.store.ingest.PreparedRun. The file is removed by `close()`, or when the object is collected."""
    file: str
    run: RunInfo
    rows: Path
    topics: pa.Table
    _cleanup: weakref.finalize = field(repr=False, default=None)

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _as_bytes(source):
    """The bytes of an in-memory source (bytes, or a file object such as a Streamlit UploadedFile), without a
    copy where possible; None for a path."""
    if isinstance(source, (str, Path)):
        return None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return source
    if hasattr(source, "getvalue"):
        return source.getvalue()
    return None


def _screened(file: str):
    """run_chunks' check: the parsers' screen for binary data and over-long lines; a piece it would refuse makes
    the file unclean, and the whole-file path then reports the problem with its line number in the file."""
    def check(piece: bytes) -> None:
        try:
            screen(piece, file)
        except UploadError:
            raise NotClean() from None
    return check


def spool_run(source, file: str, *, progress=None, min_bytes: int | None = None):
    """Read a large clean run in pieces and rank it into a temporary Parquet file: a SpooledRun. Otherwise None
    (read the source whole), or, for a gzip source whose text turned out smaller than `min_bytes`, that text as
    bytes (parse it whole instead of gunzipping it again). Raises the text limit's UploadError (too_big)."""
    min_bytes = stream_min_bytes() if min_bytes is None else min_bytes
    data = _as_bytes(source)
    try:
        if data is None:
            raw = open(source, "rb")
            size = os.fstat(raw.fileno()).st_size
        else:
            raw = MemoryFile(data)
            size = len(raw.view)
    except (OSError, TypeError):
        return None
    with raw:
        gz = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        if not gz and (size < min_bytes or size > max_text_bytes()):
            return None                        # small, or refused by the whole-file path before it is read
        blocks = text_blocks(raw, gz, size, file, progress, CHUNK_BYTES)
        head, n = [], 0
        try:
            while n < max(min_bytes, HEAD_BYTES) and (block := next(blocks, None)) is not None:
                head.append(block)
                n += len(block)
        except (OSError, EOFError, zlib.error, isal_zlib.error):
            return None                        # the whole-file path says what is wrong with the gzip data
        head = b"".join(head)
        if n < min_bytes:
            return head                        # gunzipped whole, and small: the whole-file path parses the text
        try:
            screen(head, file)                 # binary data or an over-long line at the start: refused at once
        except UploadError:
            return None

        header = leading_header(head)
        if header is None:
            return None                        # a comment header that is not UTF-8: the whole-file path says so
        skip, meta = header

        def text():
            nonlocal head
            first, head = head, None           # let go of the head once run_chunks has taken it
            for start in range(skip, len(first), CHUNK_BYTES):
                yield first[start:start + CHUNK_BYTES]
            del first
            yield from blocks

        def start(read_bytes=CHUNK_BYTES, what="reading"):
            raw.seek(0)
            return text_blocks(raw, gz, size, file, progress, read_bytes, what)

        def again(what="re-reading"):
            return skip_bytes(start(what=what), skip)
        return _spool(text(), file, again, size, drain=gz, fmt=run_format(head[skip:skip + 4096]), meta=meta,
                      start=start)


def _spool(blocks, file: str, again=None, size: int = 0, drain: bool = True, fmt: str = "trec",
           meta: dict | None = None, start=None) -> SpooledRun | None:
    """Rank the run's pieces into a temporary Parquet file; None (and no file) when the run is not clean. When its
    topics are not contiguous, `again()` (the text after the header, once more) goes through a spilling DuckDB
    table instead (core/store/spill.py). A run that is not clean, when `start(read_bytes)` gives its text from
    the first byte, is parsed by the tolerant parser a piece at a time (core/formats/_tolerant.py) into the same
    table; its problems are raised (UploadError) as the whole-file parser would raise them. `drain`: before the
    tolerant parser (or the whole-file one, when the tolerant one declines), read `again()` to the end, so that a
    gzip text over the limit is refused first; a plain file's size was checked against the limit before
    (spool_run). `fmt`: 'trec' or 'msmarco' (core.formats._fast.run_format of the text's start); `meta`: the
    ir_metadata of the comment header that `blocks` leaves out (core.formats.metadata)."""
    folder = os.environ.get("RANKBOARD_SPOOL_DIR") or tempfile.gettempdir()
    _sweep(folder)
    fd, path = tempfile.mkstemp(prefix=f"rankboard-run-{os.getpid()}-", suffix=".parquet", dir=folder)
    os.close(fd)
    reading, got, parsed = {"check": _screened(file), "max_line": max_line_bytes(), "fmt": fmt}, None, None
    try:
        try:
            got = _pieces(blocks, path, reading)
        except NotContiguous:
            if again is not None:
                got = spill(positioned(run_chunks(None, blocks=again(), **reading)), path, folder, size)
        except NotClean:
            pass
        if got is None and again is not None and drain:   # refuse a gzip bomb before a parser reads its text
            for _ in again("measuring"):      # text_blocks raises the text limit's error as it passes it
                pass
        if got is None and start is not None:
            tolerant = TolerantRun(file, again=lambda: start(what="quoting"))
            got = spill(tolerant.tables(start(TOLERANT_BYTES, "parsing")), path, folder, size, tolerant=tolerant)
            if got is not None:
                parsed = tolerant.finish()
    finally:
        if got is None:
            _unlink(path)
    if got is None:
        return None
    tags, topics, n_rows = got
    if parsed is None:
        parsed = _build(None, pa.chunked_array(tags, pa.string()), None, meta or {}, fmt)
    spooled = SpooledRun(file, RunInfo(parsed.tag, parsed.metadata, parsed.warnings, parsed.format, n_rows),
                         Path(path), topics)
    spooled._cleanup = weakref.finalize(spooled, _unlink, path)
    return spooled


def _pieces(blocks, path: str, reading: dict) -> tuple[list, pa.Table, int] | None:
    """(tags of each piece, topics: qid, n, topic; rows) of a run read in pieces of whole topics, each ranked and
    appended to the Parquet file `path`; None for an empty run. Raises NotClean (NotContiguous) as run_batches."""
    qids, counts, tags, n_rows, n_topics = [], [], [], 0, 0
    with pq.ParquetWriter(path, ROWS, compression="none", use_dictionary=["topic"]) as writer:
        for batch, batch_tags in run_batches(None, CHUNK_BYTES, max_topic_bytes=4 * CHUNK_BYTES, blocks=blocks,
                                             **reading):
            tags.append(batch_tags)
            if not batch.num_rows:
                continue
            rows, batch_qids, batch_counts = _ranked_piece(batch, n_topics)
            writer.write_table(rows)
            qids.append(batch_qids)
            counts.append(batch_counts)
            n_topics += len(batch_counts)
            n_rows += batch.num_rows
            del batch, rows
    if not n_rows:
        return None
    counts = np.concatenate(counts)
    return tags, pa.table({"qid": pa.chunked_array(qids, pa.string()).combine_chunks(), "n": counts,
                           "topic": np.arange(len(counts), dtype=np.int32)}), n_rows


def _sweep(folder: str) -> None:
    """Remove the temporary files of loads whose process is gone (killed before it could remove its own)."""
    for old in Path(folder).glob("rankboard-run-*-*.parquet"):
        try:
            os.kill(int(old.name.split("-")[2]), 0)
        except ProcessLookupError:
            _unlink(str(old))
        except (ValueError, OSError):
            pass


def _ranked_piece(batch: pa.Table, first_topic: int) -> tuple[pa.Table, pa.Array, np.ndarray]:
    """(rows: topic, docno, score, rank; the piece's qids; rows per qid) of a piece of whole topics, its topics
    numbered from `first_topic` in the order they first appear (as core.store.ingest._ranked numbers a whole file's)."""
    codes, qids = topic_codes(batch["qid"])
    rank = canonical_ranks(codes, batch["score"].to_numpy(), batch["docno"]).astype(np.int32)
    counts = np.bincount(codes, minlength=len(qids)).astype(np.int32)
    rows = pa.table({"topic": codes + np.int32(first_topic), "docno": batch["docno"], "score": batch["score"], "rank": rank}, schema=ROWS)
    return rows, qids, counts
