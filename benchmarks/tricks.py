"""Each speed trick of the engine against its plain equivalent, in one process, alternating.

    flock /tmp/rankboard-bench.lock python benchmarks/tricks.py [--reps 5] [--only manysys|charts|files|qrels]

Default data: the `ties` and `shuffled` shapes of benchmarks/shapes.py (4.93M lines). Prints, per trick, the
median seconds of the trick and of its plain equivalent, their difference, and the load average; the figures
go into the ledger of benchmarks/PROFILE.md by hand ("The speed tricks").
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # core, dashboard, and the plain forms kept in tests/

from core.db.scratch import scratch  # noqa: E402
from core.formats import read_qrels, read_run  # noqa: E402
from core.engine.stage1 import ArrowRun, Tables, rankings  # noqa: E402
from core.engine.stage1.files import read_first  # noqa: E402


def timed(fn, reps: int) -> float:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def pair(name: str, trick, plain, reps: int) -> None:
    a, b = [], []
    for _ in range(reps):                       # alternate, so load changes hit both alike
        a.append(timed(trick, 1))
        b.append(timed(plain, 1))
    ta, tb = statistics.median(a), statistics.median(b)
    print(f"| {name} | {ta:.3f} | {tb:.3f} | {tb - ta:+.3f} | {os.getloadavg()[0]:.2f} |", flush=True)


def manysys_pairs(reps: int) -> None:
    """The all-pairs randomisation test's permutations, 1000 resamples of 5000 topics x 50 runs."""
    import numpy as np
    from core.stats import multisys
    from core.stats import permute
    X = np.random.default_rng(0).random((5000, 50))

    def argsort_plain():                        # the plain equivalent: argsort of uniform float keys per topic row
        rng = np.random.default_rng(0)
        for _ in range(125):
            order = np.argsort(rng.random((8, 5000, 50)), axis=2)
            np.take_along_axis(np.broadcast_to(X, (8, 5000, 50)), order, axis=2).sum(axis=1)

    def one_thread():
        with mock.patch.object(permute, "THREADS", 1):
            multisys.permuted_ranges(X, 1000, 0)
    pair("randomization-all permutations, 1000 x 5000 topics x 50 runs: sorted packed uint32 keys with rejection, "
         "2 threads (`core.stats.permute`; plain: argsort of uniform float keys, one thread)",
         lambda: multisys.permuted_ranges(X, 1000, 0), argsort_plain, reps)
    pair("the same on 2 threads (plain: 1 thread; the draws are the same)",
         lambda: multisys.permuted_ranges(X, 1000, 0), one_thread, reps)
    from core.stats import paired as stats

    def one_bincount():
        with mock.patch.object(stats, "_COUNT_CELLS", 1 << 40):
            stats._bootstrap_means(X, 10_000, 0)
    pair("bootstrap means, 10,000 resamples of 5000 topics x 50 runs: each block's draws counted 2^18 cells at a "
         "time (`stats._count_blocks`; plain: one bincount per 400-resample block)",
         lambda: stats._bootstrap_means(X, 10_000, 0), one_bincount, reps)
    per_query_pairs(reps)
    files = HERE / "work" / "many_50x5000_d10"
    if (files / "run49.txt").exists():
        from core.cli import compare as cli_compare
        from core.engine.evaluate import EvalOptions
        runs = sorted(files.glob("run*.txt"))

        def parse(threads):
            with mock.patch.object(cli_compare, "PARSE_THREADS", threads):
                cli_compare.evaluate_for_compare(files / "qrels.txt", runs, ["AP"], EvalOptions())
        pair("compare CLI: 50 files of 50k lines parsed on 2 threads, then evaluated (plain: one file after the other)",
             lambda: parse(2), lambda: parse(1), reps)


