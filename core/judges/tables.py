"""Runs and qrels (DataFrames or Arrow tables) into the DuckDB tables that `core.judges.scores.table_stage1`
reads (part of core/judges/report.py): stacked qrels jq(s, qid, docno, rel) and runs jr(run, qid, docno, rank).

A run's rank is trec_eval's canonical rank, computed by `core.engine.stage1.order.canonical_ranks` in numpy (score
descending, docno descending; the file's rank column ignored). Its plain equivalent is the SQL window
`row_number() OVER (PARTITION BY run, qid ORDER BY score DESC, docno DESC)`, which table_stage1 uses when jr
has no rank column; a test compares the two. Both tables are Arrow, registered with DuckDB (not copied).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from core.engine.stage1.order import canonical_ranks, topic_codes


def _arrow(table, columns) -> pa.Table:
    if isinstance(table, pa.Table):
        return table
    return pa.Table.from_pandas(pd.DataFrame(table)[list(columns)], preserve_index=False)


def stack_qrels(con, reference, judges: list) -> None:
    """Register jq(s, qid, docno, rel) on con: s = 0 the reference, 1..J the judges, in order."""
    parts = []
    for s, table in enumerate([reference] + list(judges)):
        t = _arrow(table, ("qid", "docno", "rel"))
        parts.append(pa.table({"s": pa.array(np.full(t.num_rows, s, np.int32)), "qid": t["qid"].cast(pa.string()),
                               "docno": t["docno"].cast(pa.string()), "rel": t["rel"].cast(pa.int32())}))
    con.register("jq", pa.concat_tables(parts))


def runs_table(con, runs: list, *, ranked: bool = True) -> None:
    """Register jr(run, qid, docno[, rank] | score) on con: run = index into `runs` (tables of qid, docno, score).
    With `ranked`, the canonical rank replaces the score (computed here, per run, in numpy)."""
    parts = []
    for i, table in enumerate(runs):
        t = _arrow(table, ("qid", "docno", "score"))
        cols = {"run": pa.array(np.full(t.num_rows, i, np.int32)), "qid": t["qid"].cast(pa.string()),
                "docno": t["docno"].cast(pa.string())}
        score = t["score"].cast(pa.float64())
        if ranked:
            codes = topic_codes(cols["qid"])[0]
            cols["rank"] = pa.array(canonical_ranks(codes, score.to_numpy(), cols["docno"]).astype(np.int32))
        else:
            cols["score"] = score
        parts.append(pa.table(cols))
    empty = {"run": pa.array([], pa.int32()), "qid": pa.array([], pa.string()), "docno": pa.array([], pa.string()),
             ("rank" if ranked else "score"): pa.array([], pa.int32() if ranked else pa.float64())}
    con.register("jr", pa.concat_tables(parts) if parts else pa.table(empty))
