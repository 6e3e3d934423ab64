"""Where Rankboard's evaluate-from-files time goes, stage by stage, plus DuckDB's EXPLAIN ANALYZE
of the engine's SQL and timed alternatives for each stage (the evidence behind PROFILE.md).

    python benchmarks/explain.py --size 500 [--threads 2] [--plan]

Stages timed in one process: parse (core.formats.read_run / read_qrels), load into DuckDB
(what evaluate_files does), the judged-rows SQL (core/db/sql/judged_rows.sql), the numpy measure
stage, and the alternatives: DuckDB read_csv / pyarrow.csv fast paths, the rank stored at ingest.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

RUN_COLS = "{'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR', 'rank': 'INTEGER', 'score': 'DOUBLE', 'tag': 'VARCHAR'}"
QRELS_COLS = "{'qid': 'VARCHAR', 'iter': 'VARCHAR', 'docno': 'VARCHAR', 'rel': 'INTEGER'}"
RANK = "row_number() OVER (PARTITION BY run, qid ORDER BY score DESC, docno DESC)"   # trec_eval's order
SEVEN = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Rprec", "bpref"]


def _mem() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB, from /proc/self/status."""
    vals = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                vals[line.split(":")[0]] = int(line.split()[1]) / 1024
    return vals.get("VmRSS", 0.0), vals.get("VmHWM", 0.0)