def per_query_pairs(reps: int) -> None:
    """The many-runs table work at 50 runs x 5,000 topics x 6 measures (1.5M per-query rows)."""
    import numpy as np
    import pandas as pd
    from core.store.results import write_results
    from core.engine.finish import sorted_codes
    from core.store.store import Store
    rng = np.random.default_rng(0)
    measures = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "Judged@10"]
    n = 50 * 5000
    pq = pd.DataFrame({"run": np.tile(np.repeat([str(r + 1) for r in range(50)], 5000), 6),
                       "qid": np.tile([str(t + 1) for t in range(5000)], 50 * 6),
                       "measure": np.repeat(measures, n), "value": rng.random(6 * n)})
    pq = pq.astype({"run": "str", "qid": "str", "measure": "str"})     # Arrow-backed text, as evaluate_stored returns
    names = pq["run"].to_numpy(object)
    pair("summary grouping of 1.5M rows by run name: hash factorisation, sort of the distinct names (`finish.sorted_codes`; "
         "plain: np.unique)", lambda: sorted_codes(names), lambda: np.unique(names, return_inverse=True), reps)
    from core.stats.resolution import wide_tables
    from core.engine.stage2 import repeated, tiled
    runs = [str(r + 1) for r in range(50)]
    pair("compare's topics x runs tables of 5 measures from 1.5M rows: one factorisation, a numpy scatter per measure "
         "(`resolution.wide_tables`; plain: a `pivot_table` per measure)", lambda: wide_tables(pq, measures[:5], runs),
         lambda: [pq[pq["measure"] == m].pivot_table(index="qid", columns="run", values="value", aggfunc="first")
                  for m in measures[:5]], reps)
    from core.stats.resolution import share

    def leaderboard_calls(frame):       # one Leaderboard view: the table's 5 measures, the chart's, the ranks'
        wide_tables(frame, measures[:5], runs)
        wide_tables(frame, measures[:1], runs)
        wide_tables(frame, measures[:1], runs)
    pair("a Leaderboard view's three `wide_tables` calls on the shared 1.5M-row result, factorised once "
         "(`resolution.share`; plain: a frame factorised at each call)",
         lambda: leaderboard_calls(share(pq.copy(deep=False))), lambda: leaderboard_calls(pq.copy(deep=False)), reps)
    run_col, qid_col = names[:n], pq["qid"].to_numpy(object)[:n]
    pair("stage 2's per-query frame, 1.5M rows: text columns taken to Arrow once and repeated as chunks "
         "(`stage2.tiled`/`repeated`; plain: np.tile / np.repeat of object arrays)",
         lambda: pd.DataFrame({"run": tiled(run_col, 6), "qid": tiled(qid_col, 6), "measure": repeated(measures, n)}),
         lambda: pd.DataFrame({"run": np.tile(run_col, 6), "qid": np.tile(qid_col, 6),
                               "measure": np.repeat(np.array(measures, dtype=object), n)}), reps)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "w.duckdb", load_sample=False)
        ids = {r: int(r) for r in pq["run"].unique()}

        def arrow_write():
            with store.transaction(bump=False) as cur:
                write_results(cur, pq, ids, 1, "o")

        def plain_write():
            frame = pd.DataFrame({"run_id": pq["run"].map(ids), "qrels_id": 1, "options": "o",
                                  "qid": pq["qid"].astype(str), "measure": pq["measure"].astype(str),
                                  "value": pq["value"].astype(float)})
            with store.transaction(bump=False) as cur:
                cur.register("_rb_new_results", frame)
                cur.execute("DELETE FROM results WHERE qrels_id = 1 AND options = 'o' AND (run_id, measure) IN "
                            "(SELECT DISTINCT run_id, measure FROM _rb_new_results)")
                cur.execute("INSERT INTO results SELECT run_id, qrels_id, options, qid, measure, value FROM _rb_new_results")
                cur.unregister("_rb_new_results")
        pair("results cache write of 1.5M rows from an Arrow table (`store.results.write_results`; plain: a pandas "
             "frame with map(ids) / astype(str) columns)", arrow_write, plain_write, reps)
        store.close()


def chart_pairs(reps: int) -> None:
    """The dashboard's chart style as plotly's default template, against the plain form that writes plotly_white
    and the shared layout into each figure; 200 figures, each built, styled and serialised as st.plotly_chart does."""
    import plotly.graph_objects as go
    import plotly.io as pio
    from dashboard.components.charts import LAYOUT, style

    def draw(plain: bool):
        for i in range(200):
            fig = style(go.Figure(go.Bar(x=["a", "b", "c"], y=[i, 1, 2], name="run")), height=320)
            if plain:
                fig.update_layout(template="plotly_white", **LAYOUT)
            pio.to_json(fig.to_dict(), validate=False)

    pair("chart style from the default template (`dashboard/components/charts.py`; plain: plotly_white and LAYOUT "
         "written into each of 200 figures)", lambda: draw(False), lambda: draw(True), reps)


