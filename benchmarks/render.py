"""Server time of each page's render, on a store holding all 17 TREC 2003 Robust runs.

    .venv/bin/python benchmarks/render.py [--store /tmp/robust03.duckdb]

Builds the store on first use (17 runs, NIST qrels, the SYNTHETIC variant as a second assessor,
Robust04 topics), then drives each page with AppTest: a cold first render, and the first render
after a selection change once the results behind it are cached. Prints one line per step.
AppTest runs the script in this process, so the time is the script's server time (no browser).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ROBUST = ROOT / "tests" / "reference" / "trectools_robust03"


def build(path: Path) -> None:
    from core.store.store import Store
    store = Store.open(path, load_sample=False)
    name = "robust03"
    if name not in set(store.collections()["name"]):
        store.create_collection(name)
        store.add_qrels(name, ROBUST / "robust03_qrels.txt.gz", assessor="NIST")
        store.add_qrels(name, ROOT / "data" / "qrels.robust03.simulated-B.txt.gz", assessor="simulated-B")
        store.add_topics(name, ROOT / "data" / "topics.robust03.txt")
        for run in sorted((ROBUST / "runs").glob("*.gz")):
            store.add_run(name, run)
    store.close()


def timed(label: str, action) -> None:
    t = time.perf_counter()
    at = action()
    dt = time.perf_counter() - t
    bad = [e.value for e in at.exception] + [e.value for e in at.error if "Unexpected" in str(e.value)]
    print(f"{dt:7.3f} s  {label}" + (f"   !! {bad}" if bad else ""), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default="/tmp/rankboard-robust03.duckdb")
    path = Path(ap.parse_args().store)
    build(path)
    os.environ["RANKBOARD_STORE"] = str(path)
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    at.query_params["collection"] = "robust03"
    timed("Leaderboard: cold (17 runs x 5 measures + Judged@10)", at.run)
    timed("Leaderboard: rerun, nothing changed", at.run)
    runs = at.multiselect(key="lb_runs").options
    lb = [("baseline A (t-test)", "lb_baseline", runs[0]), ("baseline B", "lb_baseline", runs[1]),
          ("randomisation test", "lb_test", "randomization"), ("Holm correction", "lb_correction", "holm"),
          ("chart measure nDCG@10", "lb_measure", "nDCG@10"), ("back to t-test", "lb_test", "t"),
          ("no correction", "lb_correction", "none"), ("baseline A again", "lb_baseline", runs[0])]
    for label, key, value in lb:
        timed(f"Leaderboard: {label}", lambda: at.selectbox(key=key).set_value(value).run())

    at.switch_page("app_pages/perquery.py")
    timed("Per-query: cold (first pair)", at.run)
    timed("Per-query: other compared run", lambda: at.selectbox(key="pq_run").set_value(runs[5]).run())
    qid = at.selectbox(key="pq_query").options[1].split(":")[0]
    timed("Per-query: open a query (side-by-side lists)", lambda: at.selectbox(key="pq_query").set_value(qid).run())
    qid2 = at.selectbox(key="pq_query").options[2].split(":")[0]
    timed("Per-query: open another query", lambda: at.selectbox(key="pq_query").set_value(qid2).run())
    timed("Per-query: measure P@10", lambda: at.selectbox(key="pq_measure").set_value("P@10").run())
    timed("Per-query: back to the first compared run", lambda: at.selectbox(key="pq_run").set_value(runs[1]).run())

    at.switch_page("app_pages/curves.py")
    timed("Curves: cold (the 17 runs chosen on the Leaderboard: PR + ROC)", at.run)
    timed("Curves: 5 runs (cached per run)", lambda: at.multiselect(key="cv_runs").set_value(runs[:5]).run())
    timed("Curves: single-query PR", lambda: at.selectbox(key="cv_query").set_value(qid).run())
    timed("Curves: back to 17 runs", lambda: at.multiselect(key="cv_runs").set_value(runs).run())

    at.switch_page("app_pages/agreement.py")
    timed("Agreement: cold (kappa + slopegraph over 17 runs x 2 qrels)", at.run)
    timed("Agreement: binary labels", lambda: at.selectbox(key="ag_rel_level").set_value("1").run())
    timed("Agreement: slopegraph measure P@10 (cold)", lambda: at.selectbox(key="ag_measure").set_value("P@10").run())
    timed("Agreement: back to graded labels", lambda: at.selectbox(key="ag_rel_level").set_value("graded").run())
    at.switch_page("app_pages/data.py")
    timed("Data", at.run)
    at.switch_page("app_pages/measures.py")
    timed("Measures", at.run)


if __name__ == "__main__":
    main()
