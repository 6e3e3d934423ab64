"""Issue 27, faults of the machine on the command line: a store that can only be read (its file, its folder, its
disk) is listed and evaluated and refuses a load in one line; a full store disk, a full or missing spool folder,
a full TMPDIR each get their own line naming the folder or the variable; a failed load gives back the space it
took; an operating-system error never ends in a traceback (exit 2); a closed pipe ends quietly; control characters
in stored names are escaped on a terminal.

Running as root, a file without write permission is still writable; those tests run the command under
`unshare -U`, which keeps root's ownership but drops its power to override permissions. A full disk is a small
tmpfs, which only root can mount: without one those tests are skipped.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import pty
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.store.store import ROOT, Store
from tests.fixtures_store import fresh_store, snapshot

DATA = ROOT / "data"
RUN = DATA / "runs" / "input.pircRBa1.gz"
QRELS = DATA / "qrels.robust03.txt.gz"
SPOOLED = {"RANKBOARD_STREAM_MIN_MB": "0.1"}    # runs from 100 kB on are spooled (the default is 64 MB)
READ_ONLY = ("error: {path}: the store is read-only: the file is not writable. Nothing was changed. Make it writable "
             "(chmod u+w {path}), or pass --store PATH (or set RANKBOARD_STORE) to a store you may write.")
READ_ONLY_FOLDER = ("error: {path}: the store is read-only: its folder {folder} is not writable (the store keeps its "
                    "lock files and write-ahead log there). Nothing was changed. Make the folder writable, or pass "
                    "--store PATH (or set RANKBOARD_STORE) to a store in a folder you may write.")
READ_ONLY_DISK = ("error: {path}: the store is read-only: {folder} is on a read-only file system. Nothing was changed. "
                  "Copy the store to a writable disk and pass --store PATH (or set RANKBOARD_STORE).")


def cli(store, *args, prefix=(), env=None, timeout=300):
    return subprocess.run([*prefix, sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, **(env or {})))


def unprivileged() -> tuple[str, ...]:
    """A prefix that runs a command without the power to write what its permissions forbid."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("unshare") and subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode == 0:
        return ("unshare", "-U")
    pytest.skip("running as root without `unshare -U`: a file cannot be made read-only for this process")


