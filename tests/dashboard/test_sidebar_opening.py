"""A new session opens on the user's most recently changed collection, also when another
process (the command line) made the change while the dashboard's process had the catalogue cached.

The choice itself (`opening_collection`) over core's catalogue, then the app: one AppTest session caches the
catalogue, `python -m core load` writes a new collection from a subprocess, and a new session opens on it.
"""
from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.store.store import sample_names
from dashboard.components.sidebar import opening_collection
from tests.apptest_kit import APP, ROOT, TIMEOUT, assert_clean
from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

pytestmark = pytest.mark.xdist_group("apptest")   # shares Streamlit's caches with the other AppTest modules


def _frame(rows):
    return pd.DataFrame(rows, columns=["collection_id", "name", "changed_at"]).assign(
        changed_at=lambda f: pd.to_datetime(f["changed_at"]))


def test_the_choice_prefers_the_newest_own_collection_over_the_samples():
    samples = {"robust03-sample", "dl23-llmjudge"}
    only = _frame([(1, "robust03-sample", "2026-01-01 10:00"), (2, "dl23-llmjudge", "2026-01-01 10:00")])
    assert opening_collection(only, samples) == "robust03-sample"
    mine = pd.concat([only, _frame([(3, "old", "2026-01-02 00:00"), (4, "new", "2026-01-03 00:00"), (5, "mid", "2026-01-02 12:00")])])
    assert opening_collection(mine.reset_index(drop=True), samples) == "new"
    # a sample changed later than the user's collections does not take the session over
    later = mine.reset_index(drop=True).assign(changed_at=lambda f: f["changed_at"].where(
        f["name"] != "robust03-sample", pd.Timestamp("2026-02-01")))
    assert opening_collection(later, samples) == "new"
    assert opening_collection(only.iloc[:0], samples) is None


def _cli_load(store: Path, collection: str, tmp: Path, name: str) -> None:
    lines = gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes()).decode().splitlines()[:500]
    run = tmp / f"{name}.run"
    run.write_text("".join(" ".join(line.split()[:5] + [name]) + "\n" for line in lines))
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", collection,
                           "--run", str(run)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_core_catalogue_sees_a_collection_loaded_by_another_process(tmp_path):
    store = sample_store(tmp_path)
    try:
        assert opening_collection(store.collections(), sample_names()) == SAMPLE_COLLECTION
        _cli_load(store.path, "mine", tmp_path, "cli-a")
        _cli_load(store.path, SAMPLE_COLLECTION, tmp_path, "cli-b")      # a later load into a sample
        assert opening_collection(store.collections(), sample_names()) == "mine"
        _cli_load(store.path, "newer", tmp_path, "cli-c")
        assert opening_collection(store.collections(), sample_names()) == "newer"
    finally:
        store.close()


def test_a_new_session_opens_on_a_collection_the_command_line_just_loaded(tmp_path, monkeypatch):
    sample_store(tmp_path).close()
    store = tmp_path / "sample.duckdb"
    monkeypatch.setenv("RANKBOARD_STORE", str(store))
    first = AppTest.from_file(APP, default_timeout=TIMEOUT).run()     # caches this store's catalogue
    assert_clean(first)
    assert first.selectbox(key="sidebar_collection").value == SAMPLE_COLLECTION
    _cli_load(store, "from-cli", tmp_path, "cli-a")                    # another process writes meanwhile
    second = AppTest.from_file(APP, default_timeout=TIMEOUT).run()    # a new session, same server process
    assert_clean(second)
    assert second.selectbox(key="sidebar_collection").value == "from-cli"
    assert "from-cli" in second.selectbox(key="sidebar_collection").options
    assert first.run().selectbox(key="sidebar_collection").value == SAMPLE_COLLECTION   # an open session stays
