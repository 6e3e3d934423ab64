"""What keeps a test run to itself (tests/conftest.py uses both):

- `worktree_entries`: the untracked and ignored files of the working tree, so a run can fail when it leaves files
  behind (the start and the end of a run are compared). __pycache__ folders and .pyc files do not count. Outside a
  git checkout (or without git), the entries are the files that make up the default store, data/rankboard.duckdb
  and its companions.
- `main_module_kept`: puts `sys.modules["__main__"]` back. Streamlit's AppTest runs dashboard/app.py as __main__
  and leaves it there; a process started afterwards with multiprocessing's spawn (as dask's LocalCluster starts
  its workers) runs __main__'s file again on start, so each worker would run the whole app and open a store.
"""
from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

DEFAULT_STORE = ("rankboard.duckdb", "rankboard.duckdb.wal", "rankboard.duckdb.gate", "rankboard.duckdb.lock",
                 "rankboard.duckdb.version", "rankboard.duckdb.tmp")


def _ignorable(path: str) -> bool:
    return "__pycache__" in path.split("/") or path.endswith(".pyc")


def worktree_entries(root: Path) -> set[str]:
    """Paths (relative to `root`, '/'-separated) of the untracked and the ignored files and folders."""
    try:
        out = subprocess.run(["git", "-C", str(root), "status", "--porcelain=v1", "-z", "--ignored=matching",
                              "--untracked-files=all"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        out = None
    if out is None or out.returncode != 0:
        return {f"data/{name}" for name in DEFAULT_STORE if (Path(root) / "data" / name).exists()}
    entries = set()
    for item in out.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if item[:3] in ("?? ", "!! ") and not _ignorable(item[3:]):
            entries.add(item[3:].rstrip("/"))
    return entries


def new_entries(before: set[str], after: set[str]) -> list[str]:
    return sorted(after - before)


@contextmanager
def main_module_kept():
    main = sys.modules.get("__main__")
    try:
        yield
    finally:
        if sys.modules.get("__main__") is not main:
            sys.modules["__main__"] = main
