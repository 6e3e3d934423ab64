"""The CI version of the dashboard load test (benchmarks/loadtest.py): 3 browser sessions click through
Leaderboard, Per-query, Curves and Agreement at once, for 30 s and at least two
rounds each, while one of them uploads a run per round.
Correctness only, never time: every click arrives, every upload lands exactly once, nobody sees an
exception or an "Unexpected error"."""
from __future__ import annotations

import asyncio

import pytest

from benchmarks.loadtest import run_load, stored_runs, summarise

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("e2e")]


def test_three_sessions_click_through_while_one_uploads(server, tmp_path):
    raw = asyncio.run(run_load(server.url, sessions=3, uploaders=1, duration_s=30, folder=tmp_path,
                               lost_after=300, min_rounds=2))
    res = summarise(raw)
    assert res["problems"] == []
    assert res["lost_clicks"] == 0, [s["lost"] for s in raw["sessions"]]
    assert res["first_loads_missing"] == 0
    assert res["page_visits"] == sum(len(s["visits"]) for s in raw["sessions"]) >= 3 * 2 * 4
    landed = [u["file"][:-4] for s in raw["sessions"] for u in s["uploads"]]
    assert res["uploads"] >= 1 and res["uploads_ok"] == res["uploads"], raw["sessions"][0]["uploads"]
    server.stop()       # this module's own server: the store file is read once it has let go of it
    names = stored_runs(server.store)
    assert all(names.count(n) == 1 for n in landed), (landed, names)
