"""Load test of the dashboard: N browser sessions click through Leaderboard,
Per-query, Curves and Agreement on the sample collection while some of them upload runs.

    flock /tmp/rankboard-bench.lock python benchmarks/loadtest.py --sessions 8 --uploaders 2 --duration 240

Starts `streamlit run dashboard/app.py` on a fresh store (the sample collection is loaded on first
start, as for a new user), opens N contexts of Debian's chromium at 1280x720 AT ONCE, and reports:

- first load: from `goto('/')` until the leaderboard's table and chart are drawn, per session;
- page time: from the click on a sidebar link until that page's heading, its charts and an idle
  app are there (Streamlit's own running/spinner indicators gone);
- lost clicks: a click after which the page did not arrive within --lost-after seconds;
- uploads: each uploader session goes to Data every full round, uploads a run (a sample run with a
  new tag) and waits for "Loaded ..."; at the end every uploaded run must be in the store, once;
- exceptions: Streamlit exception boxes and "Unexpected error" messages seen by any session.

Writes benchmarks/work/loadtest.json and the `loadtest` section of benchmarks/RESULTS.md
(benchmarks/sections.py) with the load average before and after. `run_load()` is what the CI version
(tests/e2e/test_e2e_load.py) runs, smaller; that test checks correctness only (no lost click, every upload landed, no exception),
never times.
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(__file__).resolve().parent / "work"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 720}
SAMPLE_RUN = ROOT / "data" / "runs" / "input.pircRBa1.gz"
COLLECTION = "robust03-sample"          # the sample collection with two qrels sets (Agreement needs them)
# sidebar link title -> (page heading, selectors that must be drawn)
PAGES = {
    "Leaderboard": ("Leaderboard", [".st-key-lb_table [data-testid='stDataFrame']", ".st-key-lb_ci_chart .js-plotly-plot"]),
    "Per-query": ("Per-query comparison", [".st-key-pq_chart .js-plotly-plot"]),
    "Curves": ("Precision-recall and ROC", [".st-key-cv_pr .js-plotly-plot", ".st-key-cv_roc .js-plotly-plot"]),
    "Agreement": ("Judge agreement", [".st-key-ag_confusion .js-plotly-plot", ".st-key-ag_slope .js-plotly-plot"]),
}
_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
  if (document.querySelector('[data-testid="stSpinner"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  return true;
}"""
_READY_JS = """([heading, sels]) => {
  const h = document.querySelector('[data-testid="stMain"] h1');
  if (!h || h.innerText.trim() !== heading) return false;
  return sels.every(s => document.querySelector(s));
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`streamlit run dashboard/app.py` on a store path, in its own process group."""

    def __init__(self, store: Path, log_dir: Path):
        self.store, self.port = store, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / "streamlit.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "Server":
        env = dict(os.environ, RANKBOARD_STORE=str(self.store), PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.headless", "true",
               "--server.port", str(self.port), "--server.address", "127.0.0.1"]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"streamlit did not start; see {self.log}")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def upload_file(folder: Path, session: int, n: int) -> Path:
    """A sample run with its own tag (so it becomes a new run named after the tag)."""
    tag = f"load_s{session}_u{n}"
    text = gzip.decompress(SAMPLE_RUN.read_bytes()).decode()
    path = folder / f"{tag}.run"
    path.write_text(re.sub(r"\S+$", tag, text, flags=re.M))
    return path


async def _ready(page, title: str, timeout_s: float) -> bool:
    heading, sels = PAGES[title]
    try:
        await page.wait_for_function(_READY_JS, arg=[heading, sels], polling=100, timeout=timeout_s * 1000)
        await page.wait_for_function(_IDLE_JS, polling=100, timeout=timeout_s * 1000)
        return True
    except Exception:  # noqa: BLE001 - a timeout is a lost click
        return False


async def _problems(page) -> list[str]:
    found = [f"exception: {t[:200]}" for t in await page.get_by_test_id("stException").all_inner_texts()]
    found += [f"error: {t[:200]}" for t in await page.get_by_test_id("stAlert").all_inner_texts()
              if "Unexpected error" in t]
    return found


