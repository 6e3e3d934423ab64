"""core.fusion.trec.described: a stored run's fusion provenance (its ir_metadata, as the store keeps it) in one line,
read back from the header trec_text writes."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from core.formats import read_run
from core.fusion import fuse
from core.fusion.trec import described, trec_text

A = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
B = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["b", "c", "c"], "score": [3.0, 1.0, 0.5]})


def stored_metadata(fused, name: str = "fused") -> str:
    """The metadata as the store keeps it: the header read back by core.formats, as JSON."""
    return json.dumps(read_run(trec_text(fused, name).encode(), filename="fused.run").metadata)


@pytest.mark.parametrize(("fused", "line"), [
    (fuse([A, B], "rrf", names=["bm25", "dense"]), "rrf (min-max, k=60) of bm25, dense"),
    (fuse([A, B], "wsum", weights=[0.25, 0.75], names=["bm25", "dense"]),
     "wsum (min-max, weights 0.25,0.75) of bm25, dense"),
    (fuse([A, B], "combmnz", norm="zmuv", names=["x", "y"]), "mnz (zmuv) of x, y"),
])
def test_the_provenance_reads_back_in_one_line(fused, line):
    assert described(stored_metadata(fused)) == line
    assert described(json.loads(stored_metadata(fused))) == line


@pytest.mark.parametrize("metadata", [None, "", "{}", "not json", '{"tag": "bm25"}', '{"method": "bm25"}',
                                      '{"method": {"fusion": "rrf"}}', "[1, 2]"])
def test_a_run_that_was_not_fused_has_no_provenance(metadata):
    assert described(metadata) == ""
