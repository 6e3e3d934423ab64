-- Canonical trec_eval ranking per (run, qid) of the qrels topics, cut at -M, joined to the qrels: every judged retrieved row (any grade) plus the rank-1 row of each ranking, with n = documents retrieved.
WITH ranked AS (
    SELECT {run_expr} AS run, qid, docno,
           {rank_expr} AS rank,
           count(*) OVER (PARTITION BY {partition}) AS n
    FROM {run_table}
    WHERE qid IN (SELECT DISTINCT qid FROM {qrels_table})
)
SELECT r.run, r.qid, r.rank, q.rel, least(r.n, $depth) AS n
FROM ranked r
LEFT JOIN {qrels_table} q ON q.qid = r.qid AND q.docno = r.docno
WHERE r.rank <= $depth AND (q.rel IS NOT NULL OR r.rank = 1)
ORDER BY r.run, r.qid, r.rank