async def _upload(page, path: Path, timeout_s: float) -> dict:
    t0 = time.monotonic()
    await page.get_by_test_id("stSidebarNav").get_by_text("Data", exact=True).click()
    await page.locator(".st-key-data_runs_files input[type=file]").set_input_files(str(path))
    button = page.locator(".st-key-data_runs_load button")
    await button.wait_for(state="visible")
    await page.wait_for_function("(s) => { const b = document.querySelector(s); return b && !b.disabled; }",
                                 arg=".st-key-data_runs_load button", timeout=timeout_s * 1000)
    await button.click()
    ok = True
    try:
        await page.get_by_test_id("stAlert").filter(has_text=f"Loaded {path.name}").wait_for(timeout=timeout_s * 1000)
    except Exception:  # noqa: BLE001
        ok = False
    return {"file": path.name, "ok": ok, "s": time.monotonic() - t0}


async def _session(i: int, browser, url: str, *, start, clock: dict, upload: bool, folder: Path,
                   lost_after: float, min_rounds: int, out: dict) -> None:
    from playwright.async_api import TimeoutError as PWTimeout

    ctx = await browser.new_context(viewport=VIEWPORT)
    page = await ctx.new_page()
    rec = {"session": i, "visits": [], "lost": [], "uploads": [], "problems": []}
    out["sessions"].append(rec)
    await start.wait()
    t0 = time.monotonic()
    await page.goto(url + "/?collection=" + COLLECTION, timeout=lost_after * 1000)
    rec["first_load_s"] = time.monotonic() - t0 if await _ready(page, "Leaderboard", lost_after) else None
    order, n_up, rounds = ["Per-query", "Curves", "Agreement", "Leaderboard"], 0, 0
    more = lambda: time.monotonic() < clock["stop_at"] or rounds < min_rounds   # noqa: E731
    while more():
        for title in order:
            if not more():
                break
            link = page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True)
            t = time.monotonic()
            try:
                await link.click(timeout=lost_after * 1000)
            except PWTimeout:
                rec["lost"].append({"page": title, "at": t})
                continue
            if await _ready(page, title, lost_after):
                rec["visits"].append({"page": title, "s": time.monotonic() - t})
            else:
                rec["lost"].append({"page": title, "at": t})
            rec["problems"] += await _problems(page)
        if upload and more():
            n_up += 1
            rec["uploads"].append(await _upload(page, upload_file(folder, i, n_up), lost_after))
            rec["problems"] += await _problems(page)
        rounds += 1
    await ctx.close()


async def run_load(url: str, *, sessions: int, uploaders: int, duration_s: float, folder: Path,
                   lost_after: float = 60.0, min_rounds: int = 0) -> dict:
    """Drive `sessions` browser contexts against `url` for `duration_s` (from the moment they all open
    the app at once, first load included), and at least `min_rounds` rounds of the four pages each;
    the first `uploaders` of them also upload once per round."""
    from playwright.async_api import async_playwright

    out: dict = {"sessions": []}
    clock = {"stop_at": float("inf")}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        start = asyncio.Event()
        runners = [asyncio.create_task(_session(i, browser, url, start=start, clock=clock, upload=i < uploaders,
                                                folder=folder, lost_after=lost_after, min_rounds=min_rounds,
                                                out=out))
                   for i in range(sessions)]
        await asyncio.sleep(2.0)                  # every context exists before anyone goes to '/'
        clock["stop_at"] = time.monotonic() + duration_s
        start.set()
        await asyncio.gather(*runners)
        await browser.close()
    return out


def summarise(raw: dict) -> dict:
    visits = [v["s"] for s in raw["sessions"] for v in s["visits"]]
    firsts = [s.get("first_load_s") for s in raw["sessions"]]
    uploads = [u for s in raw["sessions"] for u in s["uploads"]]
    q = statistics.quantiles(visits, n=20, method="inclusive") if len(visits) >= 2 else [float("nan")] * 19
    return {"sessions": len(raw["sessions"]), "page_visits": len(visits),
            "page_median_s": statistics.median(visits) if visits else None, "page_p95_s": q[18] if visits else None,
            "page_max_s": max(visits) if visits else None,
            "by_page_median_s": {p: statistics.median([v["s"] for s in raw["sessions"] for v in s["visits"]
                                                        if v["page"] == p] or [float("nan")]) for p in PAGES},
            "first_load_s": firsts, "first_load_max_s": max((f for f in firsts if f is not None), default=None),
            "first_loads_missing": sum(f is None for f in firsts),
            "lost_clicks": sum(len(s["lost"]) for s in raw["sessions"]),
            "uploads": len(uploads), "uploads_ok": sum(u["ok"] for u in uploads),
            "upload_median_s": statistics.median([u["s"] for u in uploads]) if uploads else None,
            "problems": [p for s in raw["sessions"] for p in s["problems"]]}


