"""core/store/lineage.py and the schema 4 -> 5 upgrade: run_meta filled from headers and load options, read as
`Store.lineage(collection)` in version order, edited in one transaction, and a bad value leaves the store unchanged."""
from __future__ import annotations

import json
from datetime import datetime

import duckdb
import pandas as pd
import pytest

from core.errors import EvalError, OptionError, UploadError
from core.store import Store, natural_key, order_versions
from core.store.schema import SCHEMA_VERSION
from tests.fixtures_store import fresh_store, snapshot

RUN = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"


def header(**fields) -> bytes:
    lines = ["# ir_metadata.start"] + [f"# {k}: {v}" for k, v in fields.items()] + ["# ir_metadata.end"]
    return ("\n".join(lines) + "\n").encode() + RUN


def test_loading_stores_the_header_and_the_given_values_over_it(tmp_path):
    with fresh_store(tmp_path) as store:
        a = store.add_run("c", header(system="bm25", version="v1", latency_ms=12), filename="a", name="a").id
        b = store.add_run("c", header(system="bm25", latency_ms=12), filename="b", name="b",
                          meta={"version": "v2", "latency_ms": "9", "gpu": "A100"}).id
        c = store.add_run("c", RUN, filename="c", name="c").id
        assert store.run_meta(a) == {"latency_ms": "12", "system": "bm25", "version": "v1"}
        assert store.run_meta(b) == {"gpu": "A100", "latency_ms": "9", "system": "bm25", "version": "v2"}
        assert store.run_meta(c) == {}
        got = store.lineage("c")
        assert list(got.columns) == ["run_id", "run", "system", "version", "timestamp", "latency_ms", "gpu"]
        assert list(got["run"]) == ["a", "b", "c"]                # same timestamp: v1 < v2; no system last
        assert got["latency_ms"].tolist()[:2] == [12.0, 9.0] and pd.isna(got["latency_ms"].iat[2])
        assert got["version"].tolist() == ["v1", "v2", None] and got["gpu"].tolist() == [None, "A100", None]
        uploaded = store.runs("c").set_index("run_id")["uploaded_at"]             # the server's local time
        local = datetime.now().astimezone().tzinfo
        in_utc = uploaded.dt.tz_localize(local).dt.tz_convert("UTC").dt.tz_localize(None)
        assert (got.set_index("run_id")["timestamp"] == in_utc).all()      # no timestamp: the upload time, in UTC


def test_versions_are_ordered_by_timestamp_then_natural_version(tmp_path):
    with fresh_store(tmp_path) as store:
        same = "2026-06-01T12:00:00"
        for name, version, when in (("r10", "v10", None), ("r2", "v2", same), ("old", "v99", "2020-01-01"),
                                    ("r1.9", "1.9", same), ("r1.10", "1.10", same)):
            meta = {"system": "s", "version": version} | ({"timestamp": when} if when else {})
            store.add_run("c", RUN, filename=name, name=name, meta=meta)
        store.set_run_meta(1, {"timestamp": "2026-01-01T00:00:00"})           # r10, later than 'old'
        got = store.lineage("c")
        # 'old' first by its timestamp, then r10, then the three of one time in the natural order of version
        assert list(got["run"]) == ["old", "r10", "r1.9", "r1.10", "r2"]
        assert got["timestamp"].iat[0] == pd.Timestamp("2020-01-01")


def test_natural_key_orders_numbers_by_value():
    versions = ["v10", "v2", "1.10", "1.9", "b", "a", None, "v2a"]
    assert sorted(versions, key=natural_key) == ["1.9", "1.10", "a", "b", "v2", "v2a", "v10", None]


def test_order_versions_puts_runs_without_a_system_last():
    frame = pd.DataFrame({"run_id": [1, 2, 3], "system": [None, "b", "a"], "version": ["1", "1", "1"],
                          "timestamp": pd.to_datetime(["2026-01-01"] * 3)})
    assert order_versions(frame)["run_id"].tolist() == [3, 2, 1]


def test_editing_sets_removes_and_replaces_keys(tmp_path):
    with fresh_store(tmp_path) as store:
        rid = store.add_run("c", header(system="bm25", gpu="A100"), filename="a").id
        store.set_run_meta(rid, {"version": "3", "gpu": ""})
        assert store.run_meta(rid) == {"system": "bm25", "version": "3"}
        store.set_run_meta(rid, {"system": "dense", "cost_usd": "1.5"}, replace=True)
        assert store.run_meta(rid) == {"cost_usd": "1.5", "system": "dense"}
        with pytest.raises(EvalError, match=r"^Unknown run id 99\.$"):
            store.set_run_meta(99, {"version": "1"})


