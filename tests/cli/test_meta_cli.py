"""`load --system/--version/--timestamp/--meta` and `meta`: a run's lineage and cost from the command line, over
its ir_metadata header; bad values are refused with exact messages (exit 2) before the store changes."""
from __future__ import annotations

import subprocess
import sys

import pytest

from core.store.store import ROOT, Store
from tests.fixtures_store import fresh_store, snapshot

QRELS = b"1 0 d1 1\n1 0 d2 0\n"
RUN = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"
HEADER = b"# ir_metadata.start\n# method:\n#   name: bm25\n# cost:\n#   latency_ms: 12\n# ir_metadata.end\n"


def cli(store, *args):
    return subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "plain.run").write_bytes(RUN)
    (tmp_path / "header.run").write_bytes(HEADER + RUN)
    fresh_store(tmp_path, "s.duckdb").close()
    return tmp_path


def meta_of(path) -> dict:
    with Store.open(path, load_sample=False) as store:
        frame = store.lineage("c").set_index("run")
        return {run: {k: v for k, v in row.items() if k not in ("run_id", "timestamp") and v is not None
                      and v == v} for run, row in frame.to_dict("index").items()}


def test_load_options_describe_the_run_before_them_or_every_run(files):
    store = files / "s.duckdb"
    done = cli(store, "load", "--collection", "c", "--system", "bm25", "--meta", "gpu=T4", "--qrels",
               str(files / "q.txt"), "--run", str(files / "header.run"), "--name", "a", "--version", "v1",
               "--run", str(files / "plain.run"), "--name", "b", "--version", "v2", "--meta", "latency_ms=7.5",
               "--meta", "gpu=", "--timestamp", "2026-11-01T08:00:00Z")
    assert done.returncode == 0, done.stderr
    assert meta_of(store) == {"a": {"system": "bm25", "version": "v1", "latency_ms": 12.0, "gpu": "T4"},
                              "b": {"system": "bm25", "version": "v2", "latency_ms": 7.5}}
    with Store.open(store, load_sample=False) as s:
        assert s.run_meta(2)["timestamp"] == "2026-11-01T08:00:00"


def test_the_header_alone_gives_the_system_and_the_cost(files):
    store = files / "s.duckdb"
    assert cli(store, "load", "--collection", "c", "--run", str(files / "header.run"), "--name", "a").returncode == 0
    assert meta_of(store) == {"a": {"system": "bm25", "latency_ms": 12.0}}


@pytest.mark.parametrize("args, message", [
    (("--meta", "latency_ms=fast"), "error: latency_ms must be a number (mean latency per query, in milliseconds), "
                                    "not 'fast'. Write it as a plain number, e.g. latency_ms=12.5.\n"),
    (("--meta", "latency"), "error: --meta 'latency' is not key=value. Write it as KEY=VALUE, e.g. --meta "
                            "latency_ms=12.5 (an empty value, latency_ms=, removes the key).\n"),
    (("--timestamp", "last week"), "error: timestamp must be an ISO 8601 date or time, not 'last week'. Write it as "
                                   "e.g. timestamp=2026-11-27T09:30:00.\n"),
])
def test_a_bad_value_is_refused_and_nothing_is_loaded(files, args, message):
    store = files / "s.duckdb"
    with Store.open(store, load_sample=False) as s:
        before = snapshot(s)
    done = cli(store, "load", "--collection", "c", "--qrels", str(files / "q.txt"), "--run",
               str(files / "plain.run"), *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    with Store.open(store, load_sample=False) as s:
        assert snapshot(s) == before


def test_a_bad_header_value_refuses_the_whole_load(files):
    store = files / "s.duckdb"
    (files / "bad.run").write_bytes(HEADER.replace(b"latency_ms: 12", b"latency_ms: 12 ms") + RUN)
    with Store.open(store, load_sample=False) as s:
        before = snapshot(s)
    done = cli(store, "load", "--collection", "c", "--run", str(files / "plain.run"), "--run", str(files / "bad.run"))
    assert done.returncode == 2
    assert done.stderr.endswith("error: bad.run: the ir_metadata header's cost.latency_ms is '12 ms', not a number "
                                "(mean latency per query, in milliseconds). Write it as e.g. latency_ms: 12.5.\n"
                                "    '#   latency_ms: 12 ms'\n")
    with Store.open(store, load_sample=False) as s:
        assert snapshot(s) == before


def test_meta_shows_sets_and_removes_keys(files):
    store = files / "s.duckdb"
    cli(store, "load", "--collection", "c", "--run", str(files / "header.run"), "--name", "a")
    shown = cli(store, "meta", "--collection", "c", "a")
    assert (shown.returncode, shown.stdout) == (0, "latency_ms\t12\nsystem\tbm25\n"
                                                   "timestamp\t(not given: the upload time)\n")
    done = cli(store, "meta", "--collection", "c", "1", "version=v3", "latency_ms=", "timestamp=2026-01-02")
    assert (done.returncode, done.stdout) == (0, "Updated the metadata of run '1' in collection 'c'.\n"
                                                 "system\tbm25\ntimestamp\t2026-01-02T00:00:00\nversion\tv3\n")


@pytest.mark.parametrize("args, message", [
    (("a", "energy_kwh=lots"), "error: energy_kwh must be a number (energy used to produce the run, in "
                               "kilowatt-hours), not 'lots'. Write it as a plain number, e.g. energy_kwh=0.8.\n"),
    (("a", "version"), "error: meta 'version' is not key=value. Write it as KEY=VALUE, e.g. latency_ms=12.5 "
                       "(an empty value, latency_ms=, removes the key).\n"),
    (("zz", "version=1"), "error: Collection 'c' has no run 'zz'. Its runs: 'a'. Run `python -m core list "
                          "--collection c` to see them.\n"),
])
def test_meta_refuses_bad_input_without_changing_the_store(files, args, message):
    store = files / "s.duckdb"
    cli(store, "load", "--collection", "c", "--run", str(files / "header.run"), "--name", "a")
    with Store.open(store, load_sample=False) as s:
        before = snapshot(s)
    done = cli(store, "meta", "--collection", "c", *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    with Store.open(store, load_sample=False) as s:
        assert snapshot(s) == before
