"""A run parsed, checked and ranked before the store is taken (`prepare_run`), so a loader holds the store only
for the insert. A run of pieces_min_bytes() of text or more is the store's sink of the one large-file reader
(core.formats.pieces, docs/architecture.md): ranked into a temporary Parquet file, in pieces of whole topics (whose
ranks are those of the whole file) or through a DuckDB table that spills, which the insert reads a row group at a
time; so a load holds bounded memory whatever the file's size. A smaller run is parsed whole by `read_run`. Either
way the store ends up with the same rows, warnings and metadata (tests/store/test_ingest_stream.py compares them).
"""
from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from core.db.scratch import scratch, sweep
from core.engine.stage1.order import canonical_ranks, rank_sql, topic_codes
from core.formats import read_run, source_name
from core.formats import pieces as limits
from core.formats.pieces import NotClean, NotContiguous, RunSource
from core.formats.runs import build_run
from core.store import faults

SCRATCH_BYTES = 1 << 30      # the spilling table's DuckDB memory limit at most, so a load stays near 2 GB
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
    rows, qids, counts = _ranked(parsed.table)
    return PreparedRun(file, parsed, rows, _topics(qids, counts))


def _import_pandas_meanwhile() -> None:
    """DuckDB imports pandas the first time it scans an Arrow table (0.15 s of one core, whatever the table). When
    nothing has imported it yet (a command-line load), import it on a thread while the file is read."""
    if "pandas" not in sys.modules:
        threading.Thread(target=importlib.import_module, args=("pandas",)).start()


def _ranked(table: pa.Table, first_topic: int = 0) -> tuple[pa.Table, pa.Array, np.ndarray]:
    """(rows: topic, docno, score, rank; the distinct qids; rows per qid) of whole topics (a run, or a piece of
    one), the topics numbered from `first_topic` in the order they first appear, each row with its canonical
    trec_eval rank. A function of its own so that the numpy temporaries are freed before the rows are written."""
    if not table.num_rows:
        codes, qids = np.zeros(0, np.int32), pa.array([], pa.string())
    else:
        codes, qids = topic_codes(table["qid"])
    rank = canonical_ranks(codes, table["score"].to_numpy(), table["docno"]).astype(np.int32)
    counts = np.bincount(codes, minlength=len(qids)).astype(np.int32)
    rows = pa.table({"topic": codes + np.int32(first_topic), "docno": table["docno"], "score": table["score"],
                     "rank": rank}, schema=ROWS)
    return rows, qids, counts


def _topics(qids: pa.Array, counts: np.ndarray) -> pa.Table:
    """A run's topics: qid, n (its rows), topic (0, 1, ...)."""
    return pa.table({"qid": qids, "n": counts, "topic": np.arange(len(counts), dtype=np.int32)})


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


def spool_run(source, file: str, *, progress=None):
    """Read a large run in pieces and rank it into a temporary Parquet file: a SpooledRun. Otherwise None (read the
    source whole), or, for a gzip source whose text turned out smaller than pieces_min_bytes(), that text as bytes
    (parse it whole instead of gunzipping it again). Raises what the reader refuses (UploadError: the text or line
    limit, binary data at the start) and what the tolerant parser finds."""
    min_bytes = limits.pieces_min_bytes()
    reader = RunSource.open(source, file, progress=progress, head_bytes=max(min_bytes, limits.PIECE_BYTES),
                            min_bytes=min_bytes)
    if reader is None:
        return None
    with reader:
        if reader.complete and len(reader.head) < min_bytes:
            return reader.head                 # gunzipped whole, and small: the whole-file path parses the text
        return _spool(reader, file)


