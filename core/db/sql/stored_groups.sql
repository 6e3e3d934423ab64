-- The rankings of stored runs $runs on the topics of qrels set $q, in (run_id, qid) order (the caller numbers them g = 0, 1, ...), with n = documents retrieved.
SELECT run_id, qid, n
FROM run_topics
WHERE list_contains($runs, run_id) AND qid IN (SELECT qid FROM qrels WHERE qrels_id = $q)
ORDER BY run_id, qid
