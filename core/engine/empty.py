"""An empty run under -c (complete=True): every qrels topic is evaluated with nothing retrieved, so every
measure is 0 (counts: num_rel as usual), as trec_eval -c and ir_measures do. Without -c an empty run file
is still refused by the parser with its clear message."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd

from core.db.sql import sql
from core.engine.types import Rankings

EMPTY_PROBE_BYTES = 1 << 16      # an empty file (after gzip) is tiny: only files this small are probed


def is_empty_file(path) -> bool:
    """True when `path` is a file holding nothing but white space (gzip-compressed or not)."""
    if not isinstance(path, (str, Path)):
        return False
    try:
        p = Path(path)
        if p.stat().st_size > EMPTY_PROBE_BYTES:
            return False
        data = p.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    return not data.strip()


def empty_rankings(con, qrels_table_sql: str, name: str):
    """Stage 1's output for a run with no rows: no rankings, the qrels' levels and topics (qrels_table_sql is
    an already quoted table name)."""
    topics = [r[0] for r in con.execute("SELECT DISTINCT qid FROM " + qrels_table_sql + " ORDER BY qid").fetchall()]
    levels = con.execute(sql("qrels_levels", qrels_table=qrels_table_sql)).fetchdf()
    none = np.zeros(0, dtype=np.int64)
    groups = pd.DataFrame({"run": pd.Series([], dtype=object), "qid": pd.Series([], dtype=object)})
    return Rankings(groups, none, none, none, none, levels, [name], topics)
