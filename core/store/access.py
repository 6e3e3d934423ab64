"""Taking turns on the store file (docs/team.md, "One store, many processes"): a process's outermost session takes
the file, and the file is let go when the last one ends (after `linger` seconds of idleness, or at once when
another process is waiting), since DuckDB refuses, rather than makes wait, a second process that opens it.
`<store>.lock` mirrors DuckDB's own lock but can be waited on (shared by read-only sessions, exclusive for
read-write ones); `<store>.gate` is held by whoever waits, and a process already inside checks it before letting
a new session join, so a busy dashboard cannot starve a loader. A waiter says so once through `notice`, and gives
up after `timeout` seconds with a StoreBusyError. Closing the last connection checkpoints DuckDB's write-ahead log.

A store that can only be read (core/store/faults.py `unwritable`) is opened read-only; when its folder cannot hold
the lock files, they are opened for reading where they exist (flock works on them), and left out where they do not
(DuckDB's own lock still keeps a writer out). After a write that failed for want of disk space, `give_back_space`
closes the file once this process's sessions end and cuts off the blocks the failed write appended: DuckDB keeps
them in the file (it grew, and stays grown) although nothing in it refers to them.
"""
from __future__ import annotations

import atexit
import fcntl
import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import duckdb

from core.errors import StoreBusyError
from core.store import health as store_health
from core.store.connections import overlay

LOG = logging.getLogger("rankboard.store")
POLL = 0.02          # seconds between tries of a busy lock
NOTICE_AFTER = 0.3   # a wait shorter than this is not worth a message


_TIMEOUT: float | None = None


def default_timeout() -> float:
    """set_default_timeout's value (the command line's --wait), else $RANKBOARD_WAIT, else 120 s."""
    return _TIMEOUT if _TIMEOUT is not None else float(os.environ.get("RANKBOARD_WAIT", "120"))


def set_default_timeout(seconds: float | None) -> None:
    global _TIMEOUT
    _TIMEOUT = seconds


# What a waiting process says; the command line prints it to stderr (core.cli sets it).
notice: Callable[[str], None] = LOG.info


def set_notice(fn: Callable[[str], None]) -> None:
    global notice
    notice = fn


def _try_lock(fd: int, mode: int) -> bool:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


