"""A large run ranked in DuckDB, which spills to disk: a clean run whose topics are not written one after another
(sorted by docno, shuffled, or one topic too large for a piece), the counterpart of core/store/prepare.py's
pieces for such files; and any run the column reader declines, parsed a piece at a time by the tolerant parser
(core/formats/_tolerant.py).

The file's pieces go into a table of a scratch DuckDB database, each row with its position in the file. DuckDB
then checks that no document repeats within a topic (a clean run that repeats one is left to the tolerant parser,
which names the lines), numbers the topics in the order they first appear (as core.store.prepare._ranked does),
ranks each topic in trec_eval's order (core.engine.stage1.order.rank_sql, tested equal to canonical_ranks) and writes the
rows to the temporary Parquet file. Memory: the scratch database's limit (at most 1 GB) plus one piece.
"""
from __future__ import annotations

import shutil
import tempfile

import duckdb
import pyarrow as pa

from core.db.scratch import scratch
from core.formats._stream import NotClean
from core.formats._tolerant import fill
from core.engine.stage1.order import rank_sql

SCRATCH_BYTES = 1 << 30      # DuckDB's memory limit here at most (it spills beyond), so a load stays near 2 GB
TOPICS = """CREATE TABLE t AS SELECT qid, CAST(count(*) AS INTEGER) AS n,
    CAST(row_number() OVER (ORDER BY min(pos)) - 1 AS INTEGER) AS topic FROM r GROUP BY qid"""
ROWS = f"""SELECT t.topic, r.docno, r.score, CAST({rank_sql("r.qid")} AS INTEGER) AS rank
    FROM r JOIN t ON t.qid = r.qid"""


def spill(parts, path: str, folder: str, size: int, tolerant=None) -> tuple[list, pa.Table, int] | None:
    """(tags of each piece, topics: qid, n, topic; rows) of a run whose pieces `parts` yields as (pos, qid, docno,
    score table; tags), pos ordering the rows as the file does; its rows (topic, docno, score, rank) are written to
    the Parquet file `path`. `size`: the file's size (for the scratch database's memory limit).
    Without `tolerant`, the pieces are a clean run's (positioned(run_chunks(...))), and the result is None when a
    document repeats within a topic (the tolerant parser then names the lines) or DuckDB fails. With `tolerant` (a
    core.formats._tolerant.TolerantRun whose `tables` these are, pos its line numbers), a repeated document is
    reported to it, and its `raise_if_any()` raises every problem before anything is ranked.
    Slower than the pieces (every row sorted): 37 s against 22 s for the whole-file parser on a 4.9M-line
    shuffled run at load 15 (benchmarks/RESULTS.md), for bounded memory."""
    tmp = tempfile.mkdtemp(prefix="rankboard-spill-", dir=folder)
    con = scratch(tmp, min(size, SCRATCH_BYTES // 3))      # memory limit 3x size, between 500 MB and 1 GB
    try:
        got = fill(con, "r", parts, tolerant)
        if got is None:
            return None
        con.execute(TOPICS).fetchall()
        con.sql(ROWS).write_parquet(path)
        return got[0], con.sql("SELECT qid, n, topic FROM t ORDER BY topic").to_arrow_table(), got[1]
    except (NotClean, duckdb.Error):      # not clean, or DuckDB could not (e.g. the disk is full): read it whole
        return None
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
