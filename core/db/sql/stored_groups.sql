-- The rankings of stored runs $runs on the topics of qrels set $q, in (run_id, qid) order, numbered g = 0, 1, ... in that order, with n = documents retrieved.
SELECT run_id, qid, n, CAST(row_number() OVER (ORDER BY run_id, qid) - 1 AS BIGINT) AS g
FROM run_topics
WHERE list_contains($runs, run_id) AND qid IN (SELECT qid FROM qrels WHERE qrels_id = $q)
ORDER BY run_id, qid