class Access:
    """The sessions of this process on one store file (one Access per path and mode, see `access`)."""

    def __init__(self, path: Path, config: dict, *, read_only: bool, linger: float, overlay: bool = False):
        self.path, self.config, self.read_only, self.linger = path, config, read_only or overlay, linger
        self.overlay = overlay
        self.con: duckdb.DuckDBPyConnection | None = None
        self._cond = threading.Condition()
        self._depth: dict[int, int] = {}       # open sessions per thread (a thread may nest sessions)
        self._opening = self._draining = False
        self._idle_since = 0.0
        self._lock_fd: int | None = None
        self._reclaim = False                  # a write failed for want of space: trim the file when it is let go
        self.write_lock = threading.RLock()    # one write transaction of this process at a time

    # -- the lock files ----------------------------------------------------------------------------
    def _open_fd(self, suffix: str) -> int | None:
        """A lock file beside the store, created if need be. A read-only store whose folder cannot hold one opens
        it for reading, or goes without it (None)."""
        name = self.path.with_name(self.path.name + suffix)
        try:
            return os.open(name, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            if not self.read_only:
                raise
        try:
            return os.open(name, os.O_RDONLY)
        except OSError:
            return None

    def others_waiting(self) -> bool:
        """True when another process (or another Access of this one) waits at the gate."""
        fd = self._open_fd(".gate")
        if fd is None:
            return False
        try:
            return not _try_lock(fd, fcntl.LOCK_EX)
        finally:
            os.close(fd)        # which releases the lock when it was free

    def _take_file(self, deadline: float, waited: list) -> duckdb.DuckDBPyConnection:
        """Wait at the gate, then for the lock file, then connect (retrying while DuckDB's own lock is held by
        a process that does not use these lock files)."""
        gate = self._open_fd(".gate")
        try:
            lock = self._open_fd(".lock")
        except BaseException:
            if gate is not None:
                os.close(gate)
            raise
        mode = fcntl.LOCK_SH if self.read_only else fcntl.LOCK_EX
        try:
            if gate is not None:
                self._wait(lambda: _try_lock(gate, fcntl.LOCK_EX), deadline, waited)
            try:
                if lock is not None:
                    self._wait(lambda: _try_lock(lock, mode), deadline, waited)
            finally:
                if gate is not None:
                    fcntl.flock(gate, fcntl.LOCK_UN)
            con = self._wait(self._connect, deadline, waited)
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise
        finally:
            if gate is not None:
                os.close(gate)
        self._lock_fd = lock
        return con

    def _connect(self):
        try:
            if self.overlay:
                return overlay(self.path, self.config)
            return duckdb.connect(str(self.path), read_only=self.read_only, config=self.config)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                LOG.info("store %s locked outside Rankboard's lock files: %s", self.path, exc)
                return None
            raise

    def _wait(self, attempt, deadline: float, waited: list):
        start = time.monotonic()
        while not (result := attempt()):
            now = time.monotonic()
            if not waited and now - start >= NOTICE_AFTER:
                waited.append(now)
                notice("waiting for the store (another process is using it)...")
            if now >= deadline:
                raise StoreBusyError(
                    f"{self.path.name}: the store stayed busy for {now - start:.0f} s (another process is using "
                    "it), so nothing was done. Try again, or wait longer with --wait SECONDS "
                    "(or RANKBOARD_WAIT).")
            time.sleep(POLL)
        return result

    # -- sessions ------------------------------------------------------------------------------------
    @contextmanager
    def session(self, timeout: float | None = None):
        """Hold the store file for the block; yields the process's connection (take cursors from it)."""
        me = threading.get_ident()
        con = self._enter(default_timeout() if timeout is None else timeout)
        try:
            yield con
        finally:
            self._exit(me)

    def _enter(self, timeout: float) -> duckdb.DuckDBPyConnection:
        me, deadline, waited = threading.get_ident(), time.monotonic() + timeout, []
        with self._cond:
            while True:
                if self.con is not None and self._depth.get(me):            # nested: always joins
                    break
                if self.con is not None and not self._draining:
                    if not self._depth and self.others_waiting() or self._depth and self._gate_check():
                        self._draining = True
                        if not self._depth:
                            self._close()
                        continue
                    break
                if self.con is None and not self._opening:
                    self._opening = True
                    break
                if time.monotonic() >= deadline:
                    raise StoreBusyError(f"{self.path.name}: the store stayed busy for {timeout:.0f} s, so nothing "
                                         "was done. Try again, or wait longer with --wait SECONDS (or RANKBOARD_WAIT).")
                self._cond.wait(POLL)
            if not self._opening:
                self._depth[me] = self._depth.get(me, 0) + 1
                return self.con
        try:
            con = self._take_file(deadline, waited)
        except BaseException:
            with self._cond:
                self._opening = False
                self._cond.notify_all()
            raise
        if waited:
            LOG.info("store %s: waited %.2f s", self.path, time.monotonic() - waited[0] + NOTICE_AFTER)
        with self._cond:
            self.con, self._opening, self._draining = con, False, False
            self._depth[me] = 1
            self._cond.notify_all()
            return con

    def _gate_check(self) -> bool:
        """While sessions are running, look at the gate at most every POLL seconds."""
        now = time.monotonic()
        if now - getattr(self, "_checked", 0.0) < POLL:
            return False
        self._checked = now
        return self.others_waiting()

    def _exit(self, me: int) -> None:
        with self._cond:
            self._depth[me] -= 1
            if not self._depth[me]:
                del self._depth[me]
            if not self._depth:
                if self._draining or self.linger <= 0:
                    self._close()
                else:
                    self._idle_since = time.monotonic()
                    threading.Thread(target=self._watch, daemon=True, name="rankboard-store-linger").start()
            self._cond.notify_all()

    def _watch(self) -> None:
        """Let the file go once idle for `linger` seconds, or at once when another process waits."""
        while True:
            time.sleep(POLL)
            with self._cond:
                if self.con is None or self._depth or self._opening:
                    return
                if time.monotonic() - self._idle_since >= self.linger or self.others_waiting():
                    self._close()
                    self._cond.notify_all()
                    return

    def _close(self) -> None:
        """(with the condition held) close the connection, which checkpoints the WAL, then unlock (after giving
        back the space of a write that failed for want of it, while the file is still this process's alone)."""
        con, self.con = self.con, None
        try:
            if con is not None:
                con.close()
        finally:
            try:
                if self._reclaim and not self.read_only:
                    self._reclaim = False
                    store_health.trim(self.path, self.config)
            except Exception as exc:  # noqa: BLE001 - the write's own error is what the caller must see
                LOG.warning("store %s: could not give back the space of a failed write: %s", self.path, exc)
            finally:
                self._release()

    def give_back_space(self) -> None:
        """(inside a session) A write failed for want of disk space: let the file go as soon as this process's
        sessions end (new sessions wait, then open it afresh), and cut the failed write's blocks off its end then."""
        with self._cond:
            if self.con is not None:
                self._reclaim = self._draining = True

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)       # closing the descriptor releases its flock
            self._lock_fd = None
        self._draining = False

    def close(self) -> None:
        with self._cond:
            if not self._depth:
                self._close()


_ACCESS: dict[tuple[str, bool], Access] = {}
_ACCESS_LOCK = threading.Lock()


@atexit.register
def _close_all() -> None:
    """At exit, close lingering connections here rather than leave them to daemon threads being torn down."""
    for acc in list(_ACCESS.values()):
        with acc._cond:
            acc.linger = 0.0
            if not acc._depth:
                acc._close()


def access(path: Path, config: dict, *, read_only: bool = False, linger: float = 0.0, overlay: bool = False) -> Access:
    """The one Access of this process for (path, mode): Store objects on the same file share it. `overlay`: the
    store cannot be written, so open it read-only under an in-memory database (core/store/connections.py)."""
    key = (str(Path(path).resolve()), read_only, overlay)
    with _ACCESS_LOCK:
        acc = _ACCESS.get(key)
        if acc is None:
            acc = _ACCESS[key] = Access(Path(path), config, read_only=read_only, linger=linger, overlay=overlay)
        acc.linger = max(acc.linger, linger)
        return acc


def version_hint_path(path: Path) -> Path:
    return path.with_name(path.name + ".version")


def write_version_hint(path: Path) -> None:
    """Touch `<store>.version` after a commit, so an open dashboard notices new data without opening the
    store (a hint only: the truth is meta's data_version, which readers key their caches on)."""
    hint = version_hint_path(path)
    tmp = hint.with_name(f"{hint.name}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(f"{time.time_ns()} {os.getpid()}\n")
    os.replace(tmp, hint)


def read_version_hint(path: Path) -> str:
    try:
        return version_hint_path(path).read_text().strip()
    except OSError:
        return ""
