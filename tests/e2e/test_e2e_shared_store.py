"""The dashboard, the command line and scripts share one store.

A real `streamlit run` serves the store with a real browser session open on it while the command line
loads, lists, runs two loads at once and is killed (SIGKILL) in the middle of a 3M-line load; this test
process meanwhile uses the Python API on the same file. After each step every run is present exactly once
and evaluates to the values it had. Then the open session sees a run loaded from the command line.
"""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.store.store import Store

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("e2e-store")]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "robust03-sample"
MEASURES = ["AP", "nDCG@10", "P@10"]


def cli(store: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def run_file(tmp: Path, name: str, topics: int = 20) -> Path:
    """A sample run cut to `topics` topics, tagged `name` (so it loads as a new run of the sample)."""
    lines = gzip.decompress((ROOT / "data/runs/input.pircRBa1.gz").read_bytes()).decode().splitlines()
    keep = list(dict.fromkeys(line.split()[0] for line in lines))[:topics]
    body = "".join(" ".join(line.split()[:5] + [name]) + "\n" for line in lines if line.split()[0] in keep)
    path = tmp / f"{name}.run"
    path.write_text(body)
    return path


def state(store_path: Path) -> tuple[dict, dict]:
    """({(collection, run name): n_rows}, {run name: {measure: mean}} of the sample), read through the Python
    API while the dashboard serves; every derived row belongs to a run (no partial run anywhere)."""
    store = Store.open(store_path, load_sample=False)
    try:
        with store.session() as con:
            runs = con.execute("SELECT c.name, r.name, r.n_rows, (SELECT count(*) FROM run_docs d "
                               "WHERE d.run_id = r.run_id) FROM runs r JOIN collections c USING (collection_id)"
                               ).fetchall()
            assert all(n == stored for _, _, n, stored in runs), runs
            names = [(c, r) for c, r, _, _ in runs]
            assert len(names) == len(set(names)), f"a run is present twice: {names}"
            for table in ("run_docs", "run_topics", "judged_rows", "results"):
                orphans = con.execute(f"SELECT count(*) FROM {table} WHERE run_id NOT IN "
                                      "(SELECT run_id FROM runs)").fetchall()[0][0]
                assert orphans == 0, f"{orphans} rows of {table} belong to no run"
            with store.transaction(bump=False) as cur:        # evaluate afresh, not from the results cache
                cur.execute("DELETE FROM results").fetchall()
        from core.service.evaluate import evaluate_stored
        ids = store.runs(SAMPLE)["run_id"].tolist()
        summary = evaluate_stored(store, SAMPLE, ids, MEASURES).summary
        values = {run: dict(zip(g["measure"], g["value"].round(12))) for run, g in summary.groupby("run")}
        return {(c, r): n for c, r, n, _ in runs}, values
    finally:
        store.close()


@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> Path:
    """A ~3M-line run (3,000 topics x 1,000 documents, a few topics missing) from the benchmark generator."""
    out = tmp_path_factory.mktemp("big")
    subprocess.run([sys.executable, "benchmarks/generate.py", "--topics", "3000", "--out", str(out)], cwd=ROOT,
                   check=True, capture_output=True, timeout=300)
    return out / "run00.txt"


def test_cli_and_api_share_the_store_with_an_open_dashboard(app, server, tmp_path, big_run, new_context):
    app.goto("/")                                   # a real browser session on the leaderboard
    app.assert_healthy()
    store = server.store
    n_big = sum(1 for _ in big_run.open("rb"))
    assert n_big > 2_900_000
    runs, values = state(store)
    assert sum(c == SAMPLE for c, _ in runs) == 5 and len(values) == 5     # beside the judges sample's runs

    listed = cli(store, "list")
    assert listed.returncode == 0, listed.stderr
    assert "robust03-sample (id 1)" in listed.stdout and "humR03dc" in listed.stdout

    one = cli(store, "load", "--collection", SAMPLE, "--run", str(run_file(tmp_path, "cli-one")))
    assert one.returncode == 0, one.stderr
    runs2, values2 = state(store)
    assert runs2 == {**runs, (SAMPLE, "cli-one"): 2_000}
    assert {k: values2[k] for k in values} == values

    # two loads at once: both land, each once
    procs = [subprocess.Popen([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", SAMPLE,
                               "--run", str(run_file(tmp_path, name))], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for name in ("cli-two", "cli-three")]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    runs3, values3 = state(store)
    assert runs3 == {**runs2, (SAMPLE, "cli-two"): 2_000, (SAMPLE, "cli-three"): 2_000}
    assert {k: values3[k] for k in values2} == values2

    # kill -9 at several moments of a 3M-line load (parsing, waiting, inserting, committing): nothing changes
    app.goto("/")                                   # the dashboard is busy meanwhile
    for delay in (0.5, 1.5, 2.5, 3.5, 5.0):
        load = subprocess.Popen([sys.executable, "-m", "core", "--store", str(store), "load", "--collection", "big",
                                 "--run", str(big_run), "--name", "big"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        time.sleep(delay)
        finished = load.poll() is not None
        if not finished:
            os.killpg(load.pid, signal.SIGKILL)
        load.wait(timeout=60)
        after, after_values = state(store)
        # the machine was quick: the load committed before this kill (it may not have exited yet, so poll()
        # can still say it runs). A kill leaves either nothing or the whole run, never part of it.
        if finished or ("big", "big") in after:
            assert after == {**runs3, ("big", "big"): n_big}
            cli(store, "load", "--collection", "big", "--run", str(big_run), "--name", "big",
                "--on-conflict", "replace")
            break
        assert after == runs3, f"kill after {delay} s left {set(after) ^ set(runs3)}"
        assert after_values == values3
    done = cli(store, "load", "--collection", "big", "--run", str(big_run), "--name", "big", "--on-conflict",
               "replace")
    assert done.returncode == 0, done.stderr
    final, final_values = state(store)
    assert final == {**runs3, ("big", "big"): n_big}
    assert final_values == values3
    app.assert_healthy()
    # a new session opens on the most recently changed collection of the user's: 'big', loaded from the CLI
    fresh = app.reopen(new_context(), f"{server.url}/data", "_new_session")
    assert fresh.settled(lambda: fresh.selected("sidebar_collection"), "big") == "big"
    fresh.assert_healthy()


def test_an_open_session_sees_a_run_loaded_from_the_command_line(app, server, tmp_path, new_context):
    from tests.e2e.conftest import run_names_on_data_page

    app.goto("/data")       # run alone, this first page creates the store (with the samples)
    # A new session opens on the user's most recently changed collection: here one the command line creates now.
    # (This test used to rely on 'big' from the test above; run alone, or after that test failed before loading
    # it, the store held no collection of the user's and the page rightly opened on the sample.)
    made = cli(server.store, "load", "--collection", "from-cli", "--run", str(run_file(tmp_path, "cli-new", 5)))
    assert made.returncode == 0, made.stderr
    fresh = app.reopen(new_context(), f"{server.url}/data", "_new_session")
    assert fresh.settled(lambda: fresh.selected("sidebar_collection"), "from-cli") == "from-cli"
    app.goto(f"/data?collection={SAMPLE}")
    before = run_names_on_data_page(app)
    assert "cli-late" not in before
    loaded = cli(server.store, "load", "--collection", SAMPLE, "--run", str(run_file(tmp_path, "cli-late")))
    assert loaded.returncode == 0, loaded.stderr
    notice = app.page.get_by_test_id("stAlert").filter(has_text="New data in the store")
    expect(notice).to_be_visible(timeout=30_000)        # without any click: the page noticed by itself
    app.shot("new_data_notice")
    app.rerun_after(lambda: app.page.get_by_role("button", name="Show the new data").click())
    after = run_names_on_data_page(app)
    assert sorted(after) == sorted(before + ["cli-late"]), after
    expect(notice).to_have_count(0)
    app.shot("new_run_listed")
    app.assert_healthy()
