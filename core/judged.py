"""Stage 1 for a run held as an Arrow table: the judged retrieved rows and their trec_eval ranks, without SQL sorts.

The SQL stage (core/sql/judged_rows.sql) ranks every line with a window sort over (qid, score, docno), which
is most of the time of an evaluation. Here DuckDB only joins the run to the qrels (a hash join that returns
the row numbers of the ~6% of lines that are judged), and `core.ranking` ranks just those rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.ranking import canonical_ranks, topic_codes
from core.sqltext import ident


def arrow_rankings(con, run: pa.Table, qrels_table: str, run_name: str):
    """`Rankings` of one run: `run` has columns qid, docno (strings) and score (float64), with no (qid, docno)
    repeated; `qrels_table` is a DuckDB table (qid, docno, rel) on `con`."""
    from core.evaluate import Rankings, sql

    qt = ident(qrels_table)
    topics = [r[0] for r in con.execute("SELECT DISTINCT qid FROM " + qt + " ORDER BY qid").fetchall()]
    levels = con.execute(sql("qrels_levels", qrels_table=qt)).fetchdf()
    n = run.num_rows
    codes, qids = topic_codes(run["qid"]) if n else (np.zeros(0, np.int32), pa.array([], pa.string()))
    rows = pa.table({"i": pa.array(np.arange(n, dtype=np.int64)), "qid": run["qid"], "docno": run["docno"]})
    con.register("_rb_arrow_rows", rows)
    try:
        hit = con.execute("SELECT t.i, q.rel FROM _rb_arrow_rows t JOIN " + qt +
                          " q ON q.qid = t.qid AND q.docno = t.docno").fetchnumpy()
    finally:
        con.unregister("_rb_arrow_rows")
    i = np.asarray(hit["i"], dtype=np.int64)
    rel = np.asarray(hit["rel"], dtype=np.int64)
    score = run["score"].to_numpy() if n else np.zeros(0)
    rank = canonical_ranks(codes, score, run["docno"], rows=i)

    counts = np.bincount(codes, minlength=len(qids))
    in_qrels = pc.is_in(qids, value_set=pa.array(topics, pa.string())).to_numpy(zero_copy_only=False)
    present = np.flatnonzero((counts > 0) & in_qrels)
    names = np.asarray(qids.take(pa.array(present)).to_pylist(), dtype=object)
    order = np.argsort(names, kind="stable")
    present, names = present[order], names[order]
    group_of = np.full(len(qids), -1, dtype=np.int64)
    group_of[present] = np.arange(len(present))
    groups = pd.DataFrame({"run": np.full(len(present), run_name, dtype=object), "qid": names})
    return Rankings(groups, counts[present].astype(np.int64), group_of[codes[i]], rank, rel, levels,
                    [run_name], topics)
