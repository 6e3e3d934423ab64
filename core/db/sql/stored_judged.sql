-- The judged retrieved documents of stored runs $runs under qrels set $q (canonical rank, any grade), by ranking index g of {groups} (stored_groups.sql).
SELECT g.g, j.rank, j.rel
FROM judged_rows j JOIN {groups} g ON g.run_id = j.run_id AND g.qid = j.qid
WHERE j.qrels_id = $q AND list_contains($runs, j.run_id)
