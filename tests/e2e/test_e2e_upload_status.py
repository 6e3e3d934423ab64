"""What a user is told about an upload that did not end normally, in Debian's chromium:

- leaving the Data page while a run loads, then coming back, names that run (loaded, or not loaded),
  never the previous upload's file;
- a server killed (SIGKILL) while a run loads, then started again on the same store and port: the
  reconnected tab says which file was stored and which was not, and the store holds no partial run.
"""
from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from dashboard.session import uploads
from tests.e2e.conftest import Server, nav

UI_WAIT_MS = 120_000     # a loaded CI machine can take long over a rerun
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e")]

def _run(tmp_path: Path, name: str, *, topics: int, depth: int) -> Path:
    """A run of topics x depth lines tagged after its file; a big one (1.5M lines) takes long enough to
    load that a click or a kill lands while it is being read."""
    tag = name.split(".")[0]
    lines = [f"{600 + t} Q0 D{t}-{d} {d + 1} {depth - d} {tag}\n" for t in range(topics) for d in range(depth)]
    path = tmp_path / name
    path.write_text("".join(lines))
    return path


def _small_run(tmp_path: Path, name: str) -> Path:
    return _run(tmp_path, name, topics=50, depth=100)


def _big_run(tmp_path: Path, name: str, topics: int = 600) -> Path:
    return _run(tmp_path, name, topics=topics, depth=2500)


def _choose_files(app, *paths: Path) -> None:
    app.key("data_runs_files").locator('input[type="file"]').set_input_files([str(p) for p in paths])
    for p in paths:
        expect(app.key("data_runs_files").get_by_text(p.name, exact=True)).to_be_visible(timeout=UI_WAIT_MS)


def _alerts(app) -> str:
    return " | ".join(app.page.get_by_test_id("stAlert").all_inner_texts()).replace("\u2060", "")


def test_leaving_the_page_mid_upload_reports_this_upload_not_the_last(app, tmp_path):
    first, second = _small_run(tmp_path, "first_upload.run"), _big_run(tmp_path, "second_upload.run")
    app.goto("/data?collection=robust03-sample")     # the runs' topics are the sample's
    _choose_files(app, first)
    app.rerun_after(app.key("data_runs_load").locator("button").click)
    loaded = app.page.get_by_test_id("stAlert").filter(has_text="Loaded first_upload.run")
    expect(loaded).to_be_visible(timeout=UI_WAIT_MS)

    expect(app.key("data_runs_files").get_by_test_id("stFileChipDeleteBtn")).to_have_count(0)   # emptied by the load
    _choose_files(app, second)
    app.key("data_runs_load").locator("button").click()
    done = app.page.get_by_test_id("stAlert").filter(has_text="second_upload.run")
    expect(app.page.get_by_test_id("stProgress").or_(done)).to_be_visible(timeout=UI_WAIT_MS)   # the click took
    nav(app, "Curves")                                   # leave while the run is read
    expect(app.page.get_by_role("heading", name="Precision-recall and ROC")).to_be_visible(timeout=UI_WAIT_MS)
    nav(app, "Data")
    app.wait_idle()
    # the load may still be finishing when the page is back (on a busy machine the page's rerun comes first): wait
    # for this upload's outcome to be shown, then check that the earlier upload's is not
    outcome = re.compile(r"(Loaded|Not loaded:) second_upload\.run")
    expect(app.page.get_by_test_id("stAlert").filter(has_text=outcome).first).to_be_visible(timeout=UI_WAIT_MS)
    text = _alerts(app)
    assert "first_upload.run" not in text, text
    assert "Loaded second_upload.run" in text or "Not loaded: second_upload.run" in text, text
    app.shot("after_coming_back")
    app.assert_healthy()


def _store_state(path: Path) -> tuple[dict, dict]:
    """({run name: rows}, {run name: AP}) of the sample collection, with every derived row belonging to a run
    whose row count it matches (no half-loaded run anywhere)."""
    from core.service.evaluate import evaluate_stored
    from core.store.store import Store
    with Store.open(path, load_sample=False) as store:
        with store.session() as con:
            rows = con.execute("SELECT r.name, r.n_rows, (SELECT count(*) FROM run_docs d WHERE d.run_id = r.run_id) "
                               "FROM runs r JOIN collections c USING (collection_id) WHERE c.name = ?",
                               ["robust03-sample"]).fetchall()
            assert all(n == stored for _, n, stored in rows), rows
            for table in ("run_docs", "run_topics", "judged_rows", "results"):
                orphans = con.execute(f"SELECT count(*) FROM {table} WHERE run_id NOT IN (SELECT run_id FROM runs)"
                                      ).fetchall()[0][0]
                assert orphans == 0, f"{orphans} rows of {table} belong to no run"
        ids = store.runs("robust03-sample")["run_id"].tolist()
        summary = evaluate_stored(store, "robust03-sample", ids, ["AP"]).summary
    return {name: n for name, n, _ in rows}, dict(zip(summary["run"], summary["value"].round(12)))


