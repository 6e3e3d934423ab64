"""Golden cases for trec_eval's preference measures (-R prefs / -R qrels_prefs): (evaluate arguments ending with the
qrels and the run, expected output). The files are in tests/reference/trec_eval_test/ (gzip-compressed). "TE/"
outputs are trec_eval's own test files; the others, in reference_trec_eval_10.0/, were made with trec_eval 10.0
built from source (tests/reference/README.md). tests/engine/test_measures_prefs.py runs them;
tests/measures/test_registry.py counts the families they cover (the -m argument)."""
from __future__ import annotations

PREFS_GOLDEN = [
    (("-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"), "TE/out.test.prefs"),
    (("-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"), "TE/out.test.qrels_prefs"),
    (("-m", "prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"), "out.prefs.official_nick"),
    (("-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.rel_level", "results.test"), "out.qrels_prefs.rel_level"),
    (("-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.123", "results.test"), "out.qrels_prefs.123"),
    (("-m", "all_prefs", "-q", "-c", "-M", "100", "-R", "qrels_prefs", "qrels.test", "results.trunc"),
     "out.qrels_prefs.trunc_cM100"),
    (("-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.comment.test", "results.comment.test"),
     "out.qrels_prefs.comment"),
]
