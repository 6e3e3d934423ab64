"""The scratch DuckDB connection that evaluating files (and checking a parsed run) works in: both cores, a memory
limit, and a temporary directory to spill to. RANKBOARD_THREADS / RANKBOARD_MEMORY_LIMIT override, as for the store."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading

import duckdb


def scratch(temp_directory: str, run_bytes: int = 0) -> duckdb.DuckDBPyConnection:
    """An in-memory connection whose memory limit is 3x `run_bytes` (the largest run file), between 500MB and
    2GB: a 5M-line run (186MB) sorts in 558MB without spilling, and a 50M-line run spills rather than pass 3GB."""
    limit = f"{min(max(3 * run_bytes, 500 << 20), 2 << 30) >> 20}MB"
    return duckdb.connect(config={"threads": int(os.environ.get("RANKBOARD_THREADS", "2")),
                                  "memory_limit": os.environ.get("RANKBOARD_MEMORY_LIMIT", limit),
                                  "temp_directory": temp_directory, "preserve_insertion_order": False})


_SHARED: list = []
_SHARED_LOCK = threading.Lock()


def shared_cursor() -> duckdb.DuckDBPyConnection:
    """A cursor on one process-wide scratch database (1 GB memory limit, spilling to a temporary directory removed
    at exit), for short checks run once per parsed file. Opening a DuckDB database costs ~25 ms and a cursor on an
    open one ~0.3 ms, which a command that reads 50 runs pays 50 times. Plain equivalent: `scratch(tmp)` per call.
    Each cursor is its own connection: threads may each hold one at once. The caller closes it."""
    with _SHARED_LOCK:
        if not _SHARED:
            tmp = tempfile.mkdtemp(prefix="rankboard-")
            atexit.register(shutil.rmtree, tmp, True)
            _SHARED.append(scratch(tmp, (1 << 30) // 3))
        return _SHARED[0].cursor()
