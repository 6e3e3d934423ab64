"""Random bytes and random line mutations: the parsers raise UploadError or succeed, never anything else."""
from __future__ import annotations

import functools
import gzip
import io
import os

import pyarrow as pa
import pyarrow.parquet as pq

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import UploadError
from core.formats import read_documents, read_qrels, read_run, read_scores, read_topics

PARSERS = [read_run, read_qrels, functools.partial(read_qrels, judgment_groups=True), read_topics, read_documents,
           read_scores]
SEED_RUN = ("# ir_metadata.start\n# tag: x\n# ir_metadata.end\n"
            "301 Q0 FT-1 1 12.5 tag\n301 Q0 FT-2 2 -1e-3 tag\n302\tQ0\tLA#3\t1\t3\ttag\n").splitlines()
SEED_QRELS = "301 0 FT-1 1\n301 0 FT-2 0\n302 0 LA#3 -1\n".splitlines()
SEED_TOPICS = "<top>\n<num> Number: 301\n<title> Crime\n<desc> Description:\nabc\n</top>\n".splitlines()
SEED_TSV = "301\tinternational crime\n302\tpolio\n".splitlines()
SEED_CSV = "qid,docno,score\n301,a,1.5\n301,b,0.5\n".splitlines()
SEED_JSONL = ['{"qid": "1", "text": "a"}', '{"qid": "2", "text": "b"}']
SEED_DOCS = "<DOC>\n<DOCNO> LA1 </DOCNO>\n<TEXT>some news</TEXT>\n</DOC>\n".splitlines()
SEED_SCORES = "map\t301\t0.25\nP_10\t301\t0.5\nmap\tall\t0.25\nrunid\tall\tbm25\n".splitlines()
SEED_LONG = "run,qid,measure,value\na,301,x,0.5\nb,301,x,1\n".splitlines()
SEED_RANX = ['{"ndcg@10": {"301": 0.5, "302": 1}}']
SEED_IRM = ['{"query_id": "301", "measure": "AP", "value": 0.5}', '{"measure": "AP", "value": 0.5}']
SEEDS = [SEED_RUN, SEED_QRELS, SEED_TOPICS, SEED_TSV, SEED_CSV, SEED_JSONL, SEED_DOCS, SEED_SCORES, SEED_LONG, SEED_RANX,
         SEED_IRM]
TOKENS = ["", " ", "\t", "#", "Q0", "301", "1.5", "-2", "1e999", "nan", "x" * 300, "\x00", "\ufeff", "<top>",
          "</top>", "<num>", "<title>", "<DOC>", "<DOCNO>", "</DOCNO>", "{", "}", '"', ",", "\r", "é", "{\"qid\": 1}", "PAR1"]


def check(data: bytes) -> None:
    for parse in PARSERS:
        try:
            parse(data, filename="fuzz")
        except UploadError as exc:
            assert exc.problems and str(exc)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_only_raise_upload_error(data):
    check(data)
    check(gzip.compress(data))


@st.composite
def mutated(draw):
    lines = list(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "replace_field", "truncate", "swap"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            lines.append(draw(st.sampled_from(TOKENS)))
        elif op == "delete":
            lines.pop(i)
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "insert":
            lines.insert(i, " ".join(draw(st.lists(st.sampled_from(TOKENS), max_size=7))))
        elif op == "replace_field":
            fields = lines[i].split() or [""]
            fields[draw(st.integers(0, len(fields) - 1))] = draw(st.sampled_from(TOKENS) | st.text(max_size=5))
            lines[i] = draw(st.sampled_from([" ", "\t", ","])).join(fields)
        elif op == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    sep = draw(st.sampled_from(["\n", "\r\n"]))
    return sep.join(lines).encode("utf-8", "surrogatepass")


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 250)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_lines_only_raise_upload_error(data):
    check(data)


def _parquet_run() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"qid": ["301", "301", "302"], "docno": ["a", "b", "a"], "score": [1.5, -2.0, 3.0],
                             "rel": [1, 0, 2]}), buf)
    return buf.getvalue()


PARQUET = _parquet_run()


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(PARQUET) - 1), st.integers(0, 255)), min_size=1, max_size=6),
       st.integers(4, len(PARQUET)))
def test_corrupted_parquet_only_raises_upload_error(flips, keep):
    """A real Parquet file with bytes overwritten and its tail cut: still only UploadError."""
    data = bytearray(PARQUET)
    for pos, value in flips:
        data[pos] = value
    check(bytes(data[:keep]))
