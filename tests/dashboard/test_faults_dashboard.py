"""Issue 27 point 4 in AppTest: nothing about the server reaches a visitor. An unexpected error inside a page's
guarded step, or anywhere else on a page, is one plain line (its type, message and traceback go to the log); a
store problem is shown in its public words; the upload journal that cannot be written does not stop an upload.
The browser tests (tests/e2e/test_e2e_faults.py) cover the faults of a real server."""
from __future__ import annotations

import logging

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from core.errors import ServerFault
from dashboard.session import uploads
from dashboard.session.serverlog import PUBLIC_ERROR
from tests.apptest_kit import APP, TIMEOUT, private_app  # noqa: F401  (pytest fixture)

pytestmark = pytest.mark.xdist_group("apptest")
SECRET_PATH = "/srv/secret/place/store.duckdb"


@pytest.fixture(autouse=True)
def localhost():
    before = config.get_option("server.address")
    config.set_option("server.address", "localhost")
    yield
    config.set_option("server.address", before)


def shown(at) -> str:
    return "\n".join(str(e.value) for kind in ("error", "code", "markdown", "info", "warning", "exception")
                     for e in getattr(at, kind))


def test_an_unexpected_error_in_a_guarded_step_shows_no_detail(private_app, monkeypatch, caplog):
    from dashboard.cache import results
    monkeypatch.setattr(results, "resolved", lambda *a, **k: (_ for _ in ()).throw(OSError(13, "Permission denied",
                                                                                            SECRET_PATH)))
    with caplog.at_level(logging.ERROR, logger="rankboard.dashboard"):
        at = private_app.run()
    text = shown(at)
    assert "Unexpected error while trying to evaluate the runs" in text
    assert "The details are in the server's log." in text
    assert SECRET_PATH not in text and "PermissionError" not in text and not at.exception
    assert any(r.exc_info and SECRET_PATH in str(r.exc_info[1]) for r in caplog.records)     # for the operator


def test_an_unexpected_error_outside_any_guard_is_one_plain_line(private_app, monkeypatch, caplog):
    from dashboard.cache import catalogue
    monkeypatch.setattr(catalogue, "samples", lambda: (_ for _ in ()).throw(ValueError(f"bad {SECRET_PATH}")))
    with caplog.at_level(logging.ERROR, logger="rankboard.dashboard"):
        at = private_app.run()
    assert [e.value for e in at.error] == [PUBLIC_ERROR] and not at.exception
    assert SECRET_PATH not in shown(at)
    assert "unexpected error on a page" in caplog.text


def test_a_store_fault_is_shown_in_its_public_words(private_app, monkeypatch):
    from dashboard.cache import catalogue
    fault = ServerFault(f"{SECRET_PATH}: the disk holding the store is full", "The server's disk is full.")
    monkeypatch.setattr(catalogue, "collections", lambda: (_ for _ in ()).throw(fault))
    at = private_app.run()
    assert [e.value for e in at.error] == ["The server's disk is full."] and SECRET_PATH not in shown(at)


def test_an_upload_journal_that_cannot_be_written_is_left_out(tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    journal = uploads.Journal(blocker / "store.duckdb")    # its folder would be inside a file
    with caplog.at_level(logging.WARNING, logger="rankboard.dashboard"):
        assert journal.start(uploader="data_runs", files=["a.run"]) is None
    assert "upload journal off for this batch" in caplog.text
    journal.record("0123abcd", {"file": "a.run", "ok": True})     # nothing to record into: no error either
