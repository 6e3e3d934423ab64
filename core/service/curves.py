"""Precision-recall and ROC curves of stored runs (core.analysis.curves over the store's tables)."""
from __future__ import annotations

from contextlib import closing

import pandas as pd

from core.analysis.curves import END_RANK, iprec_measures, pr_curve, with_average
from core.engine.evaluate import EvalOptions
from core.service.evaluate import evaluate_stored, stored_ids


def pr_curve_stored(store, collection, run_ids, *, qrels_id=None, options=None, **kwargs) -> pd.DataFrame:
    result = evaluate_stored(store, collection, run_ids, iprec_measures(), qrels_id=qrels_id,
                             options=options or EvalOptions())
    return pr_curve(result.per_query, **kwargs)


# The points of both ROC queries: (0, 0), the CTE `pts` in rank order, (1, 1), for every (run, topic) of `topics`.
_ROC_POINTS = """
SELECT n.name AS run, p.qid, p.x, p.y FROM (
  SELECT run_id, qid, 0 AS rank, 0.0::DOUBLE AS x, 0.0::DOUBLE AS y FROM topics
  UNION ALL SELECT run_id, qid, rank, x, y FROM pts
  UNION ALL SELECT run_id, qid, $end AS rank, 1.0::DOUBLE, 1.0::DOUBLE FROM topics) p
JOIN runs n ON n.run_id = p.run_id
ORDER BY n.name, p.qid, p.rank
"""


# One ROC point per retrieved relevant or negative document, in canonical rank order, plus the (0, 0)
# and (1, 1) ends of every topic that has positives and negatives. $num_docs NULL = negatives are the
# judged non-relevant documents; else every non-relevant document of a num_docs collection.
_ROC_SQL = """
WITH q AS (SELECT qid, docno, rel FROM qrels WHERE qrels_id = $qrels),
counts AS (SELECT qid, count(*) FILTER (WHERE rel >= $pos) AS P,
                  count(*) FILTER (WHERE rel >= 0 AND rel < $level) AS N FROM q GROUP BY qid),
judged AS (
  SELECT r.run_id, r.qid, r.rank, coalesce(q.rel >= $pos, false) AS tp,
         CASE WHEN $num_docs IS NULL THEN coalesce(q.rel >= 0 AND q.rel < $level, false)
              ELSE NOT coalesce(q.rel >= $pos, false) END AS fp,
         CAST(c.P AS DOUBLE) AS P,
         CAST(CASE WHEN $num_docs IS NULL THEN c.N ELSE $num_docs - c.P END AS DOUBLE) AS N
  FROM run_rows r JOIN counts c ON c.qid = r.qid LEFT JOIN q ON q.qid = r.qid AND q.docno = r.docno
  WHERE list_contains($runs, r.run_id) AND c.P > 0
    AND (CASE WHEN $num_docs IS NULL THEN c.N ELSE $num_docs - c.P END) > 0),
pts AS (
  SELECT run_id, qid, rank, CAST(sum(fp::INTEGER) OVER w AS DOUBLE) / N AS x,
         CAST(sum(tp::INTEGER) OVER w AS DOUBLE) / P AS y
  FROM judged WHERE tp OR fp
  WINDOW w AS (PARTITION BY run_id, qid ORDER BY rank ROWS UNBOUNDED PRECEDING)),
topics AS (SELECT DISTINCT run_id, qid FROM judged)
""" + _ROC_POINTS


# The same curve when negatives are the judged non-relevant documents: only judged documents move it, so it
# reads the store's judged rows (about 6% of a run, with their canonical rank) and each run's topics.
_ROC_JUDGED_SQL = """
WITH counts AS (SELECT qid, count(*) FILTER (WHERE rel >= $pos) AS P,
                       count(*) FILTER (WHERE rel >= 0 AND rel < $level) AS N
                FROM qrels WHERE qrels_id = $qrels GROUP BY qid HAVING P > 0 AND N > 0),
topics AS (SELECT t.run_id, t.qid FROM run_topics t JOIN counts c ON c.qid = t.qid
           WHERE list_contains($runs, t.run_id)),
pts AS (
  SELECT r.run_id, r.qid, r.rank,
         CAST(sum((r.rel >= 0 AND r.rel < $level)::INTEGER) OVER w AS DOUBLE) / c.N AS x,
         CAST(sum((r.rel >= $pos)::INTEGER) OVER w AS DOUBLE) / c.P AS y
  FROM judged_rows r JOIN counts c ON c.qid = r.qid
  WHERE r.qrels_id = $qrels AND list_contains($runs, r.run_id) AND (r.rel >= $pos OR (r.rel >= 0 AND r.rel < $level))
  WINDOW w AS (PARTITION BY r.run_id, r.qid ORDER BY r.rank ROWS UNBOUNDED PRECEDING))
""" + _ROC_POINTS


def roc_curve_stored(store, collection, run_ids, qrels_id=None, *, rel_level: int = 1,
                     num_docs: int | None = None, average: bool = True, per_topic: bool = True) -> pd.DataFrame:
    """`roc_curve` of stored runs (run = the run's name), computed in DuckDB with the canonical rank stored
    at ingest: one query for all runs, no run frames. Without `num_docs` only the judged rows are read;
    with it (every non-relevant document is a negative) all of `run_rows`, joined with `qrels`.
    qrels_id None = the collection's default qrels set."""
    run_ids, qrels_id, _ = stored_ids(store, collection, run_ids, qrels_id)
    params = {"qrels": qrels_id, "pos": max(rel_level, 0), "level": rel_level, "runs": run_ids, "end": END_RANK}
    with closing(store.cursor()) as cur:
        if num_docs is None:
            curve = cur.execute(_ROC_JUDGED_SQL, params).fetchdf()
        else:
            curve = cur.execute(_ROC_SQL, params | {"num_docs": num_docs}).fetchdf()
    curve["qid"] = curve["qid"].astype(str)
    return with_average(curve, average=average, per_topic=per_topic)
