"""$RANKBOARD_TIMING_LOG: one JSON line per script run, with the page, the seconds and how the run ended; nothing
when it is unset; a file that cannot be written costs a log line, never the page."""
from __future__ import annotations

import json
import os

import pytest

from dashboard.session import timing
from tests.apptest_kit import assert_clean, open_page
from tests.apptest_kit import app, store_path  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.xdist_group("apptest")


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_script_run_of_the_app_writes_one_line(app, tmp_path, monkeypatch):
    log = tmp_path / "timing.jsonl"
    monkeypatch.setenv("RANKBOARD_TIMING_LOG", str(log))
    at = open_page(app, "perquery")
    assert_clean(at)
    got = lines(log)
    assert [g["page"] for g in got] == ["Leaderboard", "Per-query"]
    assert got[0]["end"] == "done" and got[1]["end"] in ("done", "stop"), got   # a page may stop at a gate
    assert all(g["seconds"] > 0 for g in got)
    assert len({g["session"] for g in got}) == 1 and len(got[0]["session"]) == 12


def test_unset_measures_and_writes_nothing(monkeypatch):
    monkeypatch.delenv("RANKBOARD_TIMING_LOG", raising=False)
    calls = []
    monkeypatch.setattr(timing, "write_line", lambda *a: calls.append(a))
    with timing.timed(lambda: calls.append("page"), session=lambda: calls.append("session")):
        pass
    assert calls == []          # neither the page's name nor the session is asked for, and no line is written


@pytest.mark.parametrize("exc, end", [(None, "done"), (ValueError("x"), "error")])
def test_the_end_of_a_run_is_named(tmp_path, monkeypatch, exc, end):
    log = tmp_path / "t.jsonl"
    monkeypatch.setenv("RANKBOARD_TIMING_LOG", str(log))
    with pytest.raises(type(exc)) if exc else _nothing():
        with timing.timed(lambda: "Data", session=lambda: "s1"):
            if exc:
                raise exc
    (line,) = lines(log)
    assert (line["page"], line["session"], line["end"]) == ("Data", "s1", end)


def test_streamlits_rerun_and_stop_are_named_and_re_raised(tmp_path, monkeypatch):
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
    log = tmp_path / "t.jsonl"
    monkeypatch.setenv("RANKBOARD_TIMING_LOG", str(log))
    for exc in (RerunException(None), StopException()):
        with pytest.raises(type(exc)):
            with timing.timed(lambda: 1 / 0, session=lambda: "s"):
                raise exc
    assert [(g["end"], g["page"]) for g in lines(log)] == [("rerun", "?"), ("stop", "?")]


def test_a_file_that_cannot_be_written_is_logged_once_and_the_run_goes_on(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("RANKBOARD_TIMING_LOG", str(tmp_path / "missing" / "t.jsonl"))
    monkeypatch.setattr(timing, "_FAILED", [])
    for _ in range(3):
        with timing.timed(lambda: "Data", session=lambda: "s"):
            pass
    assert [r.message for r in caplog.records if r.name == "rankboard.timing"] == [
        f"cannot write the timing log {tmp_path / 'missing' / 't.jsonl'}: "
        f"[Errno 2] No such file or directory: '{tmp_path / 'missing' / 't.jsonl'}'"]


def test_lines_of_concurrent_writers_never_interleave(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    log = str(tmp_path / "t.jsonl")
    record = {"page": "x" * 2000}
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: timing.write_line(log, record), range(400)))
    assert [json.loads(line) for line in open(log)] == [record] * 400
    assert os.path.getsize(log) == 400 * (len(json.dumps(record, separators=(",", ":"))) + 1)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
