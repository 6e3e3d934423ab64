"""One timed job in a fresh process: `python benchmarks/tools.py TOOL TASK --qrels Q --run R ... --out J`.

`run.py` starts this once per repetition, so each tool's peak memory is its own (os.wait4's
rusage of that one child). The child writes a JSON with `op` (seconds spent in the operation
itself, after imports and set-up), a per-measure `summary` (trec_eval names), and, with `--dump`,
a parquet file of per-query values (qid, measure, value) for the agreement checks.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The 7 measures the benchmarks time, as (Rankboard/ir_measures name, trec_eval name, ranx name).
SEVEN = [("AP", "map", "map"), ("nDCG@10", "ndcg_cut_10", "ndcg@10"), ("P@10", "P_10", "precision@10"),
         ("R@1000", "recall_1000", "recall@1000"), ("RR", "recip_rank", "mrr"),
         ("Rprec", "Rprec", "r-precision"), ("bpref", "bpref", "bpref")]
FIVE = ["AP", "nDCG@10", "P@10", "R@1000", "RR"]          # the compare / leaderboard measures
PYTREC_NAMES = {"seven": {"map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank", "Rprec", "bpref"},
                "official": {"official"}, "all_trec": {"all_trec"}}


def measure_set(task: str) -> list[str]:
    return {"eval7": [m for m, _, _ in SEVEN], "official": ["official"], "all_trec": ["all_trec"]}[task]


# ---------------------------------------------------------------- Rankboard
def _eval_options():
    try:
        from core.engine.evaluate import EvalOptions
    except ImportError:
        from core.measures import EvalOptions
    return EvalOptions()


def _trec_name(name: str) -> str:
    from core.measures import parse_measure
    try:
        return parse_measure(name).trec_name or name
    except Exception:
        return name


def _rankboard_tables(res, dump: bool):
    summary = {}
    for row in res.summary.itertuples(index=False):
        summary[_trec_name(row.measure)] = float(row.value)
    pq = None
    if dump:
        pq = res.per_query[["qid", "measure", "value"]].copy()
        pq["measure"] = pq["measure"].map({m: _trec_name(m) for m in pq["measure"].unique()})
    return summary, pq


def rankboard_evaluate(args):
    from core.engine.evaluate import evaluate_files
    opts = _eval_options()
    t0 = time.perf_counter()
    res = evaluate_files(args.qrels, [args.run], measure_set(args.task), opts)
    op = time.perf_counter() - t0
    return op, *_rankboard_tables(res, args.dump)


def rankboard_cli(args):
    import subprocess
    cmd = [sys.executable, "-m", "core", "evaluate", *[x for m in measure_set(args.task) for x in ("-m", m)],
           args.qrels, args.run]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0, {}, None


def open_store(path):
    from core.store.store import Store
    try:
        return Store.open(path, load_sample=False)
    except TypeError:
        return Store.open(path)


def rankboard_prepare(args):
    """Build a template store: collection 'bench' + qrels + the given runs (not timed)."""
    store = open_store(args.store)
    coll = store.create_collection("bench")
    store.add_qrels(coll, args.qrels, filename=Path(args.qrels).name)
    for r in args.runs or []:
        store.add_run(coll, r, filename=Path(r).name, name=Path(r).stem)
    store.close()
    return 0.0, {}, None


def rankboard_ingest(args):
    store = open_store(args.store)
    t0 = time.perf_counter()
    store.add_run("bench", args.run, filename=Path(args.run).name, name="ingested")
    op = time.perf_counter() - t0
    store.close()
    return op, {}, None


def _run_ids(store, names=None):
    runs = store.runs("bench")
    if names:
        runs = runs[runs["name"].isin(names)]
    return runs.sort_values("name")


def rankboard_reeval(args):
    from core.service.evaluate import evaluate_stored
    store = open_store(args.store)
    runs = _run_ids(store)
    rid = [int(runs["run_id"].iloc[0])]
    ms = [m for m, _, _ in SEVEN]
    t0 = time.perf_counter()
    res = evaluate_stored(store, "bench", rid, ms, options=_eval_options())
    op = time.perf_counter() - t0
    t1 = time.perf_counter()
    evaluate_stored(store, "bench", rid, ms, options=_eval_options())
    cached = time.perf_counter() - t1
    summary, pq = _rankboard_tables(res, args.dump)
    store.close()
    return op, summary, pq, {"cached": cached}


def rankboard_compare(args):
    from core.stats.compare import compare
    from core.service.evaluate import evaluate_stored
    store = open_store(args.store)
    runs = _run_ids(store)
    ids = [int(x) for x in runs["run_id"]]
    t0 = time.perf_counter()
    res = evaluate_stored(store, "bench", ids, FIVE, options=_eval_options())
    t_eval = time.perf_counter() - t0
    pq = res.per_query
    base = sorted(pq["run"].unique(), key=str)[0]
    t1 = time.perf_counter()
    cmp = compare(pq, baseline=base, measures=FIVE, test="randomization", n_resamples=10000, seed=0)
    t_cmp = time.perf_counter() - t1
    n_rows = len(cmp.to_dataframe())
    store.close()
    return t_eval + t_cmp, {}, None, {"evaluate_stored": t_eval, "compare": t_cmp, "rows": n_rows}


# ---------------------------------------------------------------- peers
def _pytrec_eval_files(args, measures):
    import pytrec_eval
    t0 = time.perf_counter()
    with open(args.qrels) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(args.run) as f:
        run = pytrec_eval.parse_run(f)
    res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    op = time.perf_counter() - t0
    return op, res


def pytrec_eval_evaluate(args):
    import pytrec_eval
    op, res = _pytrec_eval_files(args, PYTREC_NAMES[{"eval7": "seven"}.get(args.task, args.task)])
    names = sorted(next(iter(res.values())).keys()) if res else []
    summary = {m: pytrec_eval.compute_aggregated_measure(m, [q[m] for q in res.values()]) for m in names}
    pq = None
    if args.dump:
        import pandas as pd
        pq = pd.DataFrame([(qid, m, v) for qid, d in res.items() for m, v in d.items()],
                          columns=["qid", "measure", "value"])
    return op, summary, pq


def pytrec_eval_lines(args):
    """pytrec_eval as its users call it on any run file: read the file line by line into dicts (gzip opened as
    such; a 3-column MS MARCO line scores -rank), then RelevanceEvaluator on the 7 measures."""
    import gzip

    import pytrec_eval
    t0 = time.perf_counter()
    qrels, run = {}, {}
    with open(args.qrels) as f:
        for line in f:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    opener = gzip.open if open(args.run, "rb").read(2) == b"\x1f\x8b" else open
    with opener(args.run, "rt") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                run.setdefault(parts[0], {})[parts[1]] = -float(parts[2])
            else:
                run.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    res = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_NAMES["seven"]).evaluate(run)
    op = time.perf_counter() - t0
    names = sorted(next(iter(res.values())).keys()) if res else []
    summary = {m: pytrec_eval.compute_aggregated_measure(m, [q[m] for q in res.values()]) for m in names}
    return op, summary, None


def ir_measures_evaluate(args):
    import ir_measures
    ms = [ir_measures.parse_measure(m if m != "bpref" else "Bpref") for m, _, _ in SEVEN]
    trec = {str(m): t for m, (_, t, _) in zip(ms, SEVEN)}
    t0 = time.perf_counter()
    qrels = ir_measures.read_trec_qrels(args.qrels)
    run = ir_measures.read_trec_run(args.run)
    agg = ir_measures.calc_aggregate(ms, qrels, run)
    op = time.perf_counter() - t0
    summary = {trec[str(m)]: float(v) for m, v in agg.items()}
    pq = None
    if args.dump:
        import pandas as pd
        rows = [(r.query_id, trec[str(r.measure)], float(r.value)) for r in
                ir_measures.iter_calc(ms, ir_measures.read_trec_qrels(args.qrels), ir_measures.read_trec_run(args.run))]
        pq = pd.DataFrame(rows, columns=["qid", "measure", "value"])
    return op, summary, pq


def ranx_evaluate(args):
    from ranx import Qrels, Run, evaluate
    names = [x for _, _, x in SEVEN]
    trec = {x: t for _, t, x in SEVEN}
    t0 = time.perf_counter()
    qrels = Qrels.from_file(args.qrels, kind="trec")
    run = Run.from_file(args.run, kind="trec")
    means = evaluate(qrels, run, names, make_comparable=True)
    op = time.perf_counter() - t0
    summary = {trec[k]: float(v) for k, v in means.items()}
    pq = None
    if args.dump:
        import pandas as pd
        pq = pd.DataFrame([(qid, trec[m], float(v)) for m in names for qid, v in run.scores[m].items()],
                          columns=["qid", "measure", "value"])
    return op, summary, pq


def ranx_compare(args):
    from ranx import Qrels, Run, compare
    t0 = time.perf_counter()
    qrels = Qrels.from_file(args.qrels, kind="trec")
    runs = [Run.from_file(r, kind="trec", name=Path(r).stem) for r in args.runs]
    compare(qrels, runs, ["map", "ndcg@10", "precision@10", "recall@1000", "mrr"], stat_test="fisher",
            n_permutations=10000, make_comparable=True)
    return time.perf_counter() - t0, {}, None


def polars_floor(args):
    import polars as pl
    t0 = time.perf_counter()
    run = pl.read_csv(args.run, separator=" ", has_header=False,
                      schema={"qid": pl.String, "q0": pl.String, "docno": pl.String, "rank": pl.Int64,
                              "score": pl.Float64, "tag": pl.String})
    qrels = pl.read_csv(args.qrels, separator=" ", has_header=False,
                        schema={"qid": pl.String, "iter": pl.String, "docno": pl.String, "rel": pl.Int64})
    op = time.perf_counter() - t0
    return op, {"rows": float(run.height + qrels.height)}, None


def library_floor(args):
    """The least a pipeline on Rankboard's libraries does to give trec_eval's numbers for one run file, timed as one:
    DuckDB reads the run and the qrels (its parallel CSV reader, every field as text but the score and the grade),
    checks that no document repeats within a topic (trec_eval refuses such a run: one GROUP BY), and joins the run
    to the qrels (the judged rows' scores and grades, fetched). No ranking in trec_eval's order, no measure, no
    result frame, no check of the text: a floor under Rankboard's `evaluate` on this machine, not a tool
    (shapes.py's `library floor` column). It was the lowest of the pipelines tried (pyarrow's reader with DuckDB's
    join and a numpy duplicate check took 1.9 s on ties and 3.8 s on robust, against 1.4-1.8 s and 2.5-3.1 s)."""
    import duckdb
    t0 = time.perf_counter()
    con = duckdb.connect(config={"threads": 2, "preserve_insertion_order": False})
    with open(args.run, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (__import__("gzip").open if gz else open)(args.run, "rb") as f:
        msmarco = len(f.readline().split()) == 3
    cols = ({"qid": "VARCHAR", "docno": "VARCHAR", "rank": "DOUBLE"} if msmarco else
            {"qid": "VARCHAR", "q0": "VARCHAR", "docno": "VARCHAR", "rank": "VARCHAR", "score": "DOUBLE",
             "tag": "VARCHAR"})
    opts = "header = false, quote = '', escape = '', auto_detect = false"
    con.execute(f"CREATE TEMP TABLE r AS SELECT qid, docno, {'-rank' if msmarco else 'score'} AS score "
                f"FROM read_csv(?, delim = ?, {opts}, columns = {cols})", [str(args.run), "\t" if msmarco else " "])
    con.execute(f"CREATE TEMP TABLE q AS SELECT qid, docno, rel FROM read_csv(?, delim = ' ', {opts}, columns = "
                "{'qid': 'VARCHAR', 'iter': 'VARCHAR', 'docno': 'VARCHAR', 'rel': 'INTEGER'})", [str(args.qrels)])
    repeats = con.execute("SELECT count(*) FROM (SELECT qid, docno FROM r GROUP BY qid, docno HAVING count(*) > 1)"
                          ).fetchone()[0]
    judged = con.execute("SELECT r.score, q.rel FROM r JOIN q USING (qid, docno)").fetchnumpy()
    op = time.perf_counter() - t0
    return op, {"judged": float(len(judged["rel"])), "repeats": float(repeats)}, None


TOOLS = {
    ("rankboard", "evaluate"): rankboard_evaluate, ("rankboard-cli", "evaluate"): rankboard_cli,
    ("rankboard", "prepare"): rankboard_prepare, ("rankboard", "ingest"): rankboard_ingest,
    ("rankboard", "reeval"): rankboard_reeval, ("rankboard", "compare"): rankboard_compare,
    ("pytrec_eval", "evaluate"): pytrec_eval_evaluate,
    ("pytrec_eval-lines", "evaluate"): pytrec_eval_lines, ("ir_measures", "evaluate"): ir_measures_evaluate,
    ("ranx", "evaluate"): ranx_evaluate, ("ranx", "compare"): ranx_compare, ("polars", "evaluate"): polars_floor,
    ("library-floor", "evaluate"): library_floor,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("job", help="evaluate | prepare | ingest | reeval | compare")
    ap.add_argument("--task", default="eval7", help="measure set for evaluate: eval7 | official | all_trec")
    ap.add_argument("--qrels")
    ap.add_argument("--run")
    ap.add_argument("--runs", nargs="*")
    ap.add_argument("--store")
    ap.add_argument("--out", required=True)
    ap.add_argument("--dump", default=None, help="write per-query values to this parquet file")
    args = ap.parse_args(argv)
    out = TOOLS[(args.tool, args.job)](args)
    op, summary, pq = out[:3]
    extra = out[3] if len(out) > 3 else {}
    if args.dump and pq is not None:
        pq.to_parquet(args.dump, index=False)
    Path(args.out).write_text(json.dumps({"op": op, "summary": summary, "extra": extra}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
