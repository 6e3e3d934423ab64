"""A 160 MB run given as qrels is refused in bounded memory: every line reported, pyarrow's peak allocation near one
piece's parse (core.formats.qrels reads a large text in pieces): a slow test. (The pieces against the whole parse on
small random qrels: tests/formats/test_qrels_pieces.py.)"""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cases.reference import ROOT

pytestmark = pytest.mark.slow

MEASURED = """
import sys
import pyarrow as pa
from core.errors import UploadError
from core.formats import read_qrels
try:
    read_qrels(sys.argv[1])
except UploadError as exc:
    print(str(exc).splitlines()[0])
    print(exc.total)
print(pa.default_memory_pool().max_memory())
"""


def test_a_large_run_given_as_qrels_is_refused_in_bounded_memory(tmp_path):
    """A 160 MB run given as qrels (every line has 6 fields): every line is reported, and pyarrow's peak allocation
    stays near one piece's parse. Parsed whole, the same text peaked at ~4.3x its size (~700 MB here; 804 MB for
    benchmarks' 186 MB commented.txt, against 237 MB in pieces). pyarrow's own pool peak, unlike the RSS, is not
    moved by other processes."""
    path = tmp_path / "run-as.qrels"
    path.write_bytes(b"301 Q0 d1 1 2.5 tag\n" * 8_000_000)
    out = subprocess.run([sys.executable, "-c", MEASURED, str(path)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.split("\n")
    assert out[0] == ("run-as.qrels, line 1: found 6 fields but a qrels line needs 4 (qid iter docno rel); this looks "
                      "like a run file. Upload it as a run instead.")
    assert int(out[1]) == 8_000_000
    assert int(out[2]) < 400 << 20
