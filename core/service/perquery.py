"""Per-query analysis of two stored runs (core.analysis.perquery), joined in the store: neither run's millions
of rows are read into Python."""
from __future__ import annotations

from contextlib import closing

import pandas as pd

from core.analysis.perquery import differences, ints, most_different, objects, query_deltas
from core.store.ingest import collection_id, default_qrels_id


SIDE_SQL = """
SELECT a.rank, a.docno, a.score, q.rel AS grade, b.rank AS other_rank, d.text
FROM run_rows a
LEFT JOIN (SELECT docno, max(rel) AS rel FROM qrels WHERE qrels_id = ? AND qid = ? GROUP BY docno) q USING (docno)
LEFT JOIN (SELECT docno, rank FROM run_rows WHERE run_id = ? AND qid = ?) b USING (docno)
LEFT JOIN (SELECT docno, any_value(text) AS text FROM documents WHERE collection_id = ? GROUP BY docno) d
       USING (docno)
WHERE a.run_id = ? AND a.qid = ? AND a.rank <= ?
ORDER BY a.rank
"""


def side_by_side_stored(store, collection, run_id_a: int, run_id_b: int, qid: str, *, qrels_id=None,
                        depth: int = 1000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """side_by_side from the store, in SQL: the document text joins in when documents are loaded."""
    with closing(store.cursor()) as cur:
        cid = collection_id(cur, collection)
        qrels_id = qrels_id if qrels_id is not None else default_qrels_id(cur, cid)
        frames = []
        for mine, theirs in ((run_id_a, run_id_b), (run_id_b, run_id_a)):
            df = cur.execute(SIDE_SQL, [qrels_id, str(qid), theirs, str(qid), cid, mine, str(qid), depth]).df()
            df["grade"], df["other_rank"], df["text"] = ints(df["grade"]), ints(df["other_rank"]), objects(df["text"])
            frames.append(df)
        return frames[0], frames[1]


# The two runs' top-depth lists, joined in the store (the union _union_ranks builds from run frames).
UNION_SQL = """
SELECT coalesce(a.qid, b.qid) AS qid, coalesce(a.docno, b.docno) AS docno,
       CAST(a.rank AS DOUBLE) AS rank_a, CAST(b.rank AS DOUBLE) AS rank_b
FROM (SELECT qid, docno, rank FROM run_rows WHERE run_id = $a AND rank <= $depth) a
FULL OUTER JOIN (SELECT qid, docno, rank FROM run_rows WHERE run_id = $b AND rank <= $depth) b
  ON a.qid = b.qid AND a.docno = b.docno
ORDER BY 1, 2
"""


def how_different_stored(store, per_query, run_id_a: int, run_id_b: int, run_a: str, run_b: str, measure: str, *,
                         topics=None, depth: int = 100, p: float = 0.9) -> pd.DataFrame:
    """how_different for two stored runs: the union of their top-depth lists is joined in the store from the
    canonical ranks, so neither run's millions of rows are read into Python."""
    with closing(store.cursor()) as cur:
        both = cur.execute(UNION_SQL, {"a": int(run_id_a), "b": int(run_id_b), "depth": int(depth)}).df()
    both["qid"] = both["qid"].astype(str)
    return most_different(query_deltas(per_query, run_a, run_b, measure, topics=topics), differences(both, p))


