"""dashboard/session/logins.py, the server-wide limit on guessing the shared secret, on a clock of
its own: guessing from four sessions at once is no faster than from one, every attempt waits its turn (a right
secret among wrong ones too), failures are logged with their time and never with what was typed, and a long
queue is turned away unchecked. The browser test (tests/e2e/test_e2e_login_limit.py) times a real server."""
from __future__ import annotations

import logging
import threading

import pytest

from dashboard.session import logins


class FakeTime:
    """A clock that sleep() moves: each thread's sleep ends at its own wake-up time, in order."""

    def __init__(self):
        self.now = 0.0
        self.lock = threading.Condition()
        self.sleepers: list[float] = []

    def clock(self) -> float:
        with self.lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            wake = self.now + seconds
            self.sleepers.append(wake)
            while self.now < wake:
                self.lock.wait(0.01)
                if self.sleepers and min(self.sleepers) == wake and self.now < wake:
                    self.now = wake           # the earliest sleeper moves the clock to its wake-up time
            self.sleepers.remove(wake)
            self.lock.notify_all()


def run_sessions(limiter, sessions: int, attempts: int, check) -> list:
    results, lock, left = [], threading.Lock(), [attempts]

    def session():
        while True:
            with lock:
                if not left[0]:
                    return
                left[0] -= 1
            got = limiter.attempt(check)
            with lock:
                results.append(got)

    threads = [threading.Thread(target=session) for _ in range(sessions)]
    [t.start() for t in threads]
    [t.join(timeout=120) for t in threads]
    return results


@pytest.mark.parametrize("max_wait", ["4", "8"])
def test_thirty_wrong_secrets_from_four_sessions_take_over_a_minute(monkeypatch, max_wait):
    monkeypatch.setenv("RANKBOARD_LOGIN_MAX_WAIT", max_wait)
    t = FakeTime()
    results = run_sessions(logins.Limiter(clock=t.clock, sleep=t.sleep), 4, 30, lambda: False)
    assert results == [False] * 30                      # every one was checked (none turned away)
    assert t.now >= 60
    one = FakeTime()
    run_sessions(logins.Limiter(clock=one.clock, sleep=one.sleep), 1, 30, lambda: False)
    assert t.now >= one.now - float(max_wait)           # four sessions are no faster than one


def test_the_first_failures_are_free_and_then_the_gaps_double_up_to_the_cap(monkeypatch):
    monkeypatch.setenv("RANKBOARD_LOGIN_MAX_WAIT", "8")
    t = FakeTime()
    lim = logins.Limiter(clock=t.clock, sleep=t.sleep)
    starts = []
    for _ in range(10):
        lim.attempt(lambda: starts.append(t.now) or False)
    assert starts == [0, 0, 0, 0, 0, 0, 1, 3, 7, 15]     # gaps 1, 2, 4, 8 after the fifth failure
    lim.attempt(lambda: starts.append(t.now) or True)    # the right secret waits its turn too
    assert starts[-1] == 23
    t.now += 61                                          # a quiet minute: failures forgotten, no wait
    quiet = t.now
    assert lim.attempt(lambda: False) is False and t.now == quiet
    assert lim.attempt(lambda: True) is True and t.now == quiet     # one failure in the minute: still free


def test_failures_are_logged_with_their_time_and_never_the_attempt(caplog):
    t = FakeTime()
    lim = logins.Limiter(clock=t.clock, sleep=t.sleep)
    secret = "hunter2-typed-by-someone"
    with caplog.at_level(logging.WARNING, logger="rankboard.login"):
        for _ in range(3):
            lim.attempt(lambda: secret == "right")
    lines = [r.getMessage() for r in caplog.records if r.name == "rankboard.login"]
    assert len(lines) == 3 and all(line.startswith("failed login at 20") for line in lines)
    assert lines[-1].endswith("(shared password): 3 failed in the last minute")
    assert not any(secret in line for line in lines)


def test_an_attempt_whose_turn_is_more_than_a_minute_away_is_turned_away_unchecked(monkeypatch, caplog):
    monkeypatch.setenv("RANKBOARD_LOGIN_MAX_WAIT", "30")
    t = FakeTime()
    lim = logins.Limiter(clock=t.clock, sleep=t.sleep)
    for _ in range(5):
        lim.attempt(lambda: False)
    lim._next = t.now + logins.MAX_QUEUE_S + 1          # many attempts queued ahead of this one
    checked = []
    with caplog.at_level(logging.WARNING, logger="rankboard.login"):
        assert lim.attempt(lambda: checked.append(1) or True) is None
    assert checked == [] and t.now == 0
    assert "login refused unchecked at" in caplog.records[-1].getMessage()


def test_the_secret_is_still_compared_in_constant_time():
    import inspect
    from dashboard.session import access
    assert "hmac.compare_digest" in inspect.getsource(access.role_for_secret)
    assert "logins.limiter().attempt" in inspect.getsource(access._secret_form)
