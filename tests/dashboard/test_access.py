"""Who may do what (dashboard/session/access.py), in AppTest on a copy of the sample store: local, open, team
with a shared secret (with and without a viewer secret), team with an OIDC provider (st.user seeded),
and the read-only fallback when the server listens beyond localhost without team mode."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.fixtures_store import sample_store

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
TIMEOUT = 120
pytestmark = pytest.mark.xdist_group("apptest")
EDITOR_SECRET, VIEWER_SECRET = "correct horse", "battery staple"
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32,
        "client_id": "rankboard", "client_secret": "s", "server_metadata_url":
            "http://localhost:9/.well-known/openid-configuration"}
ENV = ("RANKBOARD_ACCESS", "RANKBOARD_EDITOR_SECRET", "RANKBOARD_VIEWER_SECRET", "RANKBOARD_EDITORS",
       "RANKBOARD_VIEWERS")


@pytest.fixture
def app(tmp_path, monkeypatch):
    sample_store(tmp_path).close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


@pytest.fixture
def address():
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


def data_page(at):
    at.run()
    at.switch_page("app_pages/data.py")
    return at.run()


def test_local_mode_on_localhost_edits(app, address):
    address("localhost")
    at = data_page(app)
    assert not at.exception
    assert "data_runs_load" in {b.key for b in at.button}
    assert "data_create_collection" in {b.key for b in at.button}


def test_local_mode_beyond_localhost_is_read_only(app, address):
    address("0.0.0.0")
    at = data_page(app)
    assert not at.exception
    assert not {"data_runs_load", "data_create_collection", "data_rename"} & {b.key for b in at.button}
    assert any("listens beyond localhost" in w.value for w in at.sidebar.warning)
    assert any("need an editor login" in i.value for i in at.info)


def test_open_mode_edits_anywhere(app, address, monkeypatch):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "open")
    at = data_page(app)
    assert "data_runs_load" in {b.key for b in at.button}


def test_team_shared_secret_viewers_read_and_the_editor_password_unlocks(app, address, monkeypatch):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITOR_SECRET", EDITOR_SECRET)
    at = data_page(app)
    assert not at.exception
    assert "data_runs_load" not in {b.key for b in at.button}
    assert [c.value for c in at.sidebar.caption][-1] == "Viewer"
    at.text_input(key="access_secret").input("wrong")
    at.sidebar.get("form_submit_button")[0].click()
    at.run()
    assert "not right" in at.sidebar.error[0].value
    assert "data_runs_load" not in {b.key for b in at.button}
    at.text_input(key="access_secret").input(EDITOR_SECRET)
    at.sidebar.get("form_submit_button")[0].click()
    at.run()
    assert not at.exception
    assert "data_runs_load" in {b.key for b in at.button}
    assert [c.value for c in at.sidebar.caption][-1] == "Editor"
    at.button(key="access_logout").click().run()
    assert "data_runs_load" not in {b.key for b in at.button}


def test_team_viewer_secret_guards_everything(app, address, monkeypatch):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITOR_SECRET", EDITOR_SECRET)
    monkeypatch.setenv("RANKBOARD_VIEWER_SECRET", VIEWER_SECRET)
    at = app.run()
    assert not at.exception
    assert not at.get("plotly_chart") and [t.value for t in at.title] == ["Rankboard"]
    assert not at.sidebar.get("selectbox")               # not even the collection names
    at.text_input(key="access_secret").input(VIEWER_SECRET)
    at.get("form_submit_button")[0].click()
    at.run()
    assert not at.exception
    assert at.selectbox(key="sidebar_collection").value in ("robust03-sample", "dl23-llmjudge")
    at.switch_page("app_pages/data.py").run()
    assert "data_runs_load" not in {b.key for b in at.button}


def test_team_viewer_reads_notes_but_cannot_write_them(app, address, monkeypatch):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITOR_SECRET", EDITOR_SECRET)
    view = dict(collection="robust03-sample", baseline="pircRBa1", run="aplrob03a", measure="AP")
    app.query_params.update(view)
    at = app.run()
    at.switch_page("app_pages/perquery.py")
    at.query_params.update(view)
    at.run()
    qid = at.selectbox(key="pq_query").options[1].split(":")[0]
    at.selectbox(key="pq_query").set_value(qid).run()
    assert not at.exception
    assert "pq_note_save" not in {b.key for b in at.button}
    notes = [t for t in at.text_area if t.label == "Note for this query"]
    assert len(notes) == 1 and notes[0].disabled


@pytest.mark.parametrize("email,role", [("ana@lab.org", "Editor"), ("bo@lab.org", "Viewer")])
def test_team_oidc_roles_from_the_editor_list(app, address, monkeypatch, email, role):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITORS", "Ana@lab.org, cy@lab.org")
    app.secrets["auth"] = AUTH
    app.user = {"is_logged_in": False}
    at = app.run()
    assert not at.exception
    assert [b.key for b in at.button] == ["access_oidc_login"]
    assert not at.sidebar.get("selectbox")
    at.user = {"is_logged_in": True, "email": email}
    at.run()
    at.switch_page("app_pages/data.py").run()
    assert not at.exception
    assert ("data_runs_load" in {b.key for b in at.button}) == (role == "Editor")
    assert at.sidebar.caption[-1].value.startswith(role)


def test_team_oidc_viewer_list_turns_others_away(app, address, monkeypatch):
    address("0.0.0.0")
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITORS", "ana@lab.org")
    monkeypatch.setenv("RANKBOARD_VIEWERS", "bo@lab.org")
    app.secrets["auth"] = AUTH
    app.user = {"is_logged_in": True, "email": "eve@elsewhere.org"}
    at = app.run()
    assert "may not see this dashboard" in at.error[0].value
    assert not at.sidebar.get("selectbox")


def test_team_without_any_secret_says_what_to_set(app, address, monkeypatch):
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    at = app.run()
    assert not at.exception
    assert "RANKBOARD_EDITOR_SECRET" in at.error[0].value


def test_unknown_mode_is_a_clear_error(app, monkeypatch):
    monkeypatch.setenv("RANKBOARD_ACCESS", "everyone")
    at = app.run()
    assert not at.exception
    assert "access settings are wrong" in at.error[0].value
    assert at.code[0].value == "RANKBOARD_ACCESS is 'everyone': use one of local, team, open."


def test_replacing_a_run_needs_a_confirmation(app, address):
    address("localhost")
    at = data_page(app)
    at.selectbox(key="data_runs_on_conflict").set_value("replace").run()
    assert at.button(key="data_runs_load").disabled
    at.checkbox(key="data_runs_confirm_replace").check().run()
    assert not at.exception
    assert at.checkbox(key="data_runs_confirm_replace").value


def test_a_viewer_session_cannot_write_even_through_a_direct_call(monkeypatch):
    from core.errors import RankboardError
    from dashboard.session import access
    monkeypatch.setattr(access, "role", lambda: access.VIEWER)
    with pytest.raises(RankboardError, match="Only editors may change the store"):
        access.require_editor()


def test_roles_from_email_and_secret():
    from dashboard.session.access import EDITOR, VIEWER, Settings, role_for_email, role_for_secret
    s = Settings(mode="team", editor_secret="e", viewer_secret="v", editors=("ana@lab.org",))
    assert role_for_secret("e", s) == EDITOR and role_for_secret("v", s) == VIEWER
    assert role_for_secret("", s) is None and role_for_secret("e ", s) is None
    assert role_for_email("ANA@lab.org", s) == EDITOR and role_for_email("x@y.z", s) == VIEWER
    assert role_for_email("x@y.z", Settings(mode="team", viewers=("bo@lab.org",))) is None
