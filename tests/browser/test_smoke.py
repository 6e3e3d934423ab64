"""The app starts on a fresh store and shows its navigation, with no traceback."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PAGES = ["Data", "Leaderboard", "Per-query", "Curves", "Agreement", "Measures"]


def test_app_loads_with_sidebar_navigation(app):
    app.goto("/")
    page = app.page
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav).to_be_visible()
    links = nav.get_by_test_id("stSidebarNavLink")
    texts = [t.strip().lower() for t in links.all_inner_texts()]
    for name in PAGES:
        assert any(name.lower() in t for t in texts), f"no sidebar link for {name!r}; links: {texts}"
    app.assert_healthy()
    app.shot("home")
