"""A large clean run whose topics are not written one after another (sorted by docno, shuffled, or one topic too
large for a piece), ranked in DuckDB, which spills to disk: the counterpart of core/ingest_prepare.py's pieces
for such files.

The file's pieces go into a table of a scratch DuckDB database, each row with its position in the file. DuckDB
then checks that no document repeats within a topic (a run that repeats one is left to the whole-file parser,
which names the lines), numbers the topics in the order they first appear (as core.ingest_prepare._ranked does),
ranks each topic in trec_eval's order (core.stage1.order.rank_sql, tested equal to canonical_ranks) and writes the
rows to the temporary Parquet file. Memory: the scratch database's limit (at most 1 GB) plus one piece.
"""
from __future__ import annotations

import shutil
import tempfile

import duckdb
import numpy as np
import pyarrow as pa

from core.duck import scratch
from core.formats._fast import unique
from core.formats._stream import NotClean, run_chunks
from core.stage1.order import rank_sql

SCRATCH_BYTES = 1 << 30      # DuckDB's memory limit here at most (it spills beyond), so a load stays near 2 GB
TOPICS = """CREATE TABLE t AS SELECT qid, CAST(count(*) AS INTEGER) AS n,
    CAST(row_number() OVER (ORDER BY min(pos)) - 1 AS INTEGER) AS topic FROM r GROUP BY qid"""
ROWS = f"""SELECT t.topic, r.docno, r.score, CAST({rank_sql("r.qid")} AS INTEGER) AS rank
    FROM r JOIN t ON t.qid = r.qid"""


def spill(blocks, path: str, folder: str, size: int, **reading) -> tuple[list, pa.Table, int] | None:
    """(tags of each piece, topics: qid, n, topic; rows) of the clean run whose text `blocks` yields, its rows
    (topic, docno, score, rank) written to the Parquet file `path`; None when the run is not clean or repeats a
    document. `size`: the file's size (for the scratch database's memory limit); `reading`: run_chunks' keywords.
    Slower than the pieces (the file is read twice, and every row sorted): 37 s against 22 s for the whole-file
    parser on a 4.9M-line shuffled run at load 15 (benchmarks/RESULTS.md), for bounded memory."""
    tmp = tempfile.mkdtemp(prefix="rankboard-spill-", dir=folder)
    con = scratch(tmp, min(size, SCRATCH_BYTES // 3))      # memory limit 3x size, between 500 MB and 1 GB
    try:
        con.execute("CREATE TABLE r (pos BIGINT, qid VARCHAR, docno VARCHAR, score DOUBLE)").fetchall()
        tags, n = [], 0
        for part, part_tags in run_chunks(None, blocks=blocks, **reading):
            if not unique(part, ["qid", "docno"]):     # a repeat within one piece: decline now, not after the file
                return None
            tags.append(part_tags)
            con.register("rb_part", part.append_column("pos", pa.array(np.arange(n, n + part.num_rows))))
            con.execute("INSERT INTO r SELECT pos, qid, docno, score FROM rb_part").fetchall()
            con.unregister("rb_part")
            n += part.num_rows
            del part
        if not n or con.execute("SELECT count(*) FROM (SELECT DISTINCT qid, docno FROM r)").fetchall()[0][0] != n:
            return None
        con.execute(TOPICS).fetchall()
        con.sql(ROWS).write_parquet(path)
        return tags, con.sql("SELECT qid, n, topic FROM t ORDER BY topic").to_arrow_table(), n
    except (NotClean, duckdb.Error):      # not clean, or DuckDB could not (e.g. the disk is full): read it whole
        return None
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