def table_pairs(reps: int) -> None:
    """The Leaderboard's styled table (plain-string labels, the colours in one array) against its plain form (pandas'
    Arrow-string labels, one .loc per cell; kept in tests/dashboard/test_leaderboard_table.py, which checks the two
    render the same HTML): 43 runs x 3 measures with a baseline, built and rendered to HTML (the cells and styles
    st.dataframe sends), 20 times."""
    from core.stats.compare import compare
    from core.stats.resolution import resolve
    from dashboard.components import leaderboard as lb
    from tests.dashboard.test_leaderboard_table import _case, _plain_styled

    pq, summary, runs, judged, costs = _case(5, n_runs=43, n_topics=50)
    measures = ["AP", "P@10", "nDCG@10"]
    args = dict(comparison=compare(pq, baseline=runs[0], measures=measures, intervals=False), judged=judged,
                resolution=resolve(pq, measures=["AP"], runs=runs, n_resamples=200)["AP"], costs=costs)

    def draw(plain: bool):
        for _ in range(20):
            if plain:
                _plain_styled(summary, runs=runs, measures=measures, **args)[1].to_html()
            else:
                lb.styled_table(lb.ranked(summary, runs=runs, measures=measures), **args)[1].to_html()

    pair("Leaderboard table with plain-string labels (`dashboard/components/leaderboard.py` styled_table; plain: "
         "Arrow-string labels, one .loc per coloured cell), 20 tables of 43 runs", lambda: draw(False),
         lambda: draw(True), reps)


