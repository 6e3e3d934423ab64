"""The CI version of benchmarks/loadproto.py: 3 protocol sessions (Streamlit's websocket, no browser) ask for the
four pages in turn for 20 s while one `python -m core load` process writes new runs to the same store.
Correctness only, never time: every request is answered, no answer holds an exception or an "unexpected error" box,
the server's timing log has a line for every script run, and every load landed once."""
from __future__ import annotations

import pytest

from benchmarks.loadproto import one_level

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("e2e")]   # a server test: with the e2e ones


def test_three_protocol_sessions_while_a_load_writes(tmp_path):
    res = one_level(3, loads=1, duration=20, think=0.5, spread=0.25, lost_after=300, load_pause=1, folder=tmp_path)
    assert res["problems"] == [] and res["lost"] == 0 and res["first_views_missing"] == 0
    assert res["requests"] >= 3 * 4, res
    assert None not in res["warm_up_s"]
    assert res["loads"] >= 1 and res["loads_ok"] == res["loads"] and res["loads_in_store_once"], res["load_errors"]
    # the warm-up's 5 runs, each session's first view and its requests, each with a line from the server
    assert res["server_runs"] >= res["requests"] + 3
