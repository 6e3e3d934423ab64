"""The Judges page and `python -m core judges`: 33 judges x 20 runs of depth 1000 x 50 topics (synthetic).

    flock /tmp/rankboard-bench.lock python benchmarks/judges_timing.py [--reps 3]

Data (benchmarks/work/judges/, untimed): generate.py's collection of 50 topics and 20 runs (seed 20261113), and
33 judge qrels made from its qrels with seed 13: judge k relabels a share 0.05 + 0.015 k of the reference's
labels (even judges lean up, odd ones down) and labels 10 unjudged documents of run00's top 20 per topic.
Timed, each rep in a fresh process:
- cli: `python -m core judges qrels.txt judge00..judge32 --run run00..run19 --format json`, wall time of the whole
  process (interpreter start and imports included);
- page: Streamlit's AppTest on dashboard/app.py with a store holding the collection; cold = the first run of the
  Judges page after the app has opened the store (a server that is up, empty st.cache_data), cached = the next
  rerun; server-side time until the script has finished (the page is ready).
The figures and the load average go to benchmarks/work/judges.json and the `judges` section of RESULTS.md.
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

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
N_JUDGES, N_RUNS, N_TOPICS, SEED = 33, 20, 50, 20261113


def make_data(d: Path) -> Path:
    import generate
    if not (d / f"run{N_RUNS - 1:02d}.txt").exists():
        generate.generate(d, N_TOPICS, N_RUNS, seed=SEED)
    if (d / f"judge{N_JUDGES - 1:02d}.txt").exists():
        return d
    cols = ["qid", "it", "docno", "rel"]
    ref = pd.read_csv(d / "qrels.txt", sep=" ", header=None, names=cols, dtype={"qid": str, "docno": str})
    run = pd.read_csv(d / "run00.txt", sep=" ", header=None, names=["qid", "q0", "docno", "rank", "score", "tag"],
                      dtype={"qid": str, "docno": str})
    top = run[run["rank"] <= 20].merge(ref[["qid", "docno"]], how="left", indicator=True)
    holes = top[top["_merge"] == "left_only"][["qid", "docno"]]
    rng = np.random.default_rng(13)
    for k in range(N_JUDGES):
        frame = ref.copy()
        change = rng.random(len(frame)) < 0.05 + 0.015 * k
        step = rng.integers(1, 3, change.sum()) * (1 if k % 2 == 0 else -1)
        frame.loc[change, "rel"] = np.clip(frame.loc[change, "rel"] + step, 0, 3)
        extra = holes.sample(frac=1.0, random_state=k).groupby("qid").head(10)
        extra = extra.assign(it=0, rel=rng.integers(0, 4, len(extra)))[cols]
        pd.concat([frame, extra]).to_csv(d / f"judge{k:02d}.txt", sep=" ", header=False, index=False)
    return d


def build_store(d: Path) -> Path:
    from core.store.store import Store
    path = d / "judges.duckdb"
    if path.exists():
        return path
    store = Store.open(path, load_sample=False)
    store.create_collection("bench")
    store.add_qrels("bench", d / "qrels.txt", filename="qrels.txt", assessor="reference")
    for k in range(N_JUDGES):
        store.add_qrels("bench", d / f"judge{k:02d}.txt", filename=f"judge{k:02d}.txt")
    for r in range(N_RUNS):
        store.add_run("bench", d / f"run{r:02d}.txt", filename=f"run{r:02d}.txt")
    store.close()
    return path


def child_page(store_path: str) -> dict:
    os.environ["RANKBOARD_STORE"] = store_path
    from streamlit.testing.v1 import AppTest
    import core.service.judges  # noqa: F401  (a running server has imported these)
    import dashboard.cache.judges  # noqa: F401
    import dashboard.components.judges  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    at.query_params["runs"] = "-"          # the landing page (Leaderboard) then has nothing to compute
    at.run()
    at.switch_page("app_pages/judges.py")
    out = {}
    for label in ("cold", "cached"):
        t0 = time.perf_counter()
        at.run()
        out[label] = time.perf_counter() - t0
    out["exceptions"] = [str(e.value)[:200] for e in at.exception]
    out["errors"] = [str(e.value)[:200] for e in at.error]
    out["judges_in_table"] = len(at.dataframe[0].value) if len(at.dataframe) else 0
    return out


def time_cli(d: Path) -> float:
    cmd = [sys.executable, "-m", "core", "judges", str(d / "qrels.txt"),
           *[str(d / f"judge{k:02d}.txt") for k in range(N_JUDGES)]]
    for r in range(N_RUNS):
        cmd += ["--run", str(d / f"run{r:02d}.txt")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd + ["--format", "json"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    assert len(json.loads(p.stdout)["judges"]) == N_JUDGES
    return wall


def write_section(out: dict) -> None:
    """The `judges` section of RESULTS.md (benchmarks/sections.py)."""
    import sections
    section = (
        sections.heading("Judges page and CLI", out["when"], out.get("git", "?")) + "\n\n"
        f"{out['desc']}. Measured {out['when']}; load average before {out['load_before']}, after "
        f"{out['load_after']}.\n\n"
        "| what | target | median s | reps s |\n|---|---|---|---|\n"
        f"| Judges page, cold (AppTest, first run after the store is open) | < 3 | {out['page_cold_s']:.2f} | "
        f"{', '.join(f'{s:.2f}' for s in out['page_cold'])} |\n"
        f"| Judges page, cached (next rerun) | < 0.5 | {out['page_cached_s']:.3f} | "
        f"{', '.join(f'{s:.3f}' for s in out['page_cached'])} |\n"
        f"| `python -m core judges` (whole process, {N_JUDGES} judges, {N_RUNS} runs, JSON) | < 5 | "
        f"{out['cli_s']:.2f} | {', '.join(f'{s:.2f}' for s in out['cli'])} |\n\n"
        f"Command: `{out['command']}`.\n")
    sections.write("judges", section, "benchmarks/judges_timing.py")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", type=Path, default=HERE / "work" / "judges")
    ap.add_argument("--child", choices=["page"])
    ap.add_argument("--store")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child_page(args.store)))
        return 0
    d = make_data(args.work)
    store = build_store(d)
    before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cli = [time_cli(d) for _ in range(args.reps)]
    page = []
    for _ in range(args.reps):
        p = subprocess.run([sys.executable, __file__, "--child", "page", "--store", str(store)], cwd=ROOT,
                           capture_output=True, text=True)
        got = json.loads(p.stdout.strip().splitlines()[-1])
        if got["exceptions"] or got["errors"] or got["judges_in_table"] != N_JUDGES:
            raise RuntimeError(f"the page did not render cleanly: {got}")
        page.append(got)
    out = {"desc": f"{N_JUDGES} judges x {N_RUNS} runs of depth 1000 x {N_TOPICS} topics (synthetic, seed {SEED}; "
                   f"judges seed 13), median of {args.reps}",
           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_before": before,
           "git": __import__("sections").commit(),
           "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
           "command": "flock /tmp/rankboard-bench.lock python benchmarks/judges_timing.py " + " ".join(sys.argv[1:]),
           "cli": cli, "cli_s": statistics.median(cli),
           "page_cold": [p["cold"] for p in page], "page_cached": [p["cached"] for p in page]}
    out["page_cold_s"], out["page_cached_s"] = statistics.median(out["page_cold"]), statistics.median(out["page_cached"])
    (args.work / "judges.json").write_text(json.dumps(out, indent=1))
    write_section(out)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
