-- Canonical trec_eval ranking per (run, qid) of the qrels topics, cut at -M, joined to the qrels: every judged retrieved row (any grade; one per qrels row when the qrels are stacked by a key column), plus one row per ranking with n = documents retrieved (rank/rel NULL when nothing retrieved is judged).
WITH topics AS (
    SELECT DISTINCT qid FROM {qrels_table}
),
ranked AS (
    SELECT {run_expr} AS run, qid, docno, {rank_expr} AS rank
    FROM {run_table}
    WHERE qid IN (SELECT qid FROM topics)
),
judged AS (
    SELECT r.run, r.qid, r.rank, q.rel, {key} AS key
    FROM ranked r JOIN {qrels_table} q ON q.qid = r.qid AND q.docno = r.docno
    WHERE r.rank <= $depth
),
sizes AS (
    SELECT {run_expr} AS run, qid, least(count(*), $depth) AS n
    FROM {run_table}
    WHERE qid IN (SELECT qid FROM topics)
    GROUP BY ALL
)
SELECT s.run, s.qid, j.rank, j.rel, j.key, s.n
FROM sizes s LEFT JOIN judged j ON j.run = s.run AND j.qid = s.qid
ORDER BY s.run, s.qid, j.rank, j.key
