"""A damaged store file: recognising it (DuckDB's words for it are in DAMAGE), saying what to do, and the copies
that can replace it (one is written before every schema migration, `<store>.v<N>-backup`). And `trim`, which gives
back the space a write that failed for want of it left at the end of the file.
"""
from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

from core.errors import StoreDamagedError

LOG = logging.getLogger("rankboard.store")
SIZE = "SELECT total_blocks, block_size FROM pragma_database_size() WHERE database_name = current_database()"
DAMAGE = ("not a valid duckdb database file", "corrupt database file", "could not read enough bytes",
          "checksum", "failed to read database header", "failed to deserialize")


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.Error) and any(s in str(exc).lower() for s in DAMAGE)


def backups(path: Path) -> list[Path]:
    """The copies written before schema migrations, newest first."""
    found = [p for p in path.parent.glob(path.name + ".v*-backup") if p.is_file()]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def damaged(path: Path, exc: BaseException) -> StoreDamagedError:
    """The message for a damaged store: what is wrong, then how to restore the last good copy or start anew."""
    copies = backups(path)
    if copies:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(copies[0].stat().st_mtime))
        fix = (f"Restore the last good copy, {copies[0].name} (written {when}, before a schema upgrade; later "
               f"changes are not in it): mv {copies[0]} {path}. Or start a new store: move the damaged file "
               f"away (mv {path} {path}.damaged) and load your data again, or pass a different --store PATH.")
    else:
        fix = (f"There is no earlier copy of it. Start a new store: move the damaged file away (mv {path} "
               f"{path}.damaged) and load your data again, or pass a different --store PATH.")
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return StoreDamagedError(f"{path}: this store file is damaged ({detail}). Nothing was changed.\n\n{fix}")


def copy_before_migration(con, path: Path, version: int) -> Path:
    """Checkpoint (so the file holds every committed change), then copy it to `<store>.v<version>-backup`."""
    con.execute("CHECKPOINT").fetchall()
    target = path.with_name(f"{path.name}.v{version}-backup")
    tmp = target.with_name(target.name + ".partial")
    shutil.copyfile(path, tmp)
    tmp.replace(target)          # a copy interrupted half-way never looks like a good one
    return target


def trim(path: Path, config: dict) -> int:
    """Cut off the end of the store file what DuckDB's header does not count (the blocks of a write that failed
    for want of space, the last one often half written), with the file held by this process alone and no
    connection open; returns the bytes given back. Where DuckDB's first block starts is measured once on a small
    file in the temporary folder (DuckDB 2.0: 12,288 bytes), so a change of file layout never cuts a used block."""
    valid, size = header_bytes() + _block_bytes(path, config), os.path.getsize(path)
    if size <= valid:
        return 0
    os.truncate(path, valid)
    LOG.info("store %s: a write failed for want of disk space; gave back the %d bytes it had added to the file",
                path, size - valid)
    return size - valid


def _block_bytes(path, config: dict) -> int:
    """The bytes of the blocks DuckDB's header counts in the file at `path`, checkpointed (the connection closed)."""
    with duckdb.connect(str(path), config=config) as con:
        con.execute("CHECKPOINT").fetchall()
        blocks, block_size = con.execute(SIZE).fetchone()
    return int(blocks) * int(block_size)


@functools.cache
def header_bytes() -> int:
    """Where DuckDB's first block starts: a checkpointed file's length less its blocks."""
    with tempfile.TemporaryDirectory(prefix="rankboard-probe-") as tmp:
        probe = os.path.join(tmp, "probe.duckdb")
        with duckdb.connect(probe) as con:
            con.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)").fetchall()
        return os.path.getsize(probe) - _block_bytes(probe, {})
