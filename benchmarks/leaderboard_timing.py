"""Server-side time of the leaderboard: 10 stored runs x 5 measures, t-test against a baseline.

    python benchmarks/leaderboard_timing.py [--size 500] [--reps 3] [--no-apptest]

Two harnesses, each rep in a fresh process on a fresh copy of a store holding the collection's
qrels and 10 runs (built once, untimed; the copy has an empty `results` cache):
- core: `evaluate_stored` (10 runs x AP, nDCG@10, P@10, R@1000, RR) + `compare(test='t')`, as the
  page's cached calls do. cold = empty results cache; cached = the same call again in the same
  process, served from the store's results table (what a restarted server sees);
- apptest: Streamlit's AppTest runs dashboard/app.py (the leaderboard is the landing page) with
  ?baseline=run00; cold = first script run after the app's modules are imported (a server that is
  up, with empty st.cache_data and an empty results table); cached = the next rerun.
Both exclude interpreter start and imports (a running server has paid them). Results go to
benchmarks/work/leaderboard.json, which run.py folds into RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
import sections  # noqa: E402

FIVE = ["AP", "nDCG@10", "P@10", "R@1000", "RR"]


def child_core(store_path: str) -> dict:
    from core.stats.compare import compare
    from core.service.evaluate import evaluate_stored
    from tools import open_store
    store = open_store(store_path)
    runs = store.runs("bench").sort_values("name")
    ids, base = [int(x) for x in runs["run_id"]], str(runs["name"].iloc[0])
    out = {}
    for label in ("cold", "cached"):
        t0 = time.perf_counter()
        res = evaluate_stored(store, "bench", ids, FIVE)
        t1 = time.perf_counter()
        cmp = compare(res.per_query, baseline=base, measures=FIVE, test="t")
        t2 = time.perf_counter()
        out[label] = {"total": t2 - t0, "evaluate_stored": t1 - t0, "compare": t2 - t1,
                      "rows": len(cmp.to_dataframe())}
    store.close()
    return out


PRELOADED = ("dashboard.app_pages", "dashboard.cache.results", "dashboard.components.leaderboard", "dashboard.components.manysys",
             "core.service.evaluate", "core.stats.compare", "core.stats.baselines", "plotly.graph_objects",
             # core imports these when a statistic first needs them (core.stats.paired._sp); a server that has drawn one
             # view with a t-test or a correction holds them, as it holds the modules above
             "scipy.stats", "statsmodels.stats.multitest")


def server_start(at) -> float:
    """Seconds of the component discovery a Streamlit server does once at start-up (Runtime.__init__ calls
    discover_and_register_components: it reads the metadata of every installed package). AppTest would do it in
    its first run() and so charge it to the cold page; done here, as the server does before any session."""
    from streamlit.components.v2.component_manager import BidiComponentManager
    t0 = time.perf_counter()
    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)
    at._bidi_component_manager = manager        # AppTest's own slot for it (streamlit 1.5x testing/v1/app_test.py)
    return time.perf_counter() - t0


def child_apptest(store_path: str) -> dict:
    """The Leaderboard (the landing page) in AppTest with ?baseline=run00: cold = the first script run after the
    modules a running server has imported (PRELOADED) and its start-up component discovery (`server_start`,
    reported on its own), cached = the next rerun. Also used by manysys_timing.py."""
    import importlib
    os.environ["RANKBOARD_STORE"] = store_path
    from streamlit.testing.v1 import AppTest
    for module in PRELOADED:
        importlib.import_module(module)
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    at.query_params["baseline"] = "run00"
    out = {"server_start": server_start(at)}
    for label in ("cold", "cached"):
        t0 = time.perf_counter()
        at.run()
        out[label] = {"total": time.perf_counter() - t0,
                      "exceptions": [str(e.value)[:200] for e in at.exception],
                      "errors": [str(e.value)[:200] for e in at.error]}
    out["tables"] = len(at.dataframe) + len(at.table)
    return out


def parent(args) -> dict:
    import run as runner
    runner.WORK = args.work
    d = runner.ensure_data(args.size, args.runs)
    tpl = runner.template_store(d, [d / f"run{r:02d}.txt" for r in range(args.runs)], "ten-runs")
    dest = args.work / "leaderboard.duckdb"
    modes = ["core"] + ([] if args.no_apptest else ["apptest"])
    results = {}
    for mode in modes:
        samples = []
        for _ in range(args.reps):
            runner.fresh_copy(tpl, dest)()
            cmd = [sys.executable, __file__, "--child", mode, "--store", str(dest)]
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"  {mode}: ERROR {p.stderr.strip().splitlines()[-3:]}")
                break
            samples.append(json.loads(p.stdout.strip().splitlines()[-1]))
            s = samples[-1]
            print(f"  {mode}: cold {s['cold']['total']:.3f} s, cached {s['cached']['total']:.3f} s  {s['cold']}",
                  flush=True)
        if samples:
            results[mode] = {"cold_s": statistics.median(s["cold"]["total"] for s in samples),
                             "cached_s": statistics.median(s["cached"]["total"] for s in samples),
                             "samples": samples}
    main_mode = "apptest" if "apptest" in results and not results["apptest"]["samples"][0]["cold"].get(
        "exceptions") else "core"
    out = {"desc": f"{args.runs} runs x {args.size:,} topics x depth 1000 "
                   f"({runner.lines(d / 'run00.txt'):,} lines per run), {main_mode} harness, median of {args.reps}",
           "harness": main_mode, "load": os.getloadavg(),
           "command": "python benchmarks/leaderboard_timing.py " + " ".join(sys.argv[1:]),
           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "git": sections.commit()}
    if main_mode in results:
        out["cold_s"], out["cached_s"] = results[main_mode]["cold_s"], results[main_mode]["cached_s"]
    for mode, r in results.items():
        out[f"{mode}_cold_s"], out[f"{mode}_cached_s"] = round(r["cold_s"], 3), round(r["cached_s"], 3)
        out[f"{mode}_first_sample"] = r["samples"][0]
    for p in (dest, Path(str(dest) + ".wal")):
        p.unlink(missing_ok=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=500)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-apptest", action="store_true")
    ap.add_argument("--work", type=Path, default=HERE / "work")
    ap.add_argument("--child", choices=["core", "apptest"])
    ap.add_argument("--store")
    args = ap.parse_args(argv)
    if args.child:
        out = child_core(args.store) if args.child == "core" else child_apptest(args.store)
        print(json.dumps(out, default=str))
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    out = parent(args)
    (args.work / "leaderboard.json").write_text(json.dumps(out, indent=1, default=str))
    print(json.dumps({k: v for k, v in out.items() if not k.endswith("sample")}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
