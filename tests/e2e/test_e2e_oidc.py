"""Team mode with a login provider: a real `streamlit run` with an `[auth]` section, Streamlit's own
`st.login` running the whole OpenID Connect authorization-code flow in chromium against a provider on this
machine (tests/e2e/oidc_provider.py: discovery, redirect, token exchange, an RS256 id_token checked against the
provider's keys). An address on the editors list edits; another signed-in address only views; logging out asks
for a login again."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Server
from tests.e2e.oidc_provider import Provider

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EDITOR, VIEWER = "ana@lab.org", "bo@lab.org"


@pytest.fixture(scope="module")
def provider():
    with Provider("rankboard", "provider-secret") as p:
        yield p


@pytest.fixture(scope="module")
def server(tmp_path_factory, provider):
    work = tmp_path_factory.mktemp("e2e_oidc")
    secrets = work / "secrets.toml"
    srv = Server(work, args=("--secrets.files", str(secrets)),
                 env={"RANKBOARD_ACCESS": "team", "RANKBOARD_EDITORS": EDITOR})
    secrets.write_text(f'[auth]\nredirect_uri = "{srv.url}/oauth2callback"\ncookie_secret = "{"c" * 48}"\n'
                       f'client_id = "rankboard"\nclient_secret = "provider-secret"\n'
                       f'server_metadata_url = "{provider.url}/.well-known/openid-configuration"\n')
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _log_in(app, provider, email: str, role: str) -> None:
    """Through the provider and back: the sidebar then names the role and the address."""
    provider.next_email = email
    app.goto("/")
    expect(app.page.get_by_text("This team's dashboard needs a login.")).to_be_visible()
    app.page.get_by_role("button", name="Log in").click()
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    name, domain = email.split("@")      # the escaped address carries a word joiner after "@" (no autolink)
    who = re.compile(f"^{role} · {re.escape(name)}@\u2060?{re.escape(domain)}$")
    expect(sidebar.get_by_text(who)).to_be_visible(timeout=90_000)
    app.page.wait_for_function("() => window.__e2eRuns >= 1")
    app.wait_idle()


def _data_page(app) -> None:
    """The Data page, drawn (so a missing Load button means a viewer, not a page that did not open)."""
    app.rerun_after(lambda: app.page.get_by_role("link", name=re.compile("^Data")).first.click())
    expect(app.page.get_by_role("heading", name="Data", exact=True)).to_be_visible()


def test_an_editor_logs_in_through_the_provider_and_may_load_runs(app, provider):
    _log_in(app, provider, EDITOR, "Editor")
    assert provider.tokens_issued[-1] == EDITOR                  # the code was exchanged for a signed id_token
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    _data_page(app)
    expect(app.page.get_by_role("button", name=re.compile("^Load"))).not_to_have_count(0)
    sidebar.get_by_role("button", name="Log out").click()
    expect(app.page.get_by_text("This team's dashboard needs a login.")).to_be_visible(timeout=60_000)
    assert not app.errors


def test_another_address_logs_in_as_a_viewer(app, provider):
    _log_in(app, provider, VIEWER, "Viewer")
    assert provider.tokens_issued[-1] == VIEWER
    _data_page(app)
    expect(app.page.get_by_role("button", name=re.compile("^Load"))).to_have_count(0)
    assert not app.errors
