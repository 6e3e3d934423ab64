"""The scratch DuckDB connection that evaluating files (and checking a parsed run) works in: both cores, a memory
limit, and a temporary directory to spill to. RANKBOARD_THREADS / RANKBOARD_MEMORY_LIMIT override, as for the store.

The temporary directories are named `rankboard-<pid>-XXXXXXXX` (`temp_folder`, `temp_directory`), and a load's spooled
run `rankboard-run-<pid>-XXXXXXXX.parquet` (core/store/prepare.py), so that one left behind by a process killed
before it could remove it is removed by the next one (`sweep`)."""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

import duckdb


def scratch(temp_directory: str, run_bytes: int = 0) -> duckdb.DuckDBPyConnection:
    """An in-memory connection whose memory limit is 3x `run_bytes` (the largest run file), between 500MB and
    2GB: a 5M-line run (186MB) sorts in 558MB without spilling, and a 50M-line run spills rather than pass 3GB."""
    limit = f"{min(max(3 * run_bytes, 500 << 20), 2 << 30) >> 20}MB"
    return duckdb.connect(config={"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
                                  "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", limit),
                                  "temp_directory": temp_directory, "preserve_insertion_order": False})


_OWNED = re.compile(r"rankboard-(?:run-)?(\d+)-.+$")


def sweep(folder: str | None = None) -> int:
    """Remove the `rankboard-<pid>-*` folders and `rankboard-run-<pid>-*` files in `folder` (the temporary folder)
    whose process is gone; the number removed. Those of a live process, or of another user's, are left alone."""
    removed = 0
    for old in Path(folder or tempfile.gettempdir()).glob("rankboard-*-*"):
        match = _OWNED.match(old.name)
        if not match or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)
            removed += not old.exists()
        except (OSError, OverflowError):
            pass
    return removed


def temp_folder() -> str:
    """A new folder `rankboard-<pid>-XXXXXXXX` in the temporary folder (after sweeping those of gone processes);
    the caller removes it."""
    sweep()
    return tempfile.mkdtemp(prefix=f"rankboard-{os.getpid()}-")


@contextlib.contextmanager
def temp_directory():
    """`temp_folder()` for the block, removed after it (tempfile.TemporaryDirectory's counterpart)."""
    path = temp_folder()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


_SHARED: list = []
_SHARED_LOCK = threading.Lock()


def shared_cursor() -> duckdb.DuckDBPyConnection:
    """A cursor on one process-wide scratch database (1 GB memory limit, spilling to a temporary directory removed
    at exit), for short checks run once per parsed file. Opening a DuckDB database costs ~25 ms and a cursor on an
    open one ~0.3 ms, which a command that reads 50 runs pays 50 times. Plain equivalent: `scratch(tmp)` per call.
    Each cursor is its own connection: threads may each hold one at once. The caller closes it."""
    with _SHARED_LOCK:
        if not _SHARED:
            tmp = temp_folder()
            atexit.register(shutil.rmtree, tmp, True)
            _SHARED.append(scratch(tmp, (1 << 30) // 3))
        return _SHARED[0].cursor()
