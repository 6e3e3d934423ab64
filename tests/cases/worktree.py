"""The untracked and ignored files of the working tree, so a test run can fail when it leaves files behind
(tests/conftest.py compares the start and the end of a run). __pycache__ folders and .pyc files do not count.
Outside a git checkout (or without git), the entries are the files that make up the default store,
data/rankboard.duckdb and its companions."""
from __future__ import annotations

import subprocess
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
