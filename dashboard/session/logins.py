"""A limit on guessing the shared secret, kept by the whole server process (every session, every browser).

Every attempt, right or wrong, takes a turn: while fewer than FREE attempts failed in the last WINDOW_S seconds
(counting those still being checked), turns are free; after that each turn starts a gap after the one before,
FIRST_WAIT_S for the first and doubling up to MAX_WAIT_S ($RANKBOARD_LOGIN_MAX_WAIT). So guessing from many
sessions at once is no faster than from one, and a right secret found among wrong ones is no quicker to tell.
An attempt whose turn is more than MAX_QUEUE_S away is turned away at once ("too many failed logins").

Each failure is logged (logger `rankboard.login`) with its time and the number of failures in the last minute,
never with what was typed. The comparison itself stays constant-time (access.role_for_secret, hmac).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from typing import Callable

LOG = logging.getLogger("rankboard.login")
FREE = 5                # failed attempts per WINDOW_S before attempts wait their turn
WINDOW_S = 60.0
FIRST_WAIT_S = 1.0
MAX_QUEUE_S = 60.0


def max_wait() -> float:
    """The longest gap between two attempts: $RANKBOARD_LOGIN_MAX_WAIT seconds, default 8."""
    return float(os.environ.get("RANKBOARD_LOGIN_MAX_WAIT", "8"))


class Limiter:
    """The process's turns on the secret. `clock` and `sleep` are time.monotonic and time.sleep (tests pass
    their own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.clock, self.sleep = clock, sleep
        self._lock = threading.Lock()
        self._failures: deque[float] = deque()
        self._checking = 0
        self._next = 0.0

    def _gap(self, count: int) -> float:
        return 0.0 if count < FREE else min(max_wait(), FIRST_WAIT_S * 2 ** (count - FREE))

    def attempt(self, check: Callable[[], bool], *, who: str = "shared password") -> bool | None:
        """Wait for this attempt's turn, then `check()` (True: the secret was right). None: turned away unchecked,
        because too many attempts are waiting."""
        with self._lock:
            now = self.clock()
            while self._failures and self._failures[0] <= now - WINDOW_S:
                self._failures.popleft()
            start = max(now, self._next)
            if start - now > MAX_QUEUE_S:
                LOG.warning("login refused unchecked at %s (%s): too many failed logins (%d in the last minute)",
                            _stamp(), who, len(self._failures))
                return None
            self._next = start + self._gap(len(self._failures) + self._checking)
            self._checking += 1
        try:
            if start > now:
                self.sleep(start - now)
            ok = bool(check())
        finally:
            with self._lock:
                self._checking -= 1
        if not ok:
            with self._lock:
                self._failures.append(self.clock())
                recent = len(self._failures)
            LOG.warning("failed login at %s (%s): %d failed in the last minute", _stamp(), who, recent)
        return ok


def _stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S%z")


_LIMITER = Limiter()


def limiter() -> Limiter:
    """The one Limiter of this server process."""
    return _LIMITER
