"""A damaged store file: a clear error, exit status 2, no traceback, and what to do (move it away, or restore the
copy written before the last migration). (Hostile inputs under a memory cap: tests/limits/test_store_limits.py.)
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys

import pytest

from core.store.store import ROOT, Store
from tests.fixtures_store import fresh_store


@pytest.fixture
def store_file(tmp_path):
    with fresh_store(tmp_path, "s.duckdb") as store:
        store.add_qrels("c", b"301 0 FBIS3-10082 1\n", filename="q.txt")
        store.add_run("c", b"301 Q0 FBIS3-10082 1 12.5 good\n", filename="good.run")
    return tmp_path / "s.duckdb"


def damage(path, how: str) -> None:
    size = path.stat().st_size
    if how == "truncated":
        os.truncate(path, size // 2)
    elif how == "not a database":
        path.write_bytes(b"this is not a DuckDB file\n" * 100)
    else:                                      # 4 KB of random bytes over a block of the file
        with open(path, "r+b") as f:
            f.seek({"header": 4096, "middle": size // 2}[how])
            f.write(random.Random(7).randbytes(4096))


@pytest.mark.parametrize("how", ["truncated", "not a database", "header", "middle"])
def test_a_damaged_store_is_a_clear_error_with_what_to_do(store_file, how):
    damage(store_file, how)
    for args in (["list"], ["load", "--collection", "c", "--run", str(ROOT / "data/runs/input.pircRBa1.gz")]):
        out = subprocess.run([sys.executable, "-m", "core", "--store", str(store_file), *args], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 2, (how, args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error: {store_file}: this store file is damaged ("), out.stderr
        assert out.stderr.rstrip().endswith(f"There is no earlier copy of it. Start a new store: move the damaged "
                                            f"file away (mv {store_file} {store_file}.damaged) and load your data "
                                            "again, or pass a different --store PATH."), out.stderr


def test_a_copy_is_written_before_a_migration_and_offered_when_the_store_is_damaged(tmp_path, monkeypatch):
    path = tmp_path / "old.duckdb"
    with fresh_store(tmp_path, "old.duckdb") as store:
        store.add_qrels("c", b"301 0 d1 1\n", filename="q.txt")
        store.add_run("c", b"301 Q0 d1 1 1.0 r\n", filename="r.run")
        with store.session() as con:               # make it look like a schema-2 store
            con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'").fetchall()
    import core.store.schema
    monkeypatch.setitem(core.store.schema.MIGRATIONS, 2, lambda cur: None)     # a stand-in migration from schema 2
    Store.open(path).close()
    copy = tmp_path / "old.duckdb.v2-backup"
    assert copy.exists()
    with Store.open(copy, read_only=True) as backup, backup.session() as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [("2",)]
        assert con.execute("SELECT name FROM runs").fetchall() == [("r",)]
    damage(path, "truncated")
    out = subprocess.run([sys.executable, "-m", "core", "--store", str(path), "list"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"Restore the last good copy, old.duckdb.v2-backup (written " in out.stderr
    assert f"mv {copy} {path}" in out.stderr
    shutil.copyfile(copy, path)                     # what the message says to do works
    with Store.open(path) as store:
        assert list(store.runs("c").name) == ["r"]