def page_pairs(reps: int) -> None:
    """The Leaderboard's means table, Agreement's slopegraph and the Curves page's per-run caches, each against its
    plain form (kept in the tests named in PROFILE.md's ledger)."""
    import numpy as np
    import pandas as pd
    import plotly.io as pio
    import streamlit as st
    from core.agreement.rankcorr import DoesItMatter, correlation_table
    from dashboard.cache import curves as cached_curves
    from dashboard.components import leaderboard as lb
    from dashboard.components.agreement import slopegraph_figure
    from tests.dashboard.test_agreement_charts import _plain_slopegraph
    from tests.dashboard.test_leaderboard_table import _case, _plain_means
    from tests.dashboard.test_curve_cache import _plain
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

    _, summary, runs, _, _ = _case(5, n_runs=43, n_topics=50)
    measures = ["AP", "P@10", "nDCG@10"]
    pair("Leaderboard means table filled in one numpy assignment (`means_table`; plain: `pivot_table`, reindexed), "
         "200 tables of 43 runs", lambda: [lb.means_table(summary, runs=runs, measures=measures) for _ in range(200)],
         lambda: [_plain_means(summary, runs=runs, measures=measures) for _ in range(200)], reps)

    rng = np.random.default_rng(1)
    scores = pd.DataFrame(rng.random((45, 2)), index=pd.Index([f"run{i}" for i in range(45)], name="run"),
                          columns=["NIST", "simulated-B"])
    dim = DoesItMatter(measure="AP", scores=scores, correlations=correlation_table(scores), qrels_ids={})
    colors = {r: "#1f5fbf" for r in scores.index}
    pair("slopegraph from trace dicts in one list (`slopegraph_figure`; plain: a go.Scatter per run, added one at a "
         "time), 20 figures of 45 runs with their JSON",
         lambda: [pio.to_json(slopegraph_figure(dim, colors=colors), validate=False) for _ in range(20)],
         lambda: [pio.to_json(_plain_slopegraph(dim, colors=colors), validate=False) for _ in range(20)], reps)

    with tempfile.TemporaryDirectory() as tmp:
        store = sample_store(Path(tmp))
        os.environ["RANKBOARD_STORE"] = str(store.path)
        try:
            cid = int(store.collections().set_index("name").at[SAMPLE_COLLECTION, "collection_id"])
            ids = tuple(int(r) for r in store.runs(cid)["run_id"])
            runs_df, sets = store.runs(cid), store.qrels_sets(cid)

            def cached():
                cached_curves.pr_curves(store, str(store.path), cid, ids, runs=runs_df, sets=sets)
                cached_curves.roc_curves(store, str(store.path), cid, ids, runs=runs_df, sets=sets)
            cached()
            pair("Curves after another process's load: PR and ROC of 5 runs kept per run (`dashboard/cache/curves.py`; "
                 "plain: computed again for the new data version, as core computes them)", cached,
                 lambda: _plain(store, cid, ids), reps)
        finally:
            store.close()
            st.cache_resource.clear()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--shape", default="ties")
    ap.add_argument("--only", choices=["all", "manysys", "charts", "files", "qrels"], default="all",
                    help="manysys: only the all-pairs statistics (no shape files needed); charts: only the dashboard's "
                         "tricks (chart style, Leaderboard table, means table, slopegraph, per-run curves); files: "
                         "only the mid-sized files and the shuffled sort; qrels: only the duplicate check of qrels in "
                         "order")
    args = ap.parse_args(argv)
    if args.only in ("manysys", "charts"):
        print(f"{args.only}, reps {args.reps}, load {os.getloadavg()}")
        print("| trick | with it, s | plain, s | saves, s | load |\n|---|---|---|---|---|")
        if args.only == "manysys":
            manysys_pairs(args.reps)
        else:
            chart_pairs(args.reps)
            table_pairs(args.reps)
            page_pairs(args.reps)
        return 0
    work = HERE / "work" / "shapes"
    run_path = work / {"ties": "ties.txt", "shuffled": "shuffled.txt"}[args.shape]
    qrels_path = work / "base" / "qrels.txt"
    print(f"{args.shape}: {run_path}, reps {args.reps}, load {os.getloadavg()}")
    print("| trick | with it, s | plain, s | saves, s | load |\n|---|---|---|---|---|")
    if args.only == "files":
        pieces_pairs(work, read_qrels(qrels_path, filename="q").table, args.reps)
        sort_pairs(work, args.reps)
        return 0
    if args.only == "qrels":
        qrels_pairs(work, args.reps)
        return 0

    pair("qrels read beside the run (read_first)", lambda: read_first(qrels_path, run_path),
         lambda: (read_qrels(qrels_path, filename="q"), read_run(run_path, filename="r")), args.reps)

    run = read_run(run_path, filename="r").table
    qrels = read_qrels(qrels_path, filename="q").table
    with tempfile.TemporaryDirectory() as tmp:
        con = scratch(tmp, run_path.stat().st_size)
        con.register("_q", qrels)
        con.execute("CREATE TEMP TABLE q AS SELECT * FROM _q")
        con.register("_r", run)
        con.execute("CREATE TEMP TABLE r AS SELECT * FROM _r")
        con.unregister("_r")
        pair("stage 1 in Arrow + numpy ranks (ArrowRun) vs SQL window (Tables)",
             lambda: rankings(ArrowRun(run, "q", "r", con)), lambda: rankings(Tables(con, "r", "q", "r")), args.reps)

    from core.formats import _fast
    pair("duplicate check: DuckDB hashes sorted in numpy, exact GROUP BY only where a hash repeats (`_fast.unique`; "
         "plain: `_fast.exact_unique`, one GROUP BY over every key)", lambda: _fast.unique(run, ["qid", "docno"]),
         lambda: _fast.exact_unique(run, ["qid", "docno"]), args.reps)

    from core.formats import _text
    data = run_path.read_bytes()
    pair("binary_at: translate pass, regex only on a hit (plain: the regex search)",
         lambda: _text.binary_at(data), lambda: _text._BINARY.search(data), args.reps)

    import zlib
    gz = (work / "ties.txt.gz").read_bytes()

    def with_zlib():
        with mock.patch.object(_text, "INFLATE", zlib.decompressobj):
            _text.decompress(gz, "f")
    pair("gunzip with ISA-L (plain: zlib), ties.txt.gz", lambda: _text.decompress(gz, "f"), with_zlib, args.reps)

    import duckdb
    from core.db.scratch import shared_cursor
    small = read_run(work.parent / "many_50x5000_d10" / "run00.txt", filename="r").table \
        if (work.parent / "many_50x5000_d10" / "run00.txt").exists() else run.slice(0, 250_000)

    def fifty(cursor):
        for _ in range(50):
            con = cursor()
            con.register("_k", small.select(["qid", "docno"]))
            con.execute("SELECT 1 FROM _k GROUP BY qid, docno HAVING count(*) > 1 LIMIT 1").fetchall()
            con.close()

    pair("duplicate check of 50 runs of 250k lines on a shared database's cursors (plain: a database each)",
         lambda: fifty(shared_cursor), lambda: fifty(lambda: duckdb.connect(config={"threads": 2})), args.reps)

    pieces_pairs(work, qrels, args.reps)
    sort_pairs(work, args.reps)
    qrels_pairs(work, args.reps)
    manysys_pairs(args.reps)
    return 0


