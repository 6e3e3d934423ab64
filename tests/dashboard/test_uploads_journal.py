"""dashboard/session/uploads.py: the upload journal a restarted server or a new session reads."""
from __future__ import annotations

import json
import os

from dashboard.session import uploads


def test_a_batch_is_written_before_any_file_and_each_outcome_after_it(tmp_path):
    store = tmp_path / "store.duckdb"
    token = uploads.start(store, uploader="data_runs", files=["a.run", "b.run"])
    entry = uploads.read(store, token)
    assert entry["files"] == ["a.run", "b.run"] and entry["outcomes"] == [] and not entry["finished"]
    assert uploads.unfinished(entry) == ["a.run", "b.run"] and not uploads.over(entry)
    uploads.record(store, token, {"file": "a.run", "ok": True, "name": "a", "n_rows": 3, "warnings": []})
    entry = uploads.read(store, token)
    assert uploads.unfinished(entry) == ["b.run"] and not uploads.over(entry)
    uploads.record(store, token, {"file": "b.run", "ok": False, "message": "b.run, line 1: ..."})
    entry = uploads.read(store, token)
    assert entry["finished"] and uploads.unfinished(entry) == [] and uploads.over(entry)


def test_a_stopped_batch_and_a_restarted_server_are_over(tmp_path):
    store = tmp_path / "store.duckdb"
    token = uploads.start(store, uploader="data_runs", files=["a.run", "a.run"])   # the same name twice
    uploads.record(store, token, {"file": "a.run", "ok": True, "name": "a", "n_rows": 3, "warnings": []})
    uploads.record(store, token, stopped=True)
    entry = uploads.read(store, token)
    assert entry["stopped"] and uploads.over(entry) and uploads.unfinished(entry) == ["a.run"]
    other = uploads.start(store, uploader="data_runs", files=["c.run"])
    path = tmp_path / "store.duckdb.uploads" / f"{other}.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, pid=os.getpid() + 1)))
    entry = uploads.read(store, other)
    assert uploads.server_restarted(entry) and uploads.over(entry)


def test_tokens_from_the_url_never_leave_the_journal_folder(tmp_path):
    store = tmp_path / "store.duckdb"
    (tmp_path / "secret.json").write_text("{}")
    assert uploads.read(store, "../secret") is None
    assert uploads.read(store, "nosuchtoken") is None