def _spool(reader: RunSource, file: str) -> SpooledRun | None:
    """Rank the run's rows into a temporary Parquet file: in pieces of whole topics when it is clean and written
    topic by topic, else through the reader's DuckDB table (`_spill`). None (and no file) when the reader declines
    it (a CSV or TSV with a header line, Parquet, UTF-16: the whole-file parser reads those)."""
    folder = str(faults.spool_folder()[0])
    sweep(folder)
    fd, path = tempfile.mkstemp(prefix=f"rankboard-run-{os.getpid()}-", suffix=".parquet", dir=folder)
    os.close(fd)
    got = None
    try:
        try:
            got = _pieces(reader, path)
        except NotContiguous:
            got = _spill(reader, path, folder, clean=True)
        except NotClean:
            got = _spill(reader, path, folder, clean=False)
    finally:
        if got is None:
            Path(path).unlink(missing_ok=True)
    if got is None:
        return None
    parsed, topics, n_rows = got
    spooled = SpooledRun(file, RunInfo(parsed.tag, parsed.metadata, parsed.warnings, parsed.format, n_rows),
                         Path(path), topics)
    spooled._cleanup = weakref.finalize(spooled, Path(path).unlink, missing_ok=True)
    return spooled


def _pieces(reader: RunSource, path: str) -> tuple[object, pa.Table, int] | None:
    """(ParsedRun without rows; topics: qid, n, topic; rows) of a run read in pieces of whole topics, each ranked and
    appended to the Parquet file `path`; None for an empty run. Raises NotClean (NotContiguous) as the reader's
    `batches` does."""
    qids, counts, tags, n_rows, n_topics = [], [], [], 0, 0
    with pq.ParquetWriter(path, ROWS, compression="none", use_dictionary=["topic"]) as writer:
        for batch, batch_tags in reader.batches(max_topic_bytes=4 * limits.PIECE_BYTES):
            tags.append(batch_tags)
            if not batch.num_rows:
                continue
            rows, batch_qids, batch_counts = _ranked(batch, n_topics)
            writer.write_table(rows)
            qids.append(batch_qids)
            counts.append(batch_counts)
            n_topics += len(batch_counts)
            n_rows += batch.num_rows
            del batch, rows
    if not n_rows:
        return None
    topics = _topics(pa.chunked_array(qids, pa.string()).combine_chunks(), np.concatenate(counts))
    return build_run(None, tags, None, reader.meta, reader.fmt), topics, n_rows


# Topics numbered in the order they first appear (as _ranked numbers a whole file's), each ranked in trec_eval's
# order (core.engine.stage1.order.rank_sql, tested equal to canonical_ranks).
TOPICS = """CREATE TABLE t AS SELECT qid, CAST(count(*) AS INTEGER) AS n,
    CAST(row_number() OVER (ORDER BY min(pos)) - 1 AS INTEGER) AS topic FROM r GROUP BY qid"""
SPILLED_ROWS = f"""SELECT t.topic, r.docno, r.score, CAST({rank_sql("r.qid")} AS INTEGER) AS rank
    FROM r JOIN t ON t.qid = r.qid"""


def _spill(reader: RunSource, path: str, folder: str, *, clean: bool):
    """(ParsedRun, topics, rows) of a run in any order, or one the tolerant parser must read: its rows go into the
    reader's DuckDB table (which spills; memory limit at most SCRATCH_BYTES), are ranked there in SQL and written
    to the Parquet file `path`. None when the reader declines it or DuckDB fails (e.g. the disk is full). Slower
    than the pieces (every row sorted), for bounded memory."""
    tmp = tempfile.mkdtemp(prefix=f"rankboard-{os.getpid()}-spill-", dir=folder)
    con = scratch(tmp, min(reader.size, SCRATCH_BYTES // 3))      # memory limit 3x size, between 500 MB and 1 GB
    try:
        parsed = reader.fill(con, "r", clean=clean)
        if parsed is None:
            return None
        con.execute(TOPICS).fetchall()
        con.sql(SPILLED_ROWS).write_parquet(path)
        return parsed, con.sql("SELECT qid, n, topic FROM t ORDER BY topic").to_arrow_table(), \
            con.execute("SELECT count(*) FROM r").fetchall()[0][0]
    except duckdb.Error:
        return None
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
