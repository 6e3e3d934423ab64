"""What a user is told about an upload that did not end normally, in Debian's chromium:

- leaving the Data page while a run loads, then coming back, names that run (loaded, or not loaded),
  never the previous upload's file;
- a server killed (SIGKILL) while a run loads, then started again on the same store and port: the
  reconnected tab says which file was stored and which was not, and the store holds no partial run.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect

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

    app.rerun_after(app.key("data_runs_files").get_by_test_id("stFileChipDeleteBtn").first.click)
    _choose_files(app, second)
    app.key("data_runs_load").locator("button").click()
    done = app.page.get_by_test_id("stAlert").filter(has_text="second_upload.run")
    expect(app.page.get_by_test_id("stProgress").or_(done)).to_be_visible(timeout=UI_WAIT_MS)   # the click took
    nav(app, "Curves")                                   # leave while the run is read
    expect(app.page.get_by_role("heading", name="Precision-recall and ROC")).to_be_visible(timeout=UI_WAIT_MS)
    nav(app, "Data")
    app.wait_idle()
    text = _alerts(app)
    assert "first_upload.run" not in text, text
    assert "Loaded second_upload.run" in text or "Not loaded: second_upload.run" in text, text
    app.shot("after_coming_back")
    app.assert_healthy()


@pytest.fixture
def own_server(tmp_path):
    srv = Server(tmp_path)
    srv.start()
    yield srv
    srv.stop()


def test_server_killed_mid_upload_tells_the_reconnected_tab(new_context, own_server, tmp_path):
    from core.store import Store
    from tests.e2e.conftest import App

    small, big = _small_run(tmp_path, "small_first.run"), _big_run(tmp_path, "big_second.run", topics=900)
    app = App(new_context().new_page(), own_server, "server_killed_mid_upload")
    app.goto("/data?collection=robust03-sample")
    _choose_files(app, small, big)
    app.key("data_runs_load").locator("button").click()
    expect(app.page.get_by_test_id("stProgress")).to_contain_text("big_second.run (2 of 2)", timeout=UI_WAIT_MS)
    os.kill(own_server.proc.pid, signal.SIGKILL)
    own_server.proc.wait(timeout=20)
    assert "upload=" in app.page.url

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
