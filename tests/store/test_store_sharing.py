"""Several processes on one store file: they take turns, a writer waits and says so, nobody is refused.

Real processes on real files: a helper process holds the store (a session) while this one, or the command
line, wants it.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from core.store import access as store_access
from core.errors import StoreBusyError
from core.store.store import ROOT, Store
from tests.fixtures_store import fresh_store

HOLD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from core.store.store import Store
s = Store.open(sys.argv[2], load_sample=False, linger=float(sys.argv[4]))
if sys.argv[3] == 'idle':          # a dashboard between two page views: lingering, no session open
    s.collections(); print('open', flush=True); time.sleep(60)
with s.session():
    s.collections(); print('open', flush=True)
    sys.stdin.readline() if sys.argv[3] == 'stdin' else time.sleep(float(sys.argv[3]))
print('released', flush=True)
"""
QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n"
RUN = b"1 Q0 d1 1 2.0 sys\n1 Q0 d2 2 1.0 sys\n2 Q0 d3 1 1.0 sys\n"


def holder(path, seconds, linger=0.0):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(ROOT), str(path), str(seconds), str(linger)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "open"
    return proc


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def store_file(tmp_path):
    path = tmp_path / "shared.duckdb"
    with fresh_store(tmp_path, "shared.duckdb") as store:
        store.add_qrels("c", QRELS, filename="q.txt")
    (tmp_path / "a.run").write_bytes(RUN)
    return path


def test_a_writer_waits_its_turn_says_so_and_then_loads(store_file):
    proc = holder(store_file, "stdin")
    try:
        load = subprocess.Popen([sys.executable, "-m", "core", "--store", str(store_file), "load", "--collection",
                                 "c", "--run", str(store_file.parent / "a.run")], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert load.stderr.readline() == "waiting for the store (another process is using it)...\n"
        time.sleep(0.5)
        assert load.poll() is None                      # still waiting, not refused
        proc.stdin.write("go\n")
        proc.stdin.flush()
        _, err = load.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert load.returncode == 0, err
    with Store.open(store_file) as store:
        assert list(store.runs("c").name) == ["sys"]


def test_a_wait_that_runs_out_is_a_clear_error_and_changes_nothing(store_file):
    proc = holder(store_file, 30.0)
    try:
        out = cli("--store", str(store_file), "--wait", "1", "load", "--collection", "c",
                  "--run", str(store_file.parent / "a.run"))
        with pytest.raises(StoreBusyError, match="the store stayed busy for 1 s .*--wait SECONDS"):
            Store.open(store_file, wait=1.0)
    finally:
        proc.kill()
        proc.wait()
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().endswith("error: shared.duckdb: the store stayed busy for 1 s (another process is "
                                       "using it), so nothing was done. Try again, or wait longer with --wait "
                                       "SECONDS (or RANKBOARD_WAIT).")
    with Store.open(store_file) as store:
        assert store.runs("c").empty


def test_an_idle_lingering_holder_lets_go_as_soon_as_another_process_waits(store_file):
    """A dashboard keeps the file between page views (linger) but gives it up when someone else waits."""
    proc = holder(store_file, "idle", linger=600.0)
    try:
        start = time.monotonic()
        out = cli("--store", str(store_file), "list")
        took = time.monotonic() - start
    finally:
        proc.kill()
        proc.wait()
    assert out.returncode == 0 and "c (id 1)" in out.stdout
    assert took < 30          # not the 600 s linger


def test_a_busy_process_does_not_starve_a_writer(store_file):
    """Overlapping sessions in this process (the dashboard's sessions) never leave the store free; a loader
    from another process still gets its turn, because new sessions queue behind a waiter."""
    store = Store.open(store_file, linger=600.0)
    stop = threading.Event()
    errors = []

    def reader():
        while not stop.is_set():
            try:
                with store.session():
                    store.runs("c")
                    time.sleep(0.05)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    [t.start() for t in threads]
    try:
        out = cli("--store", str(store_file), "--wait", "60", "load", "--collection", "c",
                  "--run", str(store_file.parent / "a.run"))
    finally:
        stop.set()
        [t.join() for t in threads]
    assert out.returncode == 0, out.stderr
    assert errors == []
    assert list(store.runs("c").name) == ["sys"]     # this process sees the other's run at once
    store.close()


def test_two_loads_at_once_both_land(store_file):
    runs = []
    for i in range(2):
        path = store_file.parent / f"r{i}.run"
        path.write_bytes(RUN.replace(b"sys", f"sys{i}".encode()))
        runs.append(path)
    procs = [subprocess.Popen([sys.executable, "-m", "core", "--store", str(store_file), "load", "--collection", "c",
                               "--run", str(p)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in runs]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    with Store.open(store_file) as store:
        assert sorted(store.runs("c").name) == ["sys0", "sys1"]


def test_data_version_counts_committed_writes_but_not_the_results_cache(tmp_path):
    from core.service.evaluate import evaluate_stored
    with fresh_store(tmp_path) as store:
        v0, hint0 = store.data_version(), store_access.read_version_hint(store.path)
        store.add_qrels("c", QRELS, filename="q.txt")
        v1, hint1 = store.data_version(), store_access.read_version_hint(store.path)
        assert v1 == v0 + 1 and hint1 != hint0
        run_id = store.add_run("c", RUN, filename="a.run").id
        assert store.data_version() == v1 + 1
        evaluate_stored(store, "c", [run_id], ["AP"])          # fills the results cache: same data version
        assert store.data_version() == v1 + 1
        with pytest.raises(Exception):
            with store.transaction() as cur:                    # a failed write does not count
                cur.execute("DELETE FROM runs").fetchall()
                raise RuntimeError("boom")
        assert store.data_version() == v1 + 1
        store.rename_run(run_id, "renamed")
        store.delete_run(run_id)
        assert store.data_version() == v1 + 3


def test_a_cursor_holds_the_store_until_it_is_closed(store_file):
    store = Store.open(store_file)
    cur = store.cursor()
    assert cur.execute("SELECT count(*) FROM collections").fetchall() == [(1,)]
    out = cli("--store", str(store_file), "--wait", "0.5", "list")
    assert out.returncode == 2 and "stayed busy" in out.stderr
    cur.close()
    assert cli("--store", str(store_file), "list").returncode == 0
