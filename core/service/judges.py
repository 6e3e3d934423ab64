"""`core.judges.report` over a store collection: stage 1 from the judged rows that ingest already stores.

The store keeps, for every run and every qrels set of a collection, the judged retrieved documents with their
canonical rank (`judged_rows`) and the documents retrieved per topic (`run_topics`). Those are exactly the rows
`core.judges.scores` needs, so the run rows are never read: one query fetches them for all the chosen qrels
sets at once (cut at the measure's cutoff), one more the chosen qrels sets themselves (for the label agreement
and the judged-document counts), into a private in-memory DuckDB where the rest runs as for files.
"""
from __future__ import annotations

from contextlib import closing

import duckdb
import numpy as np
import pyarrow as pa

from core.judges import scores as judges_scores
from core.errors import EvalError
from core.judges.report import DEFAULT_MEASURE, JudgeReport, compute
from core.measures import parse_measure

ROWS_SQL = ("SELECT m.s, k.i AS run, j.qid, j.rank, j.rel FROM judged_rows j JOIN _rb_jsets m USING (qrels_id) "
            "JOIN _rb_jruns k USING (run_id) WHERE j.rank <= $depth")
SIZES_SQL = "SELECT k.i AS run, t.qid, t.n FROM run_topics t JOIN _rb_jruns k USING (run_id)"
QRELS_SQL = "SELECT m.s, q.qid, q.docno, q.rel FROM qrels q JOIN _rb_jsets m USING (qrels_id)"


def labels_of(sets) -> dict[int, str]:
    """qrels_id -> a unique display name (the assessor name, else 'qrels <id>'; repeats get ' (2)')."""
    out, taken = {}, set()
    for qid, assessor in zip(sets["qrels_id"].astype(int), sets["assessor"]):
        base = str(assessor) if assessor is not None and str(assessor) not in ("", "None", "nan") else f"qrels {qid}"
        name, k = base, 2
        while name in taken:
            name, k = f"{base} ({k})", k + 1
        taken.add(name)
        out[qid] = name
    return out


def check_sets(sets, qrels_ids) -> None:
    """An EvalError when one of `qrels_ids` is not a qrels set of `sets` (a collection's Store.qrels_sets)."""
    have = set(sets["qrels_id"].astype(int))
    unknown = sorted(set(map(int, qrels_ids)) - have)
    if unknown:
        raise EvalError(f"Qrels set(s) {unknown} are not in this collection. Pick from {sorted(have)}.")


def judges_stored(store, collection, reference_id: int, judge_ids, run_ids=None, *, measure: str = DEFAULT_MEASURE,
                  rel_level: int = 1, **kw) -> JudgeReport:
    """The JudgeReport of qrels sets `judge_ids` against `reference_id` over runs `run_ids` (all when None).
    With no judge, only the reference's scores and bounds are filled in (the Leaderboard's bounds)."""
    m = parse_measure(measure)
    depth = int(m.cutoff) if m.cutoff is not None and m.family.agg == "mean" else 2 ** 31 - 1
    sets = store.qrels_sets(collection)
    names = labels_of(sets)
    judge_ids = [int(j) for j in judge_ids if int(j) != int(reference_id)]
    check_sets(sets, [reference_id, *judge_ids])
    runs = store.runs(collection)
    if run_ids is not None:
        runs = runs[runs["run_id"].isin([int(r) for r in run_ids])]
    if runs.empty:
        raise EvalError("The collection has no runs to score: upload runs first.")
    with closing(store.cursor()) as cur:
        cur.register("_rb_jsets", pa.table({"qrels_id": pa.array([int(reference_id)] + judge_ids, pa.int32()),
                                            "s": pa.array(np.arange(len(judge_ids) + 1), pa.int32())}))
        cur.register("_rb_jruns", pa.table({"run_id": pa.array(runs["run_id"].astype(int), pa.int32()),
                                            "i": pa.array(np.arange(len(runs)), pa.int32())}))
        rows = cur.execute(ROWS_SQL, {"depth": depth}).fetchnumpy()
        sizes = cur.execute(SIZES_SQL).fetchnumpy()
        qrels = cur.sql(QRELS_SQL).to_arrow_table()
    with duckdb.connect() as mem:
        mem.register("_rb_jq_src", qrels)
        mem.execute("CREATE TEMP TABLE jq AS SELECT * FROM _rb_jq_src")
        qids = [r[0] for r in mem.execute("SELECT DISTINCT qid FROM jq").fetchall()]
        st = judges_scores.build_stage1(runs["name"].astype(str).tolist(), sizes["run"], sizes["qid"], sizes["n"],
                                        qids, rows)
        return compute(mem, "jq", st, names[int(reference_id)], [names[j] for j in judge_ids], m.name,
                       rel_level, **kw)
