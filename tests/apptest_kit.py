"""Helpers for the Streamlit AppTest modules: the app's path, opening a page as a link would, and
reading what a page shows (texts, keyed containers, tables, URL parameters).

The fixtures every AppTest module shares live here too; a module takes them by importing them:

    from tests.apptest_kit import app, private_app, store_path  # noqa: F401  (pytest fixtures)

`store_path`: one copy of the sample store per test module; `app`: an AppTest of the whole app on it;
`private_app`: an AppTest on a copy of its own, for tests that change the data.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "dashboard" / "app.py")
TIMEOUT = 120


@pytest.fixture(scope="module")
def store_path(tmp_path_factory) -> str:
    from tests.fixtures_store import sample_store
    tmp = tmp_path_factory.mktemp("apptest")
    sample_store(tmp).close()
    return str(tmp / "sample.duckdb")


@pytest.fixture
def app(store_path, monkeypatch):
    from streamlit.testing.v1 import AppTest
    monkeypatch.setenv("RANKBOARD_STORE", store_path)
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


@pytest.fixture
def private_app(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest
    from tests.fixtures_store import sample_store
    sample_store(tmp_path).close()
    monkeypatch.setenv("RANKBOARD_STORE", str(tmp_path / "sample.duckdb"))
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def texts(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "success", "title", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(map(str, parts))


def assert_clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert not any("Unexpected error" in str(e) for e in errors), errors + [c.value for c in at.code]


def open_page(at, page: str, **params):
    """Open `page` as a fresh browser would open a link to it (query params included)."""
    for k, v in params.items():
        at.query_params[k] = v
    at.run()                                  # st.navigation must have run once before switch_page
    if page == "leaderboard":
        return at
    at.switch_page(f"app_pages/{page}.py")
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def keyed(at, key: str):
    """The container the app keyed `key` (read-only tables and lists sit in one)."""
    def walk(node):
        for child in getattr(node, "children", {}).values():
            pid = getattr(getattr(child, "proto", None), "id", "")
            if isinstance(pid, str) and pid.endswith("-" + key):
                return child
            found = walk(child)
            if found is not None:
                return found
        return None
    block = walk(at.main) or walk(at.sidebar)
    assert block is not None, f"no element keyed {key!r}"
    return block


def frame(at, key: str):
    return keyed(at, key).dataframe[0].value


def url(at, key: str) -> list[str]:
    """A URL query parameter as a list of values (AppTest keeps single values as plain strings)."""
    value = at.query_params.get(key, [])
    return [value] if isinstance(value, str) else list(value)
