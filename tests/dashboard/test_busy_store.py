"""While another process holds the store (a load from the command line), the dashboard draws with the data version it
read last instead of waiting for the load; the new-data notice compares the version hint that stood before that
read, so the load's commit is announced. The plain way (waiting, as every other read does) is what the first read
of a process still does."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from core.store import access as store_access
from dashboard.cache import store as store_resource
from tests.apptest_kit import ROOT
from tests.fixtures_store import sample_store

pytestmark = pytest.mark.xdist_group("apptest")     # Streamlit's resource cache is per process

HOLD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from core.store.store import Store
    store = Store.open({path!r}, load_sample=False)
    with store.transaction() as cur:       # commits, and bumps the data version, when the block ends
        print("held", flush=True)
        sys.stdin.readline()                # until the test says so
    store.close()
""")


@pytest.fixture
def store_env(tmp_path, monkeypatch):
    sample_store(tmp_path).close()
    path = tmp_path / "sample.duckdb"
    monkeypatch.setenv("RANKBOARD_STORE", str(path))
    monkeypatch.setattr(store_resource, "_LAST", {})
    store_resource._open_store.clear()
    yield path
    store_resource.get_store().close()
    store_resource._open_store.clear()


def test_a_page_draws_with_the_last_version_while_a_load_holds_the_store(store_env):
    before = store_resource.data_version()
    hint_before = store_access.read_version_hint(store_env)
    holder = subprocess.Popen([sys.executable, "-c", HOLD.format(root=str(ROOT), path=str(store_env))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert store_resource.data_version() == before         # the load still holds the store: no waiting for it
        assert store_resource.last_seen_hint(store_env) == hint_before
    finally:
        holder.communicate("go\n", timeout=60)
    assert holder.returncode == 0
    assert store_access.read_version_hint(store_env) != hint_before    # the notice will show ...
    assert store_resource.data_version() == before + 1                # ... and the next draw has the load's data


def test_the_first_read_of_a_process_waits_for_the_store(store_env):
    holder = subprocess.Popen([sys.executable, "-c", HOLD.format(root=str(ROOT), path=str(store_env))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        got = []
        reader = threading.Thread(target=lambda: got.append(store_resource.data_version()))
        reader.start()
        reader.join(1.0)
        assert reader.is_alive() and got == []                  # no version seen yet: it waits for the load
    finally:
        holder.communicate("go\n", timeout=60)
    reader.join(60)
    with store_resource.get_store().session() as con:
        committed = con.execute("SELECT value FROM meta WHERE key = 'data_version'").fetchone()[0]
    assert got == [int(committed)]


def _commit(path) -> None:
    """A write from another process: commits, bumps the data version and rewrites the version hint."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\nfrom core.store.store import Store\n"
            f"s = Store.open({str(path)!r}, load_sample=False)\nwith s.transaction() as cur: pass\ns.close()\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_an_unchanged_hint_spares_the_store_and_a_new_one_reads_it(store_env, monkeypatch):
    first = store_resource.data_version()
    asked = []
    real = type(store_resource.get_store()).data_version
    monkeypatch.setattr(type(store_resource.get_store()), "data_version",
                        lambda self, timeout=None: asked.append(1) or real(self, timeout))
    assert [store_resource.data_version() for _ in range(3)] == [first] * 3 and asked == []
    _commit(store_env)
    assert store_resource.data_version() == first + 1 and asked == [1]
    monkeypatch.setattr(store_resource, "HINT_TRUST", 0.0)             # the plain way: ask the store every time
    assert store_resource.data_version() == first + 1 and asked == [1, 1]


def test_the_hint_and_the_plain_way_give_the_same_versions(store_env, monkeypatch):
    seen = {}
    for trust in (store_resource.HINT_TRUST, 0.0):
        monkeypatch.setattr(store_resource, "HINT_TRUST", trust)
        monkeypatch.setattr(store_resource, "_LAST", {})
        got = [store_resource.data_version()]
        for _ in range(2):
            _commit(store_env)
            got += [store_resource.data_version(), store_resource.data_version()]
        seen[trust] = [v - got[0] for v in got]
    assert seen[store_resource.HINT_TRUST] == seen[0.0] == [0, 1, 1, 2, 2]


def test_a_new_hint_while_a_load_holds_the_store_draws_with_the_last_version(store_env):
    before = store_resource.data_version()
    hint_before = store_access.read_version_hint(store_env)
    _commit(store_env)                                                   # the hint changes ...
    holder = subprocess.Popen([sys.executable, "-c", HOLD.format(root=str(ROOT), path=str(store_env))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"                # ... and another load holds the store
        assert store_resource.data_version() == before                   # drawn at once, with the last version
        assert store_resource.last_seen_hint(store_env) == hint_before   # so the notice announces the commit
    finally:
        holder.communicate("go\n", timeout=60)
    assert store_resource.data_version() == before + 2