def test_a_bad_value_leaves_the_store_unchanged(tmp_path):
    with fresh_store(tmp_path) as store:
        rid = store.add_run("c", header(system="bm25"), filename="a").id
        before = snapshot(store)
        with pytest.raises(OptionError, match="^latency_ms must be a number"):
            store.set_run_meta(rid, {"version": "2", "latency_ms": "fast"}, replace=True)
        with pytest.raises(UploadError, match="^b.run: the ir_metadata header's latency_ms is 'slow', not a number"):
            store.add_run("c", header(latency_ms="slow"), filename="b.run")
        assert snapshot(store) == before


def test_a_key_that_names_a_column_of_every_run_is_refused_and_the_lineage_still_reads(tmp_path):
    with fresh_store(tmp_path) as store:
        rid = store.add_run("c", header(system="bm25"), filename="a").id
        before = snapshot(store)
        for key in ("run", "run_id", "uploaded_at"):
            with pytest.raises(OptionError, match=f"^'{key}' cannot be a metadata key: every run already has"):
                store.set_run_meta(rid, {key: "x"})
            with pytest.raises(OptionError, match=f"^'{key}' cannot be a metadata key"):
                store.add_run("c", RUN, filename="b", meta={key: "x"})
        with pytest.raises(OptionError, match="^latency_ms must be a number"):
            store.add_run("c", RUN, filename="b", meta={"latency_ms": "fast"})
        assert snapshot(store) == before
        assert store.lineage("c")["run_id"].tolist() == [rid]


def test_deleting_a_run_deletes_its_metadata(tmp_path):
    with fresh_store(tmp_path) as store:
        rid = store.add_run("c", header(system="bm25"), filename="a").id
        store.delete_run(rid)
        assert store.cursor().execute("SELECT count(*) FROM run_meta").fetchone() == (0,)


# A schema-4 store, as its DDL was: everything of today's schema but run_meta.
TO_V4 = "DROP TABLE run_meta; UPDATE meta SET value = '4' WHERE key = 'schema_version'"


def test_a_v4_store_is_upgraded_with_a_backup_and_its_headers_read(tmp_path):
    path = tmp_path / "v4.duckdb"
    with Store.open(path, load_sample=False) as store:
        store.add_qrels("c", b"1 0 d1 1\n", filename="q")
        store.add_run("c", header(system="bm25", version="v1", latency_ms=12), filename="a", name="a")
        store.add_run("c", header(system="bm25", version="v2"), filename="b", name="b")
        cur = store.cursor()
        cur.execute(TO_V4).fetchall()
        # an older Rankboard stored any header: one whose latency is not a number
        bad = {"header": "# latency_ms: fast", "system": "bm25", "version": "v2", "latency_ms": "fast"}
        cur.execute("UPDATE runs SET metadata = ? WHERE name = 'b'", [json.dumps(bad)]).fetchall()
        rows = cur.execute("SELECT run_id, name, metadata FROM runs ORDER BY run_id").fetchall()
        cur.close()
    with Store.open(path) as store:
        cur = store.cursor()
        assert cur.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert cur.execute("SELECT run_id, name, metadata FROM runs ORDER BY run_id").fetchall() == rows
        cur.close()
        got = store.lineage("c")
        assert got[["run", "system", "version"]].values.tolist() == [["a", "bm25", "v1"], ["b", "bm25", "v2"]]
        assert got["latency_ms"].iat[0] == 12 and pd.isna(got["latency_ms"].iat[1])   # a bad value is left out
    backup = path.with_name(path.name + ".v4-backup")
    con = duckdb.connect(str(backup), read_only=True)
    try:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
        assert con.execute("SELECT run_id, name, metadata FROM runs ORDER BY run_id").fetchall() == rows
    finally:
        con.close()


def test_a_collection_without_runs_or_metadata_has_the_lineage_columns(tmp_path):
    with fresh_store(tmp_path) as store:
        store.create_collection("e")
        empty = store.lineage("e")
        assert list(empty.columns) == ["run_id", "run", "system", "version", "timestamp"] and empty.empty
        store.add_run("e", RUN, filename="a", name="a")
        got = store.lineage("e")
        assert got[["run", "system", "version"]].values.tolist() == [["a", None, None]]


ZONED = """
import sys, pandas as pd
from tests.fixtures_store import fresh_store
from pathlib import Path
with fresh_store(Path(sys.argv[1])) as store:
    store.add_run("c", b"1 Q0 d1 1 2.0 t\\n", filename="a", name="a")
    uploaded = store.runs("c")["uploaded_at"].iat[0]
    print(store.lineage("c")["timestamp"].iat[0].isoformat())
    print(pd.Timestamp(uploaded).tz_localize("America/New_York").tz_convert("UTC").tz_localize(None).isoformat())
"""


def test_the_upload_time_is_read_in_utc_as_the_runs_own_timestamps_are(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", ZONED, str(tmp_path)], cwd=root, capture_output=True, text=True,
                         env={**os.environ, "TZ": "America/New_York", "PYTHONPATH": str(root)}, check=True)
    read, in_utc = out.stdout.split()
    assert read == in_utc
