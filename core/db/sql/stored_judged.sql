-- The judged retrieved documents of stored runs $runs under qrels set $q (canonical rank, any grade), with the index g of their ranking as stored_groups.sql numbers them.
WITH g AS (
    SELECT run_id, qid, CAST(row_number() OVER (ORDER BY run_id, qid) - 1 AS BIGINT) AS g
    FROM run_topics
    WHERE list_contains($runs, run_id) AND qid IN (SELECT qid FROM qrels WHERE qrels_id = $q)
)
SELECT g.g, j.rank, j.rel
FROM judged_rows j JOIN g ON g.run_id = j.run_id AND g.qid = j.qid
WHERE j.qrels_id = $q AND list_contains($runs, j.run_id)
