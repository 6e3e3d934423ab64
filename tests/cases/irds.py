"""Small datasets registered with ir_datasets' own registry, over files in tests/reference/, so that the real loading
code of `load --dataset` and `evaluate irds:ID` runs on this machine without network. tests/conftest.py points
IR_DATASETS_HOME at a temporary folder before anything imports ir_datasets.

- `rankboard-test/trec`: the qrels of trec_eval_test/qrels.test (topics 301-303), their three TREC topics (records with
  title, description and narrative: the title is the text) and five TREC documents;
- `rankboard-test/trec/tsv`: the same qrels, the topics' titles as `qid<TAB>text` queries (the text field);
- `rankboard-test/queries-only`: the TSV queries and no qrels; `rankboard-test/docs-only`: the documents only;
- `rankboard-test/offline`: qrels that ir_datasets must download from a closed port of this machine (so the download
  fails at once, as it does without network), kept at <IR_DATASETS_HOME>/rankboard-test/offline/qrels;
- `rankboard-test/manual`: qrels that must be put by hand at <IR_DATASETS_HOME>/rankboard-test/manual/qrels.txt;
- `rankboard-test/twice`: qrels that judge a pair twice (and documents with a docno twice:
  `rankboard-test/twice/docs`), written under <IR_DATASETS_HOME>/rankboard-test/twice/ when the datasets are
  registered.
"""
from __future__ import annotations

from tests.cases.reference import reference_file

QRELS = "trec_eval_test/qrels.test.gz"
TOPICS = "irds/topics.301-303.txt.gz"
QUERIES = "irds/queries.301-303.tsv.gz"
DOCS = "irds/docs.trec.gz"
TRECS = "rankboard-test/trec"
MANUAL_MESSAGE = "Copy qrels.txt from the assessors' disk to {path}"


def register() -> str:
    """Register the test datasets (once per process); the ir_datasets home they download into."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecDocs, TrecQrels, TrecQueries, TsvDocs, TsvQueries
    from ir_datasets.util import Download, GzipExtract, LocalDownload, RequestsDownload, home_path

    home = home_path()
    if TRECS in set(ir_datasets.registry):
        return str(home)

    def local(name):
        return GzipExtract(LocalDownload(reference_file(name), mkdir=False))

    levels = {0: "not relevant", 1: "relevant"}
    qrels = TrecQrels(local(QRELS), levels)
    topics = TrecQueries(local(TOPICS), namespace="rankboard-test", lang="en")
    queries = TsvQueries(local(QUERIES), namespace="rankboard-test", lang="en")
    docs = TrecDocs(local(DOCS), parser="text", namespace="rankboard-test", lang="en")
    offline = Download([RequestsDownload("http://127.0.0.1:9/qrels.txt", tries=1)],
                       cache_path=str(home / "rankboard-test" / "offline" / "qrels"))
    manual_path = home / "rankboard-test" / "manual" / "qrels.txt"
    manual = Download([LocalDownload(manual_path, MANUAL_MESSAGE.format(path=manual_path), mkdir=False)])
    twice = home / "rankboard-test" / "twice"
    twice.mkdir(parents=True, exist_ok=True)
    (twice / "qrels.txt").write_text("301 0 d1 1\n301 0 d2 0\n301 0 d1 0\n")
    (twice / "docs.tsv").write_text("d1\tfirst\nd2\tsecond\nd1\tagain\n")
    twice_qrels = TrecQrels(LocalDownload(twice / "qrels.txt"), levels)
    twice_docs = TsvDocs(LocalDownload(twice / "docs.tsv"), namespace="rankboard-test", lang="en")
    for name, parts in [(TRECS, (docs, topics, qrels)), (f"{TRECS}/tsv", (queries, qrels)),
                        ("rankboard-test/queries-only", (queries,)), ("rankboard-test/docs-only", (docs,)),
                        ("rankboard-test/offline", (queries, TrecQrels(offline, levels))),
                        ("rankboard-test/manual", (queries, TrecQrels(manual, levels))),
                        ("rankboard-test/twice", (twice_docs, queries, twice_qrels)),
                        ("rankboard-test/twice/docs", (twice_docs, queries))]:
        ir_datasets.registry.register(name, Dataset(*parts))
    return str(home)