def qrels_pairs(work: Path, reps: int) -> None:
    """The duplicate check of qrels written in order (the Robust shape's 7.3M judgments, benchmarks/shapes.py):
    neighbouring rows compared (`_fast.in_order`) against the hashed check alone (its plain equivalent)."""
    from core.formats import _fast

    path = work / "robust_qrels.txt"
    if not path.exists():
        print(f"(no {path}: run benchmarks/shapes.py --shapes robust --build-only)")
        return
    table = read_qrels(path, filename="q").table

    def hashed():
        with mock.patch.object(_fast, "in_order", lambda *a: False):
            return _fast.unique(table, ["qid", "docno"])
    pair("robust qrels (7.3M judgments, in order): duplicate check of neighbouring rows (`_fast.in_order`; plain: "
         "the hashed `unique` alone)", lambda: _fast.unique(table, ["qid", "docno"]), hashed, reps)


def pieces_pairs(work: Path, qrels, reps: int) -> None:
    """Stage 1 of a mid-sized run file (ties: 186 MB, and its gzip) read in pieces with the next piece read ahead
    on a thread, against pieces one after the other (`ahead` -> `iter`), and against the whole-file parse."""
    from core.measures import EvalOptions
    from core.engine.stage1 import RunFile
    from core.engine.stage1 import files

    for name in ("ties.txt", "ties.txt.gz"):
        path = work / name
        with tempfile.TemporaryDirectory() as tmp:
            con = scratch(tmp, path.stat().st_size)
            con.register("rb_qrels", qrels.select(["qid", "docno", "rel"]))
            src = RunFile(path, con, "rb_qrels")

            def in_turn():
                with mock.patch.object(files, "ahead", iter):
                    rankings(src)
            pair(f"{name}: next piece read ahead on a thread (`stage1.files.ahead`; plain: `iter`)",
                 lambda: rankings(src), in_turn, reps)
            pair(f"{name}: in pieces (`stage1.files.pieces`, read ahead; plain: `whole`)",
                 lambda: rankings(src), lambda: files.whole(src, EvalOptions()), reps)


def sort_pairs(work: Path, reps: int) -> None:
    """The (topic, score descending) order of the shuffled shape's 4.93M rows: DuckDB's sort against pyarrow's
    table sort (what it replaced) and np.lexsort (the plain equivalent)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from core.engine.stage1.order import by_topic_and_score, topic_codes

    run = read_run(work / "shuffled.txt", filename="r").table
    codes, score = topic_codes(run["qid"])[0], run["score"].to_numpy()
    del run

    def arrow_sort():
        return pc.sort_indices(pa.table({"c": codes, "s": score}),
                               sort_keys=[("c", "ascending"), ("s", "descending")]).to_numpy()
    pair("shuffled: (topic, score desc) order by DuckDB's sort (`order.by_topic_and_score`; was: pyarrow's sort)",
         lambda: by_topic_and_score(codes, score), arrow_sort, reps)
    pair("shuffled: the same (plain: `np.lexsort((-score, codes))`)",
         lambda: by_topic_and_score(codes, score), lambda: np.lexsort((-score, codes)), reps)


if __name__ == "__main__":
    raise SystemExit(main())