class Clock:
    def __init__(self):
        self.rows = []

    def __call__(self, label, fn, *a, **kw):
        t0 = time.perf_counter()
        out = fn(*a, **kw)
        dt = time.perf_counter() - t0
        rss, hwm = _mem()
        self.rows.append((label, dt, rss, hwm))
        print(f"  {dt:7.3f} s  RSS {rss:6.0f} MB  peak {hwm:6.0f} MB  {label}", flush=True)
        return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=500)
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (0 = DuckDB's default)")
    ap.add_argument("--plan", action="store_true", help="print the full EXPLAIN ANALYZE tree")
    ap.add_argument("--work", type=Path, default=HERE / "work")
    args = ap.parse_args(argv)
    d = args.work / f"t{args.size}"
    qrels_path, run_path = d / "qrels.txt", d / "run00.txt"
    clock = Clock()
    from core.engine import evaluate as ev
    from core.engine.stage1 import tables as stage1_tables
    from core.formats import read_qrels, read_run
    from core.measures import EvalOptions, parse_measures

    print("== the engine's path (evaluate_files), stage by stage ==")
    qrels = clock("parse qrels: core.formats.read_qrels", read_qrels, qrels_path, filename="qrels.txt")
    run = clock("parse run: core.formats.read_run", read_run, run_path, filename="run00.txt")
    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
    print(f"  (DuckDB threads = {threads})")
    ex = lambda sql, *a: con.execute(sql, *a).fetchall()  # noqa: E731 (DuckDB 2 wants every result fetched)
    con.register("_q", qrels.table)
    clock("load qrels into DuckDB", ex, "CREATE TEMP TABLE rb_qrels AS SELECT CAST(qid AS VARCHAR) qid, "
          "CAST(docno AS VARCHAR) docno, CAST(rel AS INTEGER) rel FROM _q")
    ex("CREATE TEMP TABLE rb_run (run VARCHAR, qid VARCHAR, docno VARCHAR, score DOUBLE)")
    con.register("_r", run.table)
    clock("load run into DuckDB", ex, "INSERT INTO rb_run SELECT 'r', qid, docno, score FROM _r")
    opts = EvalOptions()
    captured = {}
    real_sql = stage1_tables.sql

    def spy(name, **ids):   # keep the exact SQL the engine runs, whatever its template parameters are now
        text = real_sql(name, **ids)
        if name == "judged_rows":
            captured["sql"] = text
        return text
    stage1_tables.sql = spy
    loaded = clock("judged-rows SQL + fetch (stage1 Tables provider)", stage1_tables.table_rankings, con, "rb_run",
                   "rb_qrels", opts)
    clock("whole evaluate() (SQL + numpy measures + DataFrames)", ev.evaluate, con, "rb_run", "rb_qrels", SEVEN, opts)
    del loaded

    sql = captured["sql"]
    params = {"depth": stage1_tables.NO_DEPTH} | ({"run": "r"} if "$run" in sql else {})
    print("\n== DuckDB profile of judged_rows.sql (operators by time) ==")
    prof = args.work / "judged_rows-profile.json"
    ex(f"PRAGMA enable_profiling = 'json'")
    ex(f"PRAGMA profiling_output = '{prof}'")
    con.execute(sql, params).fetchall()
    ex("PRAGMA disable_profiling")
    print(operator_times(prof))
    if args.plan:
        print(sql)
        print(con.execute("EXPLAIN ANALYZE " + sql, params).fetchall()[0][1])

    print("\n== alternatives ==")
    clock("read run: DuckDB read_csv(delim=' ', explicit VARCHAR/DOUBLE types) -> table",
          ex, f"CREATE TEMP TABLE alt_run AS SELECT 'r' AS run, qid, docno, score FROM read_csv('{run_path}', "
          f"delim=' ', header=false, columns={RUN_COLS})")
    clock("read qrels: DuckDB read_csv", ex, f"CREATE TEMP TABLE alt_qrels AS SELECT qid, docno, rel FROM "
          f"read_csv('{qrels_path}', delim=' ', header=false, columns={QRELS_COLS})")
    import pyarrow as pa
    import pyarrow.csv as pacsv
    clock("read run: pyarrow.csv.read_csv(delimiter=' ', column types) -> arrow", pacsv.read_csv, run_path,
          read_options=pacsv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score", "tag"]),
          parse_options=pacsv.ParseOptions(delimiter=" "),
          convert_options=pacsv.ConvertOptions(column_types={"qid": pa.string(), "docno": pa.string(),
                                                             "score": pa.float64()},
                                               include_columns=["qid", "docno", "score"]))
    ex("CREATE TEMP TABLE ranked_run AS SELECT run, qid, docno, score, "
                f"{RANK} AS rank FROM rb_run")
    clock("judged-rows SQL with the rank precomputed (as in the store)", stage1_tables.table_rankings, con, "ranked_run",
          "rb_qrels", opts)
    stored = """
        WITH n AS (SELECT run, qid, least(count(*), $depth) AS n FROM ranked_run
                   WHERE qid IN (SELECT DISTINCT qid FROM rb_qrels) GROUP BY ALL)
        SELECT r.run, r.qid, r.rank, q.rel, n.n
        FROM ranked_run r JOIN n USING (run, qid) LEFT JOIN rb_qrels q ON q.qid = r.qid AND q.docno = r.docno
        WHERE r.rank <= $depth AND (q.rel IS NOT NULL OR r.rank = 1) ORDER BY r.run, r.qid, r.rank"""
    clock("proposed stored-rank SQL: n by GROUP BY (no window), same join",
          lambda: con.execute(stored, {"depth": stage1_tables.NO_DEPTH}).fetchnumpy())
    ex("CREATE TEMP TABLE dict AS SELECT docno, (row_number() OVER ())::INTEGER AS doc_id FROM "
       "(SELECT DISTINCT docno FROM rb_qrels)")
    ex("CREATE TEMP TABLE enc_qrels AS SELECT qid::INTEGER AS qid, doc_id, rel FROM rb_qrels JOIN dict USING (docno)")
    clock("encode the run at ingest: qid -> INTEGER, docno -> qrels dictionary id (NULL = unjudged)", ex,
          "CREATE TEMP TABLE enc_run AS SELECT run, qid::INTEGER AS qid, d.doc_id, rank FROM ranked_run "
          "LEFT JOIN dict d USING (docno)")
    enc = """
        WITH n AS (SELECT run, qid, count(*) AS n FROM enc_run GROUP BY ALL)
        SELECT r.run, r.qid, r.rank, q.rel, n.n
        FROM enc_run r JOIN n USING (run, qid) LEFT JOIN enc_qrels q ON q.qid = r.qid AND q.doc_id = r.doc_id
        WHERE (q.rel IS NOT NULL OR r.rank = 1) ORDER BY r.run, r.qid, r.rank"""
    clock("judged rows on integer-encoded stored run (join on INTEGER keys)",
          lambda: con.execute(enc).fetchnumpy())
    enc2 = """
        SELECT r.run, r.qid, r.rank, q.rel FROM enc_run r JOIN enc_qrels q ON q.qid = r.qid AND q.doc_id = r.doc_id
        WHERE r.doc_id IS NOT NULL ORDER BY r.run, r.qid, r.rank"""
    clock("  same, judged rows only (doc_id IS NOT NULL prunes before the join); n from runs metadata",
          lambda: con.execute(enc2).fetchnumpy())
    alt = """
        WITH j AS (SELECT r.run, r.qid, r.docno, r.score, q.rel FROM rb_run r JOIN rb_qrels q USING (qid, docno)),
        n AS (SELECT run, qid, count(*) AS n, max(score) AS top FROM rb_run
              WHERE qid IN (SELECT qid FROM rb_qrels) GROUP BY ALL)
        SELECT j.run, j.qid, j.rel, n.n,
               1 + (SELECT count(*) FROM rb_run x WHERE x.run = j.run AND x.qid = j.qid AND
                    (x.score > j.score OR (x.score = j.score AND x.docno > j.docno))) AS rank
        FROM j JOIN n USING (run, qid)"""
    clock("alternative: rank only the judged rows (correlated count; for reference)", lambda: con.execute(alt).fetchall())
    one_window = f"""
        SELECT run, qid, {RANK} AS rank, count(*) OVER (PARTITION BY run, qid) AS n, docno
        FROM rb_run"""
    clock("just the two window functions over every row", lambda: con.execute(f"SELECT count(*), max(rank), max(n) FROM ({one_window})").fetchall())
    clock("just the row_number window over every row",
          lambda: con.execute(f"SELECT max(r) FROM (SELECT {RANK} AS r FROM rb_run)").fetchall())
    clock("sort by (run, qid, score DESC, docno DESC) only",
          lambda: con.execute("SELECT max(x) FROM (SELECT docno AS x FROM rb_run ORDER BY run, qid, score DESC, docno DESC)").fetchall())
    print("\n| stage | seconds | RSS after, MB | peak so far, MB |\n|---|---|---|---|")
    for label, dt, rss, hwm in clock.rows:
        print(f"| {label} | {dt:.3f} | {rss:.0f} | {hwm:.0f} |")
    return 0


def operator_times(path: Path) -> str:
    """Operators of a DuckDB JSON profile, slowest first: seconds, rows, name, detail."""
    import json
    tree = json.loads(path.read_text())
    found = []

    def walk(node):
        name = node.get("type") or node.get("operator_name") or node.get("operator_type")
        t = node.get("timing", node.get("operator_timing"))
        if name and t is not None:
            extra = node.get("extra_info") or {}
            detail = "; ".join(f"{k}: {v}" for k, v in extra.items() if k in ("Projections", "Join Type",
                                                                                "Conditions", "Order By", "Groups"))
            rows = node.get("intermediate_rows", node.get("operator_cardinality")) or 0
            found.append((float(t), int(rows), name.strip(), str(detail)[:160]))
        for child in node.get("children", []):
            walk(child)
    for root in tree.get("operator", [tree]) if isinstance(tree.get("operator"), list) else [tree]:
        walk(root)
    total = tree.get("latency") or tree.get("timing") or round(sum(t for t, *_ in found), 3)
    lines = [f"  {t:6.3f} s  {rows:>12,} rows  {name}  {detail}" for t, rows, name, detail in
             sorted(found, reverse=True) if t >= 0.001]
    return "\n".join(lines + [f"  query latency {total} s"])


if __name__ == "__main__":
    raise SystemExit(main())
