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


def qrels_summary(con, qrels_table: str) -> tuple[list[str], pd.DataFrame]:
    """(the qrels topics, sorted; judged documents per topic and grade >= 0) of DuckDB table `qrels_table`."""
    from core.evaluate import sql

    qt = ident(qrels_table)
    topics = [r[0] for r in con.execute("SELECT DISTINCT qid FROM " + qt + " ORDER BY qid").fetchall()]
    return topics, con.execute(sql("qrels_levels", qrels_table=qt)).fetchdf()


class Repeated(Exception):
    """A document repeats within a topic of the run (the parser's exact error needs a second, checked read)."""


def arrow_rankings(con, run: pa.Table, qrels_table: str, run_name: str, summary=None, check_duplicates=False):
    """`Rankings` of one run: `run` has columns qid, docno (strings) and score (float64); `qrels_table` is a
    DuckDB table (qid, docno, rel) on `con`; `summary` its `qrels_summary`. With `check_duplicates`, raise
    Repeated when a (qid, docno) repeats (checked on the topic codes, cheaper than on the qid strings)."""
    from core.evaluate import Rankings
    from core.formats._fast import no_repeats

    qt = ident(qrels_table)
    topics, levels = summary or qrels_summary(con, qrels_table)
    n = run.num_rows
    codes, qids = topic_codes(run["qid"]) if n else (np.zeros(0, np.int32), pa.array([], pa.string()))
    rows = pa.table({"i": pa.array(np.arange(n, dtype=np.int64)), "c": pa.array(codes), "docno": run["docno"]})
    if check_duplicates and not no_repeats(codes, run["docno"], con):
        raise Repeated()
    con.register("_rb_arrow_rows", rows)
    con.register("_rb_arrow_codes", pa.table({"qid": qids, "c": pa.array(np.arange(len(qids), dtype=np.int32))}))
    try:
        # the qrels of this run's topics only (a piece of a long run must not hash every topic's judgments),
        # keyed by the run's topic codes, so the big join hashes an integer and the docno
        hit = con.execute("WITH q AS (SELECT k.c, q.docno, q.rel FROM " + qt + " q JOIN _rb_arrow_codes k USING (qid)) "
                          "SELECT t.i, q.rel FROM _rb_arrow_rows t JOIN q ON q.c = t.c AND q.docno = t.docno"
                          ).fetchnumpy()
    finally:
        con.unregister("_rb_arrow_rows")
        con.unregister("_rb_arrow_codes")
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


def stream_rankings(con, path, qrels_table: str, chunk_bytes: int = 1 << 26):
    """`Rankings` of a large clean run file, read a piece at a time, so memory stays bounded however long the file.

    Runs are written topic by topic, so each piece is evaluated once its topics are complete (the last topic of
    a piece waits for the next one). Returns (rankings, tags), or None when the file is not clean, a topic's
    lines are not contiguous, or a document repeats within a topic: the caller then takes the general path.
    The rankings' run is named "" (the caller names it from the tags)."""
    from core.evaluate import Rankings
    from core.formats._fast import NotClean, run_chunks

    parts, tags, done, pending = [], [], set(), None
    summary = qrels_summary(con, qrels_table)

    def take(batch: pa.Table) -> bool:
        """Rank a batch of whole topics (a topic seen in an earlier batch means its lines are not together)."""
        names = pc.unique(batch["qid"]).to_pylist()
        if done.intersection(names):
            return False
        done.update(names)
        try:
            parts.append(arrow_rankings(con, batch, qrels_table, "", summary, check_duplicates=True))
        except Repeated:
            return False
        return True

    try:
        for piece, piece_tags in run_chunks(path, chunk_bytes):
            tags.append(piece_tags)
            if pending is not None:
                piece = pa.concat_tables([pending, piece])
            last = piece["qid"][piece.num_rows - 1]
            tail = pc.equal(piece["qid"], last).to_numpy(zero_copy_only=False)
            start = piece.num_rows - int(np.argmin(tail[::-1])) if not tail.all() else 0
            pending = piece.slice(start)
            if start and not take(piece.slice(0, start)):
                return None
        if pending is not None and pending.num_rows and not take(pending):
            return None
    except NotClean:
        return None
    if not parts:
        return None
    offsets = np.cumsum([0] + [len(p.groups) for p in parts[:-1]])
    groups = pd.concat([p.groups for p in parts], ignore_index=True)
    return Rankings(groups, np.concatenate([p.num_ret for p in parts]),
                    np.concatenate([p.g + o for p, o in zip(parts, offsets)]),
                    np.concatenate([p.rank for p in parts]), np.concatenate([p.rel for p in parts]),
                    parts[0].levels, [""], parts[0].topics), pa.chunked_array(tags, pa.string())
