"""New runs appear: the Leaderboard's default selection (all runs) stays out of the URL and follows the data, a
picked selection is pinned and is offered the runs loaded after it, and Per-query starts from the Leaderboard's
runs and baseline. The store is written by `python -m core load` in a subprocess, as a pipeline would."""
from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.components.escape import md_format
from tests.apptest_kit import APP, ROOT, TIMEOUT, assert_clean, keyed, open_page, url
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")   # shares Streamlit's caches with the other AppTest modules

SAMPLE_RUNS = ["pircRBa1", "aplrob03a", "UIUC03Rd1", "MU03rob01", "humR03dc"]


def cli_load(store: Path, tmp: Path, *names: str) -> None:
    """Load runs named `names` (a cut of a sample run, re-tagged) into the sample collection from the command line."""
    lines = gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes()).decode().splitlines()[:500]
    files = []
    for name in names:
        files.append(tmp / f"{name}.run")
        files[-1].write_text("".join(" ".join(line.split()[:5] + [name]) + "\n" for line in lines))
    runs = [arg for f in files for arg in ("--run", str(f))]
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection",
                           SAMPLE_COLLECTION, *runs], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def store_file(tmp_path, monkeypatch) -> Path:
    sample_store(tmp_path).close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return tmp_path / "sample.duckdb"


def test_the_default_runs_stay_out_of_the_url_until_picked(app):
    at = app.run()
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == SAMPLE_RUNS
    assert url(at, "runs") == []                       # all runs, the default: not pinned
    assert url(at, "measures")                         # the other settings are in the URL as before
    at.multiselect(key="lb_runs").set_value(["pircRBa1", "aplrob03a"]).run()
    assert_clean(at)
    assert url(at, "runs") == ["pircRBa1", "aplrob03a"]
    at.multiselect(key="lb_runs").set_value(SAMPLE_RUNS).run()   # picked back to all: still the user's pick
    assert url(at, "runs") == SAMPLE_RUNS


def test_runs_loaded_from_the_command_line_join_an_unchanged_view(store_file, tmp_path):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == SAMPLE_RUNS
    cli_load(store_file, tmp_path, "cli-a", "cli-b", "cli-c")
    at.run()                                           # the next interaction (or "Show the new data")
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == SAMPLE_RUNS + ["cli-a", "cli-b", "cli-c"]
    assert url(at, "runs") == []
    assert not keyed_or_none(at, "lb_new_runs")        # nothing to offer: they are shown
    # a reload of the same tab (a new session on the same URL) shows them too
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in at.query_params.items():
        again.query_params[k] = v
    again.run()
    assert again.multiselect(key="lb_runs").value == SAMPLE_RUNS + ["cli-a", "cli-b", "cli-c"]


def keyed_or_none(at, key: str):
    try:
        return keyed(at, key)
    except AssertionError:
        return None


def offered(at) -> str:
    return keyed(at, "lb_new_runs").info[0].value


def test_a_picked_selection_stays_and_is_offered_the_new_runs(store_file, tmp_path):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.multiselect(key="lb_runs").set_value(["pircRBa1", "humR03dc"]).run()
    cli_load(store_file, tmp_path, "cli-late")
    at.run()
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == ["pircRBa1", "humR03dc"]
    assert url(at, "runs") == ["pircRBa1", "humR03dc"]
    assert offered(at) == md_format("New runs in this collection, not among the runs you picked: {}.", "cli-late")
    at.button(key="lb_new_runs_add").click().run()
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == ["pircRBa1", "humR03dc", "cli-late"]
    assert url(at, "runs") == ["pircRBa1", "humR03dc", "cli-late"]
    assert keyed_or_none(at, "lb_new_runs") is None
    # "Not now" stops the offer without adding
    cli_load(store_file, tmp_path, "cli-later")
    at.run()
    assert offered(at) == md_format("New runs in this collection, not among the runs you picked: {}.", "cli-later")
    at.button(key="lb_new_runs_dismiss").click().run()
    assert keyed_or_none(at, "lb_new_runs") is None
    assert "cli-later" not in at.multiselect(key="lb_runs").value
    assert "cli-later" in at.multiselect(key="lb_runs").options


def test_a_link_with_runs_is_pinned(app):
    at = open_page(app, "leaderboard", runs=["humR03dc", "aplrob03a"])
    assert_clean(at)
    assert at.multiselect(key="lb_runs").value == ["humR03dc", "aplrob03a"]
    assert url(at, "runs") == ["humR03dc", "aplrob03a"]
    assert keyed_or_none(at, "lb_new_runs") is None    # the runs it leaves out are not new


def test_copy_link_pins_the_runs_shown(app):
    at = app.run()
    assert url(at, "runs") == []
    at.button(key="sidebar_link").click().run()
    assert_clean(at)
    assert url(at, "runs") == SAMPLE_RUNS
    at.run()
    assert at.multiselect(key="lb_runs").value == SAMPLE_RUNS and url(at, "runs") == SAMPLE_RUNS


def test_per_query_starts_from_the_leaderboards_runs_and_baseline(app):
    at = open_page(app, "perquery")                    # an earlier visit leaves a compared run behind
    assert_clean(at)
    earlier = at.selectbox(key="pq_run").value
    at.switch_page("app_pages/leaderboard.py").run()
    at.multiselect(key="lb_runs").set_value(["humR03dc", "MU03rob01"]).run()
    at.selectbox(key="lb_baseline").set_value("MU03rob01").run()
    assert earlier not in ("humR03dc", "MU03rob01")
    at.switch_page("app_pages/perquery.py").run()
    assert_clean(at)
    assert at.selectbox(key="pq_baseline").value == "MU03rob01"
    assert at.selectbox(key="pq_run").value == "humR03dc"
    # a choice made on Per-query itself stays, even outside the Leaderboard's runs
    at.selectbox(key="pq_run").set_value("pircRBa1").run()
    assert at.selectbox(key="pq_run").value == "pircRBa1"
    assert url(at, "run") == ["pircRBa1"]


def test_per_query_without_a_baseline_compares_the_first_two_picked_runs(app):
    at = app.run()
    at.multiselect(key="lb_runs").set_value(["UIUC03Rd1", "aplrob03a", "humR03dc"]).run()
    at.switch_page("app_pages/perquery.py").run()
    assert_clean(at)
    assert (at.selectbox(key="pq_baseline").value, at.selectbox(key="pq_run").value) == ("UIUC03Rd1", "aplrob03a")


def test_a_click_in_the_topic_table_chooses_its_row():
    import pandas as pd
    from dashboard.components.perquery import clicked_row, marked_rows
    assert clicked_row({"rows": [], "cells": [(3, "text")]}, None) == 3          # a cell: its row
    assert clicked_row({"rows": [3], "cells": [(6, "delta")]}, 3) == 6           # another row's cell, 3 open
    assert clicked_row({"rows": [5], "cells": [(6, "delta")]}, 3) == 5           # another row's checkbox
    assert clicked_row({"rows": [], "cells": []}, 3) is None                     # the open row's checkbox cleared
    diff = pd.DataFrame({"qid": ["10", "7", "301"]})
    assert marked_rows(diff, "301") == {"selection": {"rows": [2], "columns": [], "cells": []}}
    assert marked_rows(diff, None)["selection"]["rows"] == [] == marked_rows(diff, "9")["selection"]["rows"]
