"""Issue 27 point 1, one access check for every write (dashboard/session/access.py `for_editors`, and the shared
Store's `write_check`), in AppTest on a copy of the sample store:

- every call in the dashboard to a store method that writes (found in core: the functions that open a data
  transaction) is made through `for_editors`, so a new page cannot add an unguarded write;
- as a viewer, in each access mode (team without a login, team with the viewer secret, team with a login provider,
  local beyond localhost, and an editor on a read-only store), no page draws a control that writes, and clicking
  every button, toggle and checkbox on every page neither reaches a data write nor changes a table;
- a write that reaches the store from a viewer's session anyway (a crafted request) is refused by the store.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from core.errors import RankboardError
from core.store.store import Store
from tests.fixtures_store import sample_store, snapshot

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
TIMEOUT = 180
pytestmark = pytest.mark.xdist_group("apptest")
PAGES = ["leaderboard", "perquery", "curves", "agreement", "judges", "fusion", "data", "measures", "history", "reproduce"]
VIEW = dict(collection="robust03-sample", baseline="pircRBa1", run="aplrob03a", measure="AP", query="303",
            runs=["pircRBa1", "aplrob03a"])
ENV = ("RANKBOARD_ACCESS", "RANKBOARD_EDITOR_SECRET", "RANKBOARD_VIEWER_SECRET", "RANKBOARD_EDITORS",
       "RANKBOARD_VIEWERS")
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "rankboard",
        "client_secret": "s", "server_metadata_url": "http://localhost:9/.well-known/openid-configuration"}
WRITE_WORDS = ("load", "create", "rename", "delete", "save", "replace", "upload")


# -- the dashboard's store writes all pass through for_editors ------------------------------------------------------
def _core_writes() -> set[str]:
    """Names of core's functions that open a transaction that changes data (not `bump=False`, the results cache)."""
    names = set()
    for path in sorted((ROOT / "core" / "store").glob("*.py")) + sorted((ROOT / "core" / "service").glob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef) or fn.name == "transaction":
                continue
            for call in ast.walk(fn):
                if (isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "transaction"
                        and not any(k.arg == "bump" for k in call.keywords)):
                    names.add(fn.name)
    return names


def _unguarded(path: Path, writes: set[str]) -> list[str]:
    tree = ast.parse(path.read_text())
    guarded_nodes, guarded_functions = set(), set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", None)) == "for_editors":
            for arg in call.args + [k.value for k in call.keywords]:
                for node in ast.walk(arg):
                    guarded_nodes.add(id(node))
                    if isinstance(node, ast.Name):
                        guarded_functions.add(node.id)
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name in guarded_functions:
            guarded_nodes |= {id(node) for node in ast.walk(fn)}
    found = []
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name in writes and id(node) not in guarded_nodes:
            found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno}: {name}")
    return found


def test_every_store_write_in_the_dashboard_goes_through_for_editors():
    writes = _core_writes()
    assert {"add_run", "add_qrels", "add_topics", "add_documents", "add_diversity_qrels", "create_collection",
            "rename_run", "delete_run", "set_note", "delete_collection"} <= writes
    found = [hit for path in sorted((ROOT / "dashboard").rglob("*.py")) for hit in _unguarded(path, writes)]
    assert found == [], "route these through access.for_editors:\n" + "\n".join(found)


