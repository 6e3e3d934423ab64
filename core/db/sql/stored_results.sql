-- Cached per-query values of stored runs $runs for measures $ms (qrels set $q, options key $o), with each run's name and id, in (run name, measure position m in $ms, qid) order.
SELECT r.name AS run, x.run_id, x.qid, x.measure, x.value, list_position($ms, x.measure) AS m
FROM results x JOIN runs r USING (run_id)
WHERE x.qrels_id = $q AND x.options = $o AND list_contains($runs, x.run_id) AND list_contains($ms, x.measure)
ORDER BY r.name, m, x.qid
