"""core/store/faults.py: which fault an error is (errno or DuckDB's words, through the errors it caused), and the
one line each gets. The command-line and browser tests meet the real faults (tests/cli/test_cli_faults.py,
tests/e2e/test_e2e_faults.py); these pin the wording and the choices in between."""
from __future__ import annotations

import errno
import tempfile
from pathlib import Path

import duckdb
import pytest

from core.errors import ServerFault, StoreReadOnlyError
from core.store import faults

STORE = Path("/data/team/rankboard.duckdb")


def test_the_fault_behind_a_cleanup_error_is_found():
    """DuckDB's "Current transaction is aborted" hid the full disk that caused it."""
    try:
        try:
            raise duckdb.IOException(f'IO Error: Could not write file "{STORE}": No space left on device')
        finally:
            raise duckdb.TransactionException("TransactionContext Error: Current transaction is aborted")
    except duckdb.Error as exc:
        assert faults.kind(exc) == (faults.FULL, str(STORE))
        assert str(faults.store_fault(exc, STORE)) == (
            f"{STORE}: the disk holding the store is full (no space left in {STORE.parent}). Nothing was saved. "
            f"Free space in {STORE.parent}, or pass --store PATH to a store on a disk with room.")
    assert faults.kind(OSError(errno.EROFS, "Read-only file system", "/x")) == (faults.READ_ONLY_FS, "/x")
    assert faults.kind(ValueError("permission denied")) == (None, None)     # words alone, from anywhere: no


@pytest.mark.parametrize("reason,why", [
    ("file", f"the file is not writable. Nothing was changed. Make it writable (chmod u+w {STORE}), or pass --store "
             "PATH (or set RANKBOARD_STORE) to a store you may write."),
    ("folder", f"its folder {STORE.parent} is not writable (the store keeps its lock files and write-ahead log "
               "there). Nothing was changed. Make the folder writable, or pass --store PATH (or set RANKBOARD_STORE) "
               "to a store in a folder you may write."),
    ("filesystem", f"{STORE.parent} is on a read-only file system. Nothing was changed. Copy the store to a writable "
                   "disk and pass --store PATH (or set RANKBOARD_STORE)."),
])
def test_a_read_only_store_says_why_and_what_to_do(reason, why):
    err = faults.read_only_error(STORE, reason)
    assert isinstance(err, StoreReadOnlyError) and str(err) == f"{STORE}: the store is read-only: {why}"
    assert str(STORE) not in err.public and err.public.startswith("The store is read-only")


def test_spool_faults_name_the_folder_and_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKBOARD_SPOOL_DIR", str(tmp_path))
    full = OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")
    err = faults.reading_fault(full, "big.run.gz", STORE)
    assert str(err) == (f"no space left in the spool folder {tmp_path} (RANKBOARD_SPOOL_DIR) while reading big.run.gz. "
                        "Nothing was stored. Free space there, or set RANKBOARD_SPOOL_DIR to a folder with room.")
    assert err.public == faults.SPOOL_FULL_PUBLIC and str(tmp_path) not in err.public
    gone = FileNotFoundError(errno.ENOENT, "No such file or directory", str(tmp_path / "rankboard-run-1234-x.parquet"))
    assert faults.reading_fault(gone, "a.run", STORE).public == faults.SPOOL_BROKEN_PUBLIC
    assert "1234" not in faults.reading_fault(gone, "a.run", STORE).public
    users_file = FileNotFoundError(errno.ENOENT, "No such file or directory", "/home/ana/runs/a.run")
    assert faults.reading_fault(users_file, "a.run", STORE) is None      # the user's own file: not the server's
    monkeypatch.delenv("RANKBOARD_SPOOL_DIR")
    temp = Path(tempfile.gettempdir())
    assert str(faults.reading_fault(full, "big.run.gz", STORE)).startswith(
        f"no space left in the temporary folder {temp} (TMPDIR) while reading big.run.gz.")


def test_an_unexpected_os_error_is_one_line_with_what_to_do():
    assert faults.describe(NotADirectoryError(errno.ENOTDIR, "Not a directory", "/x/y")) == (
        "/x/y: Not a directory. Check the path, its permissions and the free space on its disk, then try again.")
    assert "\n" not in faults.describe(duckdb.IOException("IO Error: something\nsecond line"))
    full = OSError(errno.ENOSPC, "No space left on device")
    assert faults.describe(full, STORE).startswith("no space left in ")
    assert f"or the store's folder {STORE.parent}" in faults.describe(full, STORE)


def test_a_store_that_cannot_be_created_says_why(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    err = faults.cannot_create(afile / "sub" / "s.duckdb")
    assert isinstance(err, ServerFault) and str(err) == (
        f"{afile / 'sub' / 's.duckdb'}: cannot create the store: {afile} is a file, not a folder. Pass --store PATH "
        "(or set RANKBOARD_STORE) to a path in a folder.")


def test_the_read_only_overlay_quotes_the_names_it_finds_in_the_store(tmp_path):
    import duckdb
    from core.store.connections import overlay
    path = tmp_path / "odd.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute('CREATE TABLE "we""ird; DROP TABLE x; --" (v INTEGER)')
        con.execute('INSERT INTO "we""ird; DROP TABLE x; --" VALUES (7)')
    con = overlay(path, {})
    try:
        assert con.execute('SELECT v FROM "we""ird; DROP TABLE x; --"').fetchall() == [(7,)]
    finally:
        con.close()