def one_error_line(result, expected: str) -> None:
    """Exit 2; stderr ends with exactly `expected` (progress bars may come before it), and holds no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.rstrip("\n").rsplit("\n", 1)[-1].rsplit("\r", 1)[-1] == expected, result.stderr


@pytest.fixture
def stored(tmp_path):
    """A store in its own folder: collection 'c', the robust03 qrels and one run."""
    folder = tmp_path / "store"
    folder.mkdir()
    with fresh_store(folder, "s.duckdb") as s:
        s.add_qrels("c", QRELS.read_bytes(), filename=QRELS.name)
        s.add_run("c", RUN.read_bytes(), filename=RUN.name)
    return folder / "s.duckdb"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_store_file_without_write_permission_is_read_and_refuses_writes(stored, tmp_path):
    writable = tmp_path / "copy.duckdb"
    shutil.copyfile(stored, writable)
    want_list = cli(writable, "list").stdout.replace(str(writable), str(stored))
    want_eval = cli(writable, "evaluate", "--collection", "c", "-m", "map", "-m", "P@10", "-q").stdout
    stored.chmod(0o444)
    before = digest(stored)
    me = unprivileged()
    listed = cli(stored, "list", prefix=me)
    assert listed.returncode == 0 and listed.stderr == ""
    assert listed.stdout == want_list.replace(f"store: {stored}\n", f"store: {stored} (read-only)\n", 1)
    evaluated = cli(stored, "evaluate", "--collection", "c", "-m", "map", "-m", "P@10", "-q", prefix=me)
    assert evaluated.returncode == 0 and evaluated.stdout == want_eval, evaluated.stderr
    for args in (["load", "--collection", "c", "--run", str(DATA / "runs" / "input.humR03dc.gz")],
                 ["rename", "--collection", "c", "renamed"], ["delete", "--collection", "c", "--yes"]):
        one_error_line(cli(stored, *args, prefix=me), READ_ONLY.format(path=stored))
    assert digest(stored) == before                       # not even the results cache was written to it
    stored.chmod(0o644)
    with Store.open(stored, load_sample=False) as s:
        assert snapshot(s)["results"] == []


def test_a_store_in_a_folder_that_cannot_be_written_is_read_and_refuses_writes(stored):
    for lock in stored.parent.glob("s.duckdb.*"):        # no lock file can be made there either
        lock.unlink()
    stored.parent.chmod(0o555)
    me = unprivileged()
    try:
        assert cli(stored, "list", prefix=me).returncode == 0
        evaluated = cli(stored, "evaluate", "--collection", "c", "-m", "map", prefix=me)
        assert evaluated.returncode == 0 and evaluated.stdout.startswith("map"), evaluated.stderr
        one_error_line(cli(stored, "load", "--collection", "c", "--qrels", str(QRELS), prefix=me),
                       READ_ONLY_FOLDER.format(path=stored, folder=stored.parent))
        fresh = stored.parent / "new.duckdb"
        one_error_line(cli(fresh, "list", prefix=me),
                       f"error: {fresh}: cannot create the store: its folder {stored.parent} is not writable. Make "
                       "the folder writable, or pass --store PATH (or set RANKBOARD_STORE) to a folder you may write.")
        assert sorted(p.name for p in stored.parent.iterdir()) == ["s.duckdb"]
    finally:
        stored.parent.chmod(0o755)


# -- full and read-only disks: small tmpfs mounts ------------------------------------------------------------------
@pytest.fixture
def disk(tmp_path):
    """disk(megabytes) -> a folder on a tmpfs of that size (unmounted after the test); skips where none can be
    mounted."""
    mounted = []

    def make(megabytes: int) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(where)],
                              capture_output=True, text=True) if os.geteuid() == 0 else None
        if done is None or done.returncode:
            pytest.skip("a small tmpfs cannot be mounted here (it needs root): "
                        + (done.stderr.strip() if done else "not root"))
        mounted.append(where)
        return where

    yield make
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def free(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def big_run(path: Path, docs_per_topic: int, gz: bool = False) -> Path:
    """A run over the robust03 qrels' topics, `docs_per_topic` random documents each."""
    qids = sorted({line.split()[0] for line in gzip.decompress(QRELS.read_bytes()).decode().splitlines()})
    rnd = random.Random(7)
    text = "".join(f"{q} Q0 d{rnd.randrange(10 ** 9):09d}x{r} {r + 1} {1000 - r * 0.01:.3f} big\n"
                   for q in qids for r in range(docs_per_topic)).encode()
    path.write_bytes(gzip.compress(text, 1) if gz else text)
    return path


def test_a_load_that_fills_the_store_disk_gives_its_space_back(disk, tmp_path):
    where = disk(16)
    store = where / "s.duckdb"
    assert cli(store, "load", "--collection", "c", "--qrels", str(QRELS)).returncode == 0
    before, size = free(where), store.stat().st_size
    result = cli(store, "load", "--collection", "c", "--run", str(big_run(tmp_path / "big.run", 6000)))
    one_error_line(result, f"error: {store}: the disk holding the store is full (no space left in {where}). Nothing "
                           f"was saved. Free space in {where}, or pass --store PATH to a store on a disk with room.")
    assert (free(where), store.stat().st_size) == (before, size)
    small = cli(store, "load", "--collection", "c", "--run", str(RUN))      # the next load is not stuck
    assert small.returncode == 0, small.stderr
    with Store.open(store, load_sample=False) as s:
        assert list(s.runs("c")["name"]) == ["pircRBa1"]


