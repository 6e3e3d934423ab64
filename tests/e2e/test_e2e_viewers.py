"""Issue 27 point 1 in Debian's chromium: a viewer, in each access mode, visits every page and finds no control that
writes (no uploader, no load/create/rename/delete/save button, no note to edit), clicks every button and checkbox
there is, and leaves the store's tables as they were.

The modes: team mode without a login (the editor secret set), team mode with the viewer secret (logged in with it),
team mode with a login provider (tests/e2e/oidc_provider.py, a signed-in address not on the editors list), and
local mode on a non-loopback address (127.0.0.2), which is read-only for everyone.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from core.store.store import Store
from tests.e2e.conftest import Server
from tests.e2e.oidc_provider import Provider
from tests.fixtures_store import snapshot

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("e2e")]
UI_WAIT_MS = 120_000
VIEW = "collection=robust03-sample&baseline=pircRBa1&run=aplrob03a&measure=AP&query=303"
PAGES = ["", "per-query", "curves", "agreement", "judges", "fusion", "data", "measures"]
WRITE_WORDS = re.compile(r"\b(load|create|rename|delete|save|upload|replace)\b", re.IGNORECASE)
VIEWER_EMAIL = "bo@lab.org"
MODES = ["team-no-login", "viewer-secret", "oidc", "local-on-127.0.0.2"]


@pytest.fixture(scope="module")
def provider():
    with Provider("rankboard", "provider-secret") as p:
        yield p


@pytest.fixture(scope="module", params=MODES)
def mode_server(request, tmp_path_factory, provider):
    mode = request.param
    work = tmp_path_factory.mktemp(f"e2e_viewer_{mode}")
    team = {"RANKBOARD_ACCESS": "team", "RANKBOARD_EDITOR_SECRET": "the editor's secret"}
    if mode == "team-no-login":
        srv = Server(work, env=team)
    elif mode == "viewer-secret":
        srv = Server(work, env=team | {"RANKBOARD_VIEWER_SECRET": "the viewers' secret"})
    elif mode == "oidc":
        secrets = work / "secrets.toml"
        srv = Server(work, args=("--secrets.files", str(secrets)),
                     env={"RANKBOARD_ACCESS": "team", "RANKBOARD_EDITORS": "ana@lab.org"})
        secrets.write_text(f'[auth]\nredirect_uri = "{srv.url}/oauth2callback"\ncookie_secret = "{"c" * 48}"\n'
                           f'client_id = "rankboard"\nclient_secret = "provider-secret"\n'
                           f'server_metadata_url = "{provider.url}/.well-known/openid-configuration"\n')
    else:                                    # local mode, listening beyond loopback's 127.0.0.1
        srv = Server(work, args=("--server.address", "127.0.0.2"), env={"RANKBOARD_ACCESS": "local"})
        srv.url = f"http://127.0.0.2:{srv.port}"
    srv.start()
    try:
        yield mode, srv
    finally:
        srv.stop()


def _log_in(app, mode: str, provider) -> None:
    """Become a viewer in `mode` (nothing to do without a login)."""
    if mode == "viewer-secret":
        app.page.get_by_label("Team password").fill("the viewers' secret")
        app.rerun_after(lambda: app.page.get_by_role("button", name="Log in").click())
        expect(app.page.get_by_role("heading", name="Leaderboard")).to_be_visible(timeout=UI_WAIT_MS)
    elif mode == "oidc":
        provider.next_email = VIEWER_EMAIL
        app.page.get_by_role("button", name="Log in").click()
        sidebar = app.page.locator('[data-testid="stSidebar"]')
        expect(sidebar.get_by_text(re.compile(r"^Viewer · "))).to_be_visible(timeout=UI_WAIT_MS)
        app.page.wait_for_function("() => window.__e2eRuns >= 1")
        app.wait_idle()


def write_controls(page) -> list[str]:
    found = [f"uploader {i}" for i in range(page.locator('[data-testid="stFileUploader"], input[type="file"]').count())]
    for button in page.get_by_role("button").all():
        if button.is_visible() and WRITE_WORDS.search(button.inner_text() or ""):
            found.append(f"button {button.inner_text()!r}")
    found += [f"text area {i}" for i in range(page.locator("textarea:not([disabled])").count())]
    return found


def click_everything(app) -> int:
    """Click each visible, enabled button and checkbox of the page's main area once (downloads included); returns
    how many were clicked. A control that a rerun removed is skipped."""
    main = app.page.locator('[data-testid="stMain"]')
    controls = main.locator('button:not([disabled]), input[type="checkbox"]:not([disabled])')
    clicked = 0
    for i in range(min(controls.count(), 40)):
        control = controls.nth(i)
        try:
            if not control.is_visible() or WRITE_WORDS.search(control.inner_text() or ""):
                continue
            control.click(timeout=5_000, force=True)
            app.wait_idle()
            clicked += 1
        except Exception:  # noqa: BLE001 - gone after a rerun, or covered: the others still get clicked
            continue
    return clicked


def tables(store_path) -> dict:
    with Store.open(store_path, load_sample=False) as store:
        data = snapshot(store)
    data.pop("results")                  # the results cache is not data: evaluating may add to it
    return data


def test_a_viewer_finds_no_write_control_and_changes_nothing(mode_server, new_context, provider):
    from tests.e2e.conftest import App
    mode, server = mode_server
    app = App(new_context().new_page(), server, f"viewer_{mode}")
    app.goto("/")
    _log_in(app, mode, provider)
    before = tables(server.store)
    clicked = 0
    for path in PAGES:
        app.goto(f"/{path}?{VIEW}")
        expect(app.page.get_by_role("heading").first).to_be_visible(timeout=UI_WAIT_MS)
        app.assert_healthy()
        assert write_controls(app.page) == [], (mode, path)
        clicked += click_everything(app)
        app.goto(f"/{path}?{VIEW}")
        assert write_controls(app.page) == [], (mode, path)
    if mode == "local-on-127.0.0.2":
        expect(app.page.get_by_text("listens beyond localhost")).to_be_visible()
    assert clicked >= 5
    assert tables(server.store) == before
