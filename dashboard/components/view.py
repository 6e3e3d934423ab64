"""What fixes a view: the link that pins it, and the offer to add runs that appeared after the runs were picked."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from dashboard.components.escape import md_format


def render_link(*, link: str | None, on_pin: Callable, key: str) -> None:
    """A "Copy link" button: `on_pin` pins the view's selections in the URL (runs that otherwise follow the
    data); in the run it causes, `link` (this view's address, built after the pin) is shown with a copy button."""
    if st.button("Copy link", key=key, icon=":material/link:", on_click=on_pin, width="stretch",
                 help="A link to this view with its runs fixed. Until you pick runs (or press this), the "
                      "Leaderboard shows all of the collection's runs, new ones included.") and link:
        st.code(link, language=None, wrap_lines=True)
        st.caption("Copy it with the button beside the link; the address bar holds it too.")


def render_new_runs(new: list[str], *, on_add: Callable, on_dismiss: Callable, key: str) -> None:
    """The runs that appeared in the collection after the runs were picked (`new`), with "Add them" and "Not now"."""
    with st.container(key=key):
        st.info(md_format("New runs in this collection, not among the runs you picked: {}.", ", ".join(new)),
                icon=":material/fiber_new:")
        add, dismiss, _ = st.columns([1, 1, 3])
        add.button("Add them", key=f"{key}_add", type="primary", on_click=on_add, width="stretch")
        dismiss.button("Not now", key=f"{key}_dismiss", on_click=on_dismiss, width="stretch")