@pytest.mark.parametrize("variable", ["RANKBOARD_SPOOL_DIR", "TMPDIR"])
def test_a_full_spool_folder_is_named_with_the_variable_that_moves_it(disk, stored, tmp_path, variable):
    where = disk(4)
    run = big_run(tmp_path / "big.run.gz", 8000, gz=True)
    env = {variable: str(where), **SPOOLED} | ({"RANKBOARD_SPOOL_DIR": ""} if variable == "TMPDIR" else {})
    result = cli(stored, "load", "--collection", "c", "--run", str(run), env=env)
    if variable == "TMPDIR":
        expected = (f"error: no space left in the temporary folder {where} (TMPDIR) while reading big.run.gz. Nothing "
                    "was stored. Free space there, or set RANKBOARD_SPOOL_DIR (or TMPDIR) to a folder with room.")
    else:
        expected = (f"error: no space left in the spool folder {where} (RANKBOARD_SPOOL_DIR) while reading "
                    "big.run.gz. Nothing was stored. Free space there, or set RANKBOARD_SPOOL_DIR to a folder with room.")
    one_error_line(result, expected)
    assert list(where.iterdir()) == []


def test_a_missing_or_unwritable_spool_folder_says_which_and_what_to_do(stored, tmp_path):
    missing = tmp_path / "no-such-folder"
    one_error_line(cli(stored, "load", "--collection", "c", "--run", str(RUN), env={"RANKBOARD_SPOOL_DIR": str(missing), **SPOOLED}),
                   f"error: the spool folder {missing} (RANKBOARD_SPOOL_DIR) does not exist, so {RUN.name} could not "
                   "be read. Nothing was stored. Create it, or set RANKBOARD_SPOOL_DIR to a folder that exists.")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    one_error_line(cli(stored, "load", "--collection", "c", "--run", str(RUN), env={"RANKBOARD_SPOOL_DIR": str(locked), **SPOOLED},
                       prefix=unprivileged()),
                   f"error: the spool folder {locked} (RANKBOARD_SPOOL_DIR) is not writable, so {RUN.name} could not "
                   "be read. Nothing was stored. Make it writable, or set RANKBOARD_SPOOL_DIR to a folder you may "
                   "write.")


def test_a_store_on_a_read_only_disk_is_read_and_refuses_writes(disk, stored):
    where = disk(16)
    copy = where / "s.duckdb"
    shutil.copyfile(stored, copy)
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    assert cli(copy, "list").returncode == 0
    assert cli(copy, "evaluate", "--collection", "c", "-m", "map").stdout.startswith("map")
    one_error_line(cli(copy, "load", "--collection", "c", "--qrels", str(QRELS)),
                   READ_ONLY_DISK.format(path=copy, folder=where))


# -- other operating-system errors, pipes, terminals ----------------------------------------------------------------
def test_an_operating_system_error_is_one_line_and_exit_2(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    one_error_line(cli(tmp_path / "s.duckdb", "convert", str(RUN), "--out", str(afile / "sub")),
                   f"error: {afile / 'sub'}: Not a directory. Check the path, its permissions and the free space on "
                   "its disk, then try again.")
    one_error_line(cli(afile / "s.duckdb", "list"),
                   f"error: {afile / 's.duckdb'}: cannot create the store: {afile} is a file, not a folder. Pass "
                   "--store PATH (or set RANKBOARD_STORE) to a path in a folder.")


def test_a_reader_that_stops_early_ends_the_command_quietly(stored):
    for command in (f"{sys.executable} -m core --store {stored} list | head -1",
                    f"{sys.executable} -m core --store {stored} evaluate --collection c -q -m all_trec | head -1"):
        done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stderr == "" and done.stdout.count("\n") == 1, done.stderr
    proc = subprocess.Popen([sys.executable, "-m", "core", "--store", str(stored), "list"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                                   # gone before the first line is written
    assert proc.stderr.read() == b"" and proc.wait(timeout=120) == 0


def test_control_characters_in_stored_names_are_escaped_on_a_terminal_and_kept_in_a_pipe(stored):
    name = "\x1b[31mred\x1b]0;owned\x07 \u202eevil"
    assert cli(stored, "rename", "--collection", "c", "--run", "pircRBa1", name).returncode == 0
    assert f"  {name}" in cli(stored, "list").stdout                     # a pipe gets the name as stored
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "core", "--store", str(stored), "list"], cwd=ROOT, stdout=side,
                            stderr=side, stdin=subprocess.DEVNULL)
    os.close(side)
    out = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=120) == 0
    text = out.decode()
    assert "\\x1b[31mred\\x1b]0;owned\\x07 \\u202eevil" in text
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