def test_the_static_check_catches_a_write_outside_for_editors(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("store.add_qrels(1, b'')\nok = access.for_editors(lambda f: store.add_run(1, f))\n"
                    "def _w(f):\n    store.set_note(1, 'q', f)\nw = access.for_editors(_w)\n")
    found = _unguarded(page, {"add_qrels", "add_run", "set_note"})
    assert len(found) == 1 and found[0].endswith(":1: add_qrels")


# -- viewers in every mode -------------------------------------------------------------------------------------------
@pytest.fixture
def store_path(tmp_path, monkeypatch):
    sample_store(tmp_path).close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    before = config.get_option("server.address")
    yield tmp_path / "sample.duckdb"
    config.set_option("server.address", before)


@pytest.fixture
def writes(monkeypatch):
    """Every data write that reaches the store (a transaction that bumps the data version), refused or not."""
    seen = []
    original = Store.transaction

    def spy(self, *, bump: bool = True):
        if bump:
            seen.append(self.path)
        return original(self, bump=bump)
    monkeypatch.setattr(Store, "transaction", spy)
    return seen


def viewer_session(mode: str, monkeypatch) -> AppTest:
    """An AppTest session that is a viewer in `mode`, past any login."""
    config.set_option("server.address", "0.0.0.0")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if mode == "local-beyond-localhost":
        return at
    monkeypatch.setenv("RANKBOARD_ACCESS", "team")
    monkeypatch.setenv("RANKBOARD_EDITOR_SECRET", "editor secret")
    if mode == "viewer-secret":
        monkeypatch.setenv("RANKBOARD_VIEWER_SECRET", "viewer secret")
        at.run()
        at.text_input(key="access_secret").input("viewer secret")
        at.get("form_submit_button")[0].click()
    elif mode == "oidc":
        monkeypatch.setenv("RANKBOARD_EDITORS", "ana@lab.org")
        at.secrets["auth"] = AUTH
        at.user = {"is_logged_in": True, "email": "bo@lab.org"}
    return at


def open_page(at, page: str):
    for k, v in VIEW.items():
        at.query_params[k] = v
    at.run()
    if page != "leaderboard":
        at.switch_page(f"app_pages/{page}.py")
        for k, v in VIEW.items():
            at.query_params[k] = v
        at.run()
    return at


def write_controls(at) -> list[str]:
    """Controls that would write to the store: an uploader, a button or text area for notes, a write-worded button."""
    found = [f"file uploader {e.proto.id}" for e in at.get("file_uploader")]
    found += [f"button {b.key or b.label!r}" for b in at.button
              if not (b.key or "").startswith("access_") and any(w in b.label.lower() for w in WRITE_WORDS)]
    found += [f"text area {t.label!r}" for t in at.text_area if not t.disabled]
    found += [f"text input {t.key}" for t in at.text_input if (t.key or "").startswith("data_")]
    return found


def click_everything(at) -> int:
    """Click every button, toggle and checkbox once (login and logout left alone); how many were clicked."""
    clicked, seen = 0, set()
    for _ in range(40):
        todo = [w for w in list(at.button) + list(at.toggle) + list(at.checkbox)
                if (w.key or w.label) not in seen and not (w.key or "").startswith("access_")
                and w.label not in ("Log in", "Log out")]
        if not todo:
            return clicked
        widget = todo[0]
        seen.add(widget.key or widget.label)
        (widget.set_value(not widget.value) if widget.type in ("toggle", "checkbox") else widget.click()).run()
        assert not at.exception, [e.value for e in at.exception]
        clicked += 1
    return clicked


MODES = ["team-no-login", "viewer-secret", "oidc", "local-beyond-localhost"]


@pytest.mark.parametrize("mode", MODES)
def test_a_viewer_sees_no_write_control_on_any_page_and_clicking_everything_writes_nothing(
        store_path, writes, monkeypatch, mode):
    at = viewer_session(mode, monkeypatch)
    before = None
    clicked = 0
    for page in PAGES:
        at = open_page(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert [t.value for t in at.title][-1:] != ["Rankboard"], f"{page}: still at the login"
        if before is None:
            with Store.open(store_path, load_sample=False) as s:
                before = snapshot(s)
        assert write_controls(at) == [], page
        if page == "perquery":      # the meeting's note is shown, and cannot be changed
            assert [t.disabled for t in at.text_area if t.label == "Note for this query"] == [True]
        clicked += click_everything(at)
        assert write_controls(at) == [], page
    assert clicked >= 1 and writes == []
    with Store.open(store_path, load_sample=False) as s:
        after = snapshot(s)
    after.pop("results"), before.pop("results")          # the results cache may grow: it is not data
    assert after == before


def test_an_editor_on_a_read_only_store_reads_every_page_and_sees_why_nothing_can_change(
        store_path, writes, monkeypatch):
    from core.store import faults
    monkeypatch.setattr(faults, "unwritable", lambda path: "file")     # as a file without write permission
    config.set_option("server.address", "localhost")                  # local mode: an editor, were it writable
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for page in PAGES:
        at = open_page(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert write_controls(at) == [], page
        assert any("The store is read-only" in w.value for w in at.sidebar.warning), page
        if page == "data":      # where the uploads were, the page says why there are none
            assert any("The store is read-only" in i.value for i in at.info)
    assert writes == []


def test_the_spy_sees_an_editors_write(store_path, writes):
    """The viewers' checks are not vacuous: an editor's Judges and Data pages have write controls (the Judges
    uploader among them), and an editor creating a collection is seen."""
    config.set_option("server.address", "localhost")
    at = open_page(AppTest.from_file(APP, default_timeout=TIMEOUT), "judges")
    assert any(c.startswith("file uploader") for c in write_controls(at))
    at = open_page(at, "data")
    assert len([c for c in write_controls(at) if c.startswith("file uploader")]) == 8   # runs ... scores, nuggets (2)
    at.text_input(key="data_new_collection").input("new-one")
    at.button(key="data_create_collection").click().run()
    assert not at.exception and writes == [store_path]


# -- the store refuses a viewer's write that got past the pages ------------------------------------------------------
def test_the_store_refuses_a_write_from_a_viewers_session(tmp_path, monkeypatch):
    from dashboard.cache import store as store_resource
    from dashboard.session import access
    with sample_store(tmp_path) as store:
        before = snapshot(store)
        monkeypatch.setattr(store_resource, "get_store", lambda: store)
        monkeypatch.setattr(access, "role", lambda: access.VIEWER)
        assert access.for_editors(store.add_qrels) is None and not access.can_edit()
        store.write_check = access.require_editor
        for write in (lambda: store.add_qrels("robust03-sample", b"301 0 d1 1\n", filename="q.txt"),
                      lambda: store.create_collection("x"), lambda: store.set_note("robust03-sample", "301", "hi"),
                      lambda: store.delete_run(1)):
            with pytest.raises(RankboardError, match="^Only editors may change the store"):
                write()
        monkeypatch.setattr(access, "role", lambda: access.EDITOR)
        checked = access.for_editors(store.create_collection)
        monkeypatch.setattr(access, "role", lambda: access.VIEWER)     # the role changed since the page drew it
        with pytest.raises(RankboardError, match="^Only editors may change the store"):
            checked("y")
        assert snapshot(store) == before