@pytest.fixture
def own_server(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKBOARD_LINGER", "0")   # the server holds the store only while it works on it
    srv = Server(tmp_path)
    srv.start()
    yield srv
    srv.stop()


def _has_store_open(pid: int, store: Path) -> bool:
    """True while process `pid` has the DuckDB file itself open (it is connected: inside a session)."""
    fds = Path(f"/proc/{pid}/fd")
    names = []
    for fd in fds.iterdir():
        try:
            names.append(os.readlink(fd))
        except OSError:       # closed meanwhile
            pass
    return str(store) in names


def _wait_for(what, check, timeout_s: float, poll_s: float) -> None:
    import time
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(poll_s)    # poll interval of a bounded wait


@pytest.mark.parametrize("moment", ["parsing", "inserting"])
def test_server_killed_mid_upload_tells_the_reconnected_tab(new_context, own_server, tmp_path, moment):
    """Killed while the second file loads: while it is parsed (the store untouched), or once the server has
    opened the store and begun writing the insert into it (inside the transaction; Linux's /proc tells when
    the file is open, its size when the insert's blocks land). Either way the journal has the first file's outcome
    and not the second's, the store holds the first run whole and nothing of the second, every earlier run
    evaluates as before, and the reconnected tab says so after the restart."""
    from core.store.store import Store
    from tests.e2e.conftest import App

    small, big = _small_run(tmp_path, "small_first.run"), _big_run(tmp_path, "big_second.run", topics=900)
    app = App(new_context().new_page(), own_server, f"server_killed_mid_upload_{moment}")
    app.goto("/data?collection=robust03-sample")
    runs_before, values_before = _store_state(own_server.store)
    _choose_files(app, small, big)
    app.key("data_runs_load").locator("button").click()
    expect(app.page.get_by_test_id("stProgress")).to_contain_text("big_second.run (2 of 2)", timeout=UI_WAIT_MS)
    if moment == "inserting":     # the big file is parsed without the store; the server takes it to insert
        pid, store = own_server.proc.pid, own_server.store
        _wait_for("the store to be closed during the parse", lambda: not _has_store_open(pid, store), 60, 0.01)
        size = store.stat().st_size
        _wait_for("the server to open the store", lambda: _has_store_open(pid, store), UI_WAIT_MS / 1000, 0.002)
        # DuckDB writes a large insert's blocks into the file before the commit: kill once they start to land
        _wait_for("the insert to write", lambda: store.stat().st_size > size or Path(f"{store}.wal").exists(),
                  UI_WAIT_MS / 1000, 0.002)
    killed = own_server.proc.pid
    os.kill(killed, signal.SIGKILL)
    own_server.proc.wait(timeout=20)
    assert "upload=" in app.page.url
    token = parse_qs(urlparse(app.page.url).query)["upload"][0]
    entry = uploads.read(own_server.store, token)         # the journal beside the store, as the kill left it
    assert entry["pid"] == killed and entry["files"] == ["small_first.run", "big_second.run"]
    assert [o["file"] for o in entry["outcomes"]] == ["small_first.run"] and not entry["finished"]
    runs_killed, values_killed = _store_state(own_server.store)     # the server is down: nothing half-loaded
    assert runs_killed == {**runs_before, "small_first": 5_000}
    assert {k: values_killed[k] for k in values_before} == values_before

    own_server.start()                                    # same store, same port
    warning = app.page.get_by_test_id("stAlert").filter(has_text="The server stopped")
    expect(warning).to_be_visible(timeout=120_000)
    text = _alerts(app)
    assert "Loaded small_first.run" in text, text
    assert "Not loaded: big_second.run" in text, text
    app.shot("reconnected")
    own_server.stop()
    with Store.open(own_server.store, load_sample=False) as store:
        names = set(store.runs("robust03-sample")["filename"])
    assert "small_first.run" in names and "big_second.run" not in names
    assert _store_state(own_server.store) == (runs_killed, values_killed)      # the restart changed nothing