def stored_runs(store: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from core.store.store import Store
    with Store.open(store, load_sample=False) as s:
        return list(s.runs(COLLECTION)["name"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--uploaders", type=int, default=2)
    ap.add_argument("--duration", type=float, default=240.0, help="seconds of clicking after the first load")
    ap.add_argument("--lost-after", type=float, default=60.0)
    ap.add_argument("--note", default="", help="what else ran on the machine, for the report")
    ap.add_argument("--render", type=Path, help="only re-render the RESULTS.md section from this loadtest.json")
    a = ap.parse_args()
    if a.render:
        res = json.loads(a.render.read_text())["summary"]
        res["note"] = a.note or res.get("note", "")
        _into_results(res)
        return 0
    WORK.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="rankboard-load-", dir=WORK))
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    with Server(tmp / "store.duckdb", tmp) as srv:
        raw = asyncio.run(run_load(srv.url, sessions=a.sessions, uploaders=a.uploaders, duration_s=a.duration,
                                   folder=tmp, lost_after=a.lost_after))
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    res = summarise(raw)
    names = stored_runs(tmp / "store.duckdb")
    landed = [u["file"][:-4] for s in raw["sessions"] for u in s["uploads"] if u["ok"]]
    res["uploads_in_store_once"] = all(names.count(n) == 1 for n in landed)
    res.update(loadavg_before=load_before, loadavg_after=load_after, duration_s=a.duration,
               uploaders=a.uploaders, note=a.note, when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               git=_sections().commit(), nproc=os.cpu_count(),
               command=" ".join(["python benchmarks/loadtest.py"] + sys.argv[1:]))
    (WORK / "loadtest.json").write_text(json.dumps({"summary": res, "raw": raw}, indent=1, default=str))
    _into_results(res)
    print(markdown(res))
    return 0


def _into_results(res: dict) -> None:
    """Replace the `loadtest` section of RESULTS.md; every other section stays as it is."""
    _sections().write("loadtest", markdown(res), "benchmarks/loadtest.py")


def _sections():
    """benchmarks/sections.py, imported on use: tests import this module as `benchmarks.loadtest`."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sections
    return sections


def _f(x, fmt="{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def markdown(r: dict) -> str:
    firsts = ", ".join(_f(f, "{:.1f}") for f in r["first_load_s"])
    return "\n".join([
        _sections().heading("Dashboard under load", r["when"], r.get("git", "?")), "",
        f"`{r['command']}`, {r['when']}; load average before {' '.join(r['loadavg_before'])}, "
        f"after {' '.join(r['loadavg_after'])} on {r.get('nproc', 2)} cores"
        + (f" ({r['note']})" if r.get("note") else "") + ".", "",
        "| figure | value | target |", "|---|---|---|",
        f"| sessions (of which uploading) | {r['sessions']} ({r['uploaders']}) | 8 (2) |",
        f"| page visits in {r['duration_s']:.0f} s | {r['page_visits']} | |",
        f"| page time median | {_f(r['page_median_s'])} s | |",
        f"| page time p95 | {_f(r['page_p95_s'])} s | < 3 s |",
        f"| page time max | {_f(r['page_max_s'])} s | |",
        f"| first load, all sessions at once (max) | {_f(r['first_load_max_s'])} s | < 5 s |",
        f"| lost clicks | {r['lost_clicks']} | 0 |",
        f"| uploads landed / tried | {r['uploads_ok']} / {r['uploads']} (each once in the store: "
        f"{r['uploads_in_store_once']}) | all |",
        f"| upload, click to 'Loaded' (median) | {_f(r['upload_median_s'])} s | |",
        f"| exceptions / unexpected errors | {len(r['problems'])} | 0 |", "",
        f"First loads per session (s): {firsts}.", "",
        "Median page time per page (s): " + ", ".join(f"{p} {_f(v)}" for p, v in r["by_page_median_s"].items()) + ".",
        "",
        "How to read it: the server is started for the run on a new store, so the first load includes",
        "creating the store with the sample collection, the first imports and every cold computation;",
        f"the {r['sessions']} chromium tabs run on the same cores as the server and draw every chart. A page time runs",
        "from the click on the sidebar link until the page's heading and charts are drawn and the app is",
        "idle; an upload round trip (Data page, file, Load, 'Loaded ...') is not counted as a page time.",
        ""])


if __name__ == "__main__":
    sys.exit(main())
