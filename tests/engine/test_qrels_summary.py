"""core.engine.stage1.tables.arrow_qrels_summary (a bincount of topic codes and grades) against its plain
equivalent, DuckDB's `qrels_summary`."""
from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.stage1.tables import arrow_qrels_summary, qrels_summary

QIDS = ["301", "3010", "30", "Q1", "q1", "é", "z é", "0301", "Ω"]


def _plain(table: pa.Table):
    con = duckdb.connect()
    try:
        con.register("q", table)
        return qrels_summary(con, "q")
    finally:
        con.close()


def _same(table: pa.Table):
    topics, levels = arrow_qrels_summary(table)
    want_topics, want_levels = _plain(table)
    assert topics == want_topics
    order = ["qid", "rel"]
    pd.testing.assert_frame_equal(levels.sort_values(order).reset_index(drop=True),
                                  want_levels.sort_values(order).reset_index(drop=True))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(QIDS), st.integers(-2, 4)), max_size=60),
       cut=st.integers(0, 60), wide=st.booleans())
def test_counted_summary_equals_duckdbs(rows, cut, wide):
    """Any topics (bytes order of non-ASCII ones included), grades -2..4 (negative ones are topics without levels),
    in two chunks, with int32 or int64 grades."""
    qid = [q for q, _ in rows]
    rel = [r for _, r in rows]
    kind = pa.int64() if wide else pa.int32()
    table = pa.table({"qid": pa.array(qid, pa.string()), "docno": pa.array([f"d{i}" for i in range(len(rows))]),
                      "rel": pa.array(rel, kind)})
    table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    _same(table)


@pytest.mark.parametrize("rel", [[1, 1000000], [None, 1]])
def test_sparse_or_missing_grades_are_left_to_duckdb(rel):
    """Grades too high to count densely, or missing: the DuckDB form answers, so the result is the same."""
    _same(pa.table({"qid": ["1", "2"], "docno": ["a", "b"], "rel": pa.array(rel, pa.int32())}))


def test_the_benchmarks_qrels_shape_is_counted_without_duckdb(monkeypatch):
    """A clean qrels table is summarised by the bincount: DuckDB is not asked."""
    import core.engine.stage1.tables as tables
    monkeypatch.setattr(tables.duckdb, "connect", lambda *a, **k: (_ for _ in ()).throw(AssertionError("asked")))
    topics, levels = arrow_qrels_summary(pa.table({"qid": ["2", "1", "2"], "docno": ["a", "b", "c"],
                                                   "rel": pa.array([0, 2, 0], pa.int32())}))
    assert topics == ["1", "2"]
    assert sorted(map(tuple, levels.to_numpy().tolist())) == [("1", 2, 1), ("2", 0, 2)]
