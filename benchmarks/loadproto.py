"""The dashboard server's own speed under a team's load, with no browser drawing: N protocol sessions speak
Streamlit's websocket protocol to the server while 2 command-line loads write to the same store.

    flock /tmp/rankboard-bench.lock python benchmarks/loadproto.py --sessions 8 16 32 --loads 2 --duration 120

For each number of sessions, on a new server and a new store (the sample collection is loaded on first start):
- warm-up: one session visits the four pages once (cold imports and computations; reported apart);
- then all N sessions connect at once. Each opens Streamlit's websocket (`/_stcore/stream`), asks for the
  Leaderboard with a permalink's query string (`?collection=...`), and waits for the script run to finish: that
  is its first view. It then asks for Per-query, Curves, Agreement and the Leaderboard in turn, each time as a
  browser does on a click in the sidebar (a `rerun_script` message naming the page), waits a while (drawn
  uniformly from `--think` ± `--think-spread` seconds, by a generator seeded with the session's number), and asks
  for the next, until `--duration` seconds have passed. People do not click in step; with `--think-spread 0`
  every session waits exactly `--think` seconds, so the sessions that opened together stay in step and every
  round of requests reaches the server at once (the worst case; `--in-step N` adds such a row for N sessions);
- meanwhile `--loads` threads each run `python -m core load` of a sample run under a new name, wait
  `--load-pause` seconds, and load again.

Reported, per number of sessions: the page time seen by the sessions (request sent to `script_finished`), the
server's own time per script run from its $RANKBOARD_TIMING_LOG, first views, lost requests (no answer within
`--lost-after`), exceptions and "unexpected error" boxes in any answer, and whether every CLI load landed once.
Writes benchmarks/work/loadproto.json and the `loadproto` section of RESULTS.md, with the load average.
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import loadtest  # noqa: E402  (its Server, sample run and collection)
import sections  # noqa: E402

PAGES = ("per-query", "curves", "agreement", "")          # url paths; "" is the landing page, the Leaderboard
QUERY = f"collection={loadtest.COLLECTION}"
FINISHED = 0                                               # ForwardMsg.script_finished FINISHED_SUCCESSFULLY


async def request(ws, page: str, timeout_s: float) -> tuple[float | None, list[str]]:
    """Ask for `page` as a click in the sidebar does; wait until its script run finishes. Returns the seconds (None
    when no answer came within timeout_s) and the problems seen in the answer."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    msg = BackMsg()
    msg.rerun_script.query_string, msg.rerun_script.page_name = QUERY, page
    t0, problems = time.monotonic(), []
    await ws.write_message(msg.SerializeToString(), binary=True)
    deadline = t0 + timeout_s
    while True:
        try:
            raw = await asyncio.wait_for(ws.read_message(), max(0.01, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            return None, problems
        if raw is None:
            return None, problems + ["websocket closed"]
        fwd = ForwardMsg()
        fwd.ParseFromString(raw)
        kind = fwd.WhichOneof("type")
        if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
            element = fwd.delta.new_element
            what = element.WhichOneof("type")
            if what == "exception":
                problems.append(f"exception: {element.exception.message[:200]}")
            elif what == "alert" and ("Unexpected error" in element.alert.body
                                      or "Something went wrong" in element.alert.body):
                problems.append(f"error: {element.alert.body[:200]}")
        elif kind == "script_finished" and fwd.script_finished == FINISHED:
            return time.monotonic() - t0, problems


async def session(i: int, url: str, *, start: asyncio.Event, clock: dict, think: float, spread: float,
                  lost_after: float, out: list, pages=PAGES) -> None:
    from tornado.websocket import websocket_connect
    pause = random.Random(i)
    rec = {"session": i, "first_view_s": None, "visits": [], "lost": [], "problems": []}
    out.append(rec)
    await start.wait()
    t0 = time.monotonic()
    ws = await websocket_connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"])
    seconds, problems = await request(ws, "", lost_after)
    rec["first_view_s"] = None if seconds is None else time.monotonic() - t0
    rec["problems"] += problems
    n = 0
    while time.monotonic() < clock["stop_at"]:
        await asyncio.sleep(pause.uniform(think - spread, think + spread))
        page = pages[n % len(pages)]
        n += 1
        seconds, problems = await request(ws, page, lost_after)
        rec["problems"] += problems
        if seconds is None:
            rec["lost"].append(page or "leaderboard")
        else:
            rec["visits"].append({"page": page or "leaderboard", "s": seconds})
    ws.close()


def drive(url: str, *, sessions: int, duration_s: float, think: float, spread: float,
          lost_after: float) -> list[dict]:
    async def main() -> list[dict]:
        out: list = []
        clock = {"stop_at": float("inf")}
        start = asyncio.Event()
        tasks = [asyncio.create_task(session(i, url, start=start, clock=clock, think=think, spread=spread,
                                             lost_after=lost_after, out=out)) for i in range(sessions)]
        await asyncio.sleep(0.2)
        clock["stop_at"] = time.monotonic() + duration_s
        start.set()
        await asyncio.gather(*tasks)
        return out
    return asyncio.run(main())


def warm_up(url: str, lost_after: float) -> list[float | None]:
    async def main():
        from tornado.websocket import websocket_connect
        ws = await websocket_connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"])
        times = [(await request(ws, page, lost_after))[0] for page in ("",) + PAGES]
        ws.close()
        return times
    return asyncio.run(main())


class Loads:
    """`n` threads, each running `python -m core load` of the sample run under a new name, then waiting `pause`
    seconds, until stopped."""

    def __init__(self, n: int, store: Path, folder: Path, pause: float):
        self.n, self.store, self.folder, self.pause = n, store, folder, pause
        self.done: list[dict] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop, args=(j,), daemon=True) for j in range(n)]

    def _loop(self, j: int) -> None:
        text = gzip.decompress(loadtest.SAMPLE_RUN.read_bytes()).decode()
        k = 0
        while not self.stop.is_set():
            k += 1
            name = f"proto_l{j}_{k}"
            path = self.folder / f"{name}.run"
            path.write_text(re.sub(r"\S+$", name, text, flags=re.M))
            t = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "core", "--store", str(self.store), "load", "--collection",
                                   loadtest.COLLECTION, "--run", str(path)], cwd=ROOT, capture_output=True, text=True)
            self.done.append({"name": name, "rc": proc.returncode, "s": time.monotonic() - t,
                              "stderr": proc.stderr[-300:]})
            self.stop.wait(self.pause)

    def __enter__(self) -> "Loads":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


