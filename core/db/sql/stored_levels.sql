-- qrels_levels.sql for stored qrels set $q: judged documents per (qid, grade >= 0).
SELECT qid, rel, count(*) AS n FROM qrels WHERE qrels_id = $q AND rel >= 0 GROUP BY qid, rel
