"""How long a command-line load waits while the dashboard is busy, and what opening the store
per operation costs. Writes a Markdown table to stdout (paste into RESULTS.md) with the load average.

    flock /tmp/rankboard-bench.lock python benchmarks/store_sharing.py [--loads 10] [--readers 3]

Three situations, each with `--loads` loads of a 2,000-line run by a separate process (the command line's
own path: parse, then wait for the store, then insert):
- no dashboard: nobody else uses the store;
- idle dashboard: a process that keeps the store open between page views (linger) but does nothing;
- busy dashboard: `--readers` threads of one process evaluate stored runs back to back (the results cache
  is cleared first, so each evaluation does real work), like sessions clicking through the leaderboard.
The wait is the time from asking for the store to holding it, measured inside the loading process.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOADER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from core.store import ingest
from core.store.store import Store
store = Store.open(sys.argv[2], load_sample=False)
prepared = ingest.prepare_run(sys.argv[3], filename="bench.run")
t0 = time.perf_counter()
with store.session():
    waited = time.perf_counter() - t0
    with store.transaction() as cur:
        cid = ingest.collection_id(cur, "robust03-sample")
        ingest.add_run(cur, cid, None, filename="bench.run", name=sys.argv[4], prepared=prepared)
held = time.perf_counter() - t0 - waited
store.close()
print(json.dumps({"wait": waited, "held": held}))
"""

DASHBOARD = """
import sys, threading, time
sys.path.insert(0, sys.argv[1])
from core.store.store import Store
from core.service.evaluate import evaluate_stored
store = Store.open(sys.argv[2], load_sample=False, linger=2.0)
busy, n = sys.argv[3] == "busy", int(sys.argv[4])
ops = []
def reader():
    while True:
        t = time.perf_counter()
        with store.session():
            ids = store.runs("robust03-sample")["run_id"].tolist()[:5]
            with store.transaction(bump=False) as cur:
                cur.execute("DELETE FROM results").fetchall()
            evaluate_stored(store, "robust03-sample", ids, ["AP", "nDCG@10", "P@10", "recip_rank", "bpref"])
        ops.append(time.perf_counter() - t)
store.collections()
print("ready", flush=True)
if busy:
    for _ in range(n):
        threading.Thread(target=reader, daemon=True).start()
time.sleep(3600)
"""


def loads(store: Path, run: Path, n: int, tag: str) -> list[dict]:
    out = []
    for i in range(n):
        res = subprocess.run([sys.executable, "-c", LOADER, str(ROOT), str(store), str(run), f"{tag}-{i}"],
                             capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return out


def situation(store: Path, run: Path, n: int, mode: str | None, readers: int) -> dict:
    proc = None
    if mode:
        proc = subprocess.Popen([sys.executable, "-c", DASHBOARD, str(ROOT), str(store), mode, str(readers)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(2.0)
    load = os.getloadavg()
    try:
        got = loads(store, run, n, mode or "none")
    finally:
        if proc:
            proc.kill()
            proc.wait()
    waits = sorted(g["wait"] for g in got)
    return {"median": statistics.median(waits), "p95": waits[max(0, int(round(0.95 * len(waits))) - 1)],
            "max": waits[-1], "held": statistics.median(g["held"] for g in got), "load": load}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=10)
    ap.add_argument("--readers", type=int, default=3)
    args = ap.parse_args()
    from core.store.store import Store
    work = Path(tempfile.mkdtemp(prefix="rankboard-sharing-"))
    store = work / "store.duckdb"
    Store.open(store, load_sample=True).close()
    lines = gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes()).decode().splitlines()
    topics = list(dict.fromkeys(line.split()[0] for line in lines))[:20]
    run = work / "bench.run"
    run.write_text("".join(line + "\n" for line in lines if line.split()[0] in topics))
    print(f"| dashboard | loads | wait median | wait p95 | wait max | store held (insert) | load average |")
    print("|---|---|---|---|---|---|---|")
    for label, mode in (("none", None), ("idle (lingering)", "idle"), (f"busy ({args.readers} sessions)", "busy")):
        r = situation(store, run, args.loads, mode, args.readers)
        print(f"| {label} | {args.loads} | {r['median']:.3f} s | {r['p95']:.3f} s | {r['max']:.3f} s | "
              f"{r['held']:.3f} s | {' '.join(f'{x:.2f}' for x in r['load'])} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
