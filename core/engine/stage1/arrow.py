"""Stage 1 for one run held as an Arrow table, without a SQL sort: DuckDB only joins the run to the qrels (a hash
join that returns the row numbers of the ~6% of lines that are judged), and `order.canonical_ranks` ranks just
those rows."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.db.sqltext import ident
from core.engine.stage1.order import canonical_ranks, topic_codes
from core.engine.stage1.tables import qrels_summary
from core.engine.types import Rankings


def arrow_rankings(con, run: pa.Table, qrels_table: str, run_name: str, summary=None, *,
                   overlap: bool = True) -> Rankings:
    """`Rankings` of one run: `run` has columns qid, docno (strings, no docno twice in a topic) and score
    (float64); `qrels_table` is a DuckDB table (qid, docno, rel) on `con`; `summary` its `qrels_summary`.
    `overlap`: rank on a second thread during the join (a caller already using both cores says False)."""
    qt = ident(qrels_table)
    topics, levels = summary or qrels_summary(con, qrels_table)
    n = run.num_rows
    codes, qids = topic_codes(run["qid"]) if n else (np.zeros(0, np.int32), pa.array([], pa.string()))
    rows = pa.table({"i": pa.array(np.arange(n, dtype=np.int64)), "c": pa.array(codes), "docno": run["docno"]})
    score = run["score"].to_numpy() if n else np.zeros(0)
    with ThreadPoolExecutor(1) as pool:
        # every row's rank is computed on a second thread while DuckDB joins (which holds no lock meanwhile), then
        # the judged rows' are taken. Plain equivalent: canonical_ranks(..., rows=i) after the join, which ranks only
        # the tied runs that hold a judged row; tests/engine/test_ranking.py compares the two.
        ranked = pool.submit(canonical_ranks, codes, score, run["docno"]) if overlap else None
        con.register("_rb_arrow_rows", rows)
        con.register("_rb_arrow_codes", pa.table({"qid": qids, "c": pa.array(np.arange(len(qids), dtype=np.int32))}))
        try:
            # the qrels of this run's topics only (a piece of a long run must not hash every topic's judgments),
            # keyed by the run's topic codes, so the big join hashes an integer and the docno
            hit = con.execute("WITH q AS (SELECT k.c, q.docno, q.rel FROM " + qt + " q JOIN _rb_arrow_codes k "
                              "USING (qid)) SELECT t.i, q.rel FROM _rb_arrow_rows t JOIN q ON q.c = t.c AND "
                              "q.docno = t.docno").fetchnumpy()
        finally:
            con.unregister("_rb_arrow_rows")
            con.unregister("_rb_arrow_codes")
        i = np.asarray(hit["i"], dtype=np.int64)
        rel = np.asarray(hit["rel"], dtype=np.int64)
        rank = ranked.result()[i] if overlap else canonical_ranks(codes, score, run["docno"], rows=i)

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


def concat(parts: list[Rankings]) -> Rankings:
    """The rankings of pieces of one run that hold disjoint topics, as one."""
    offsets = np.cumsum([0] + [len(p.groups) for p in parts[:-1]])
    return Rankings(pd.concat([p.groups for p in parts], ignore_index=True), np.concatenate([p.num_ret for p in parts]),
                    np.concatenate([p.g + o for p, o in zip(parts, offsets)]),
                    np.concatenate([p.rank for p in parts]), np.concatenate([p.rel for p in parts]),
                    parts[0].levels, parts[0].runs, parts[0].topics)