def _q(values: list[float], p: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def server_times(log: Path, since: float) -> list[dict]:
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [r for r in rows if r["at"] >= since]


def one_level(sessions: int, *, loads: int, duration: float, think: float, spread: float, lost_after: float,
              load_pause: float, folder: Path) -> dict:
    """One row: a new server and store in `folder`, the warm-up, then `sessions` sessions and `loads` loads."""
    log = folder / "timing.jsonl"
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    os.environ["RANKBOARD_TIMING_LOG"] = str(log)      # the server inherits it
    try:
        with loadtest.Server(folder / "store.duckdb", folder) as srv:
            warm = warm_up(srv.url, lost_after)
            since = time.time()
            with Loads(loads, folder / "store.duckdb", folder, load_pause) as writers:
                raw = drive(srv.url, sessions=sessions, duration_s=duration, think=think, spread=spread,
                            lost_after=lost_after)
    finally:
        del os.environ["RANKBOARD_TIMING_LOG"]
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    names = loadtest.stored_runs(folder / "store.duckdb")
    landed = [d["name"] for d in writers.done if d["rc"] == 0]
    server = [r["seconds"] for r in server_times(log, since) if r["end"] in ("done", "stop")]
    visits = [v["s"] for s in raw for v in s["visits"]]
    firsts = [s["first_view_s"] for s in raw]
    return {"sessions": sessions, "spread": spread, "loadavg_before": load_before, "loadavg_after": load_after,
            "warm_up_s": warm, "requests": len(visits), "page_median_s": _q(visits, 50), "page_p95_s": _q(visits, 95),
            "server_runs": len(server), "server_median_s": _q(server, 50), "server_p95_s": _q(server, 95),
            "server_max_s": max(server, default=None),
            "first_view_median_s": _q([f for f in firsts if f is not None], 50),
            "first_view_max_s": max((f for f in firsts if f is not None), default=None),
            "first_views_missing": sum(f is None for f in firsts),
            "lost": sum(len(s["lost"]) for s in raw), "problems": [p for s in raw for p in s["problems"]],
            "loads": len(writers.done), "loads_ok": len(landed),
            "load_median_s": _q([d["s"] for d in writers.done], 50),
            "load_errors": [d["stderr"] for d in writers.done if d["rc"] != 0][:3],
            "loads_in_store_once": all(names.count(n) == 1 for n in landed)}


def _wait(res: dict) -> str:
    spread = res.get("think_spread", 0.0)
    text = (f"{res['think'] - spread:g} to {res['think'] + spread:g} s between requests, drawn at random (a person "
            "reading the page)" if spread else
            f"exactly {res['think']:g} s between requests (a person reading the page)")
    if spread and any(not r.get("spread", spread) for r in res["levels"]):
        text += (f"; in the rows marked *in step*, exactly {res['think']:g} s, so the sessions stay in step and each "
                 "round of requests reaches the server at once (the worst case)")
    return text


def _f(x, fmt="{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def markdown(res: dict) -> str:
    rows = [sections.heading("Dashboard server under a team's load (protocol sessions)", res["when"], res["git"]), "",
            f"`{res['command']}`, {res['when']}, {res.get('nproc', 2)} cores. Each session waits {_wait(res)}; "
            f"{res['loads']} `python -m core load` processes run "
            f"throughout, each loading a sample run under a new name every {res['load_pause']:.0f} s after the last; {res['duration_s']:.0f} s per row, a new server and store per row.", "",
            "| sessions | load avg before / after | requests | page median | page p95 | server p95 (max) | "
            "first view median / max | lost | problems | CLI loads landed once |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["levels"]:
        step = "" if r.get("spread", res.get("think_spread", 0.0)) else ", *in step*"
        rows.append(
            f"| {r['sessions']}{step} | {r['loadavg_before'][0]} / {r['loadavg_after'][0]} | {r['requests']} | "
            f"{_f(r['page_median_s'])} s | {_f(r['page_p95_s'])} s | {_f(r['server_p95_s'])} s "
            f"({_f(r['server_max_s'])} s) | {_f(r['first_view_median_s'])} / {_f(r['first_view_max_s'])} s | "
            f"{r['lost']} | {len(r['problems'])} | {r['loads_ok']}/{r['loads']} ({r['loads_in_store_once']}) |")
    warm = res["levels"][0]["warm_up_s"]
    rows += ["", "Targets for 16 sessions: server p95 under 1.5 s, first view under 3 s; no lost request, no problem, "
             "every load landed once.", "",
             "How to read it: a page time runs from the request to Streamlit's `script_finished`, as the session sees "
             "it; the server p95 is the script runs' own time from `RANKBOARD_TIMING_LOG` (every session's runs "
             "during the row). No browser draws anything, so the figures are the server's share of what a person "
             "waits for; the browser's own drawing comes on top, on the person's laptop. First views are those of "
             "the N sessions opening at once on a server that has served one visit of each page (the warm-up: "
             f"{', '.join(_f(w) for w in warm)} s for Leaderboard, Per-query, Curves, Agreement and Leaderboard "
             "on the first row's new server). The 8-browser figures of `loadtest.py` (section above) measure "
             "mostly the 8 chromium tabs that share the server's 2 cores.", ""]
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[8, 16, 32])
    ap.add_argument("--loads", type=int, default=2)
    ap.add_argument("--duration", type=float, default=120.0, help="seconds of requests per number of sessions")
    ap.add_argument("--think", type=float, default=2.0, help="mean seconds a session waits between two requests")
    ap.add_argument("--think-spread", type=float, default=1.0,
                    help="each wait is drawn uniformly from think ± this; 0: every session waits exactly --think "
                         "seconds, in step with the others")
    ap.add_argument("--in-step", type=int, nargs="*", default=[],
                    help="also these numbers of sessions with --think-spread 0, after the others")
    ap.add_argument("--keep", action="store_true", help="keep each row's folder (store, timing log, server log)")
    ap.add_argument("--lost-after", type=float, default=60.0)
    ap.add_argument("--load-pause", type=float, default=5.0, help="seconds each load process waits between loads")
    ap.add_argument("--no-results", action="store_true", help="print, but do not write RESULTS.md")
    a = ap.parse_args()
    if not 0 <= a.think_spread <= a.think:
        ap.error("--think-spread must be between 0 and --think")
    WORK.mkdir(exist_ok=True)
    levels = []
    for n, spread in [(n, a.think_spread) for n in a.sessions] + [(n, 0.0) for n in a.in_step]:
        folder = Path(tempfile.mkdtemp(prefix="rankboard-proto-", dir=WORK))
        try:
            levels.append(one_level(n, loads=a.loads, duration=a.duration, think=a.think, spread=spread,
                                    lost_after=a.lost_after, load_pause=a.load_pause, folder=folder))
        finally:
            if not a.keep:
                shutil.rmtree(folder, ignore_errors=True)
        print(json.dumps(levels[-1]), flush=True)
    res = {"levels": levels, "think": a.think, "think_spread": a.think_spread, "loads": a.loads,
           "load_pause": a.load_pause, "duration_s": a.duration,
           "nproc": os.cpu_count(),
           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "git": sections.commit(),
           "command": " ".join(["python benchmarks/loadproto.py"] + sys.argv[1:])}
    (WORK / "loadproto.json").write_text(json.dumps(res, indent=1))
    text = markdown(res)
    if not a.no_results:
        sections.write("loadproto", text, "benchmarks/loadproto.py")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
