-- Number of judged documents per (qid, grade >= 0) in the qrels: the ideal rankings and R come from here.
SELECT qid, rel, count(*) AS n FROM {qrels_table} WHERE rel >= 0 GROUP BY qid, rel
