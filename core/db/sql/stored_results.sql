-- Cached per-query values (run name, qid, measure, value) of the (run_id, measure, name) pairs in {pairs} (qrels set $q, options key $o), in (measure position in $ms, run name, qid) order: stage 2's order.
SELECT p.name AS run, x.qid, x.measure, x.value
FROM results x JOIN {pairs} p ON p.run_id = x.run_id AND p.measure = x.measure
WHERE x.qrels_id = $q AND x.options = $o
ORDER BY list_position($ms, x.measure), p.name, x.qid
