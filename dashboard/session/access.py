"""Who may do what in the dashboard: viewers read, editors also upload, rename, delete and write notes.

Three modes, from $RANKBOARD_ACCESS, else `[rankboard] access` in .streamlit/secrets.toml:

- `local` (the default): one person on their own machine. Everyone who reaches the server edits, and
  the server listens on 127.0.0.1 only (dashboard/.streamlit/config.toml). Started on another address without
  team mode, nobody may edit from the browser (a warning says how to turn team mode on).
- `team`: a shared machine. With an OIDC provider in `[auth]` (Streamlit's own `st.login`), people
  log in and `editors = ["ana@lab.org", ...]` are editors; everyone else who logs in views (or only
  the `viewers` listed, when a list is given). Without one, a shared secret: the editor secret
  ($RANKBOARD_EDITOR_SECRET or `editor_secret`) makes a session an editor; the viewer secret
  ($RANKBOARD_VIEWER_SECRET or `viewer_secret`), when set, is needed to see anything at all.
- `open`: a trusted network where anyone who reaches the port may edit (an explicit choice).

Every control that writes to the store goes through one function, `for_editors(write)`: it returns None to a
session that may not edit (the page then draws no control for it), and otherwise `write` wrapped so that it asks
again when it runs. The store itself asks too: app.py hands `require_editor` to the shared Store as its
`write_check`, which every data write calls first, so a write that a page forgot to route through
`for_editors` (or a crafted request) is still refused. A store that can only be read (core/store/store.py)
makes every session a reader, and the sidebar says why.

The command line is not affected: it reads and writes the store file directly.
"""
from __future__ import annotations

import functools
import hmac
import os
from dataclasses import dataclass
from typing import Callable, TypeVar

import streamlit as st

from core.errors import RankboardError
from dashboard.cache import store as store_resource
from dashboard.components.feedback import show_error
from dashboard.components.escape import md_format
from dashboard.session import logins

EDITOR, VIEWER = "editor", "viewer"
MODES = ("local", "team", "open")
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_ROLE, _WHO = "_rankboard_role", "_rankboard_who"
T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    mode: str = "local"
    editor_secret: str | None = None
    viewer_secret: str | None = None
    oidc: bool = False
    editors: tuple[str, ...] = ()
    viewers: tuple[str, ...] | None = None     # None: anyone who logs in may view


def _secrets() -> tuple[dict, bool]:
    """([rankboard] section, whether an [auth] section exists); ({}, False) without a secrets file."""
    try:
        return dict(st.secrets.get("rankboard", {})), "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets.toml at all is the normal local case
        return {}, False


def _names(value) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else (value or [])
    return tuple(s.strip().lower() for s in items if str(s).strip())


def settings() -> Settings:
    """The access settings; environment variables override secrets.toml."""
    sec, oidc = _secrets()
    mode = (os.environ.get("RANKBOARD_ACCESS") or sec.get("access") or "local").strip().lower()
    if mode not in MODES:
        raise RankboardError(f"RANKBOARD_ACCESS is {mode!r}: use one of {', '.join(MODES)}.")
    viewers = os.environ.get("RANKBOARD_VIEWERS") or sec.get("viewers")
    return Settings(mode=mode, oidc=oidc,
                    editor_secret=os.environ.get("RANKBOARD_EDITOR_SECRET") or sec.get("editor_secret") or None,
                    viewer_secret=os.environ.get("RANKBOARD_VIEWER_SECRET") or sec.get("viewer_secret") or None,
                    editors=_names(os.environ.get("RANKBOARD_EDITORS") or sec.get("editors")),
                    viewers=_names(viewers) if viewers else None)


def role_for_email(email: str | None, s: Settings) -> str | None:
    """An OIDC user's role: editor if listed, else viewer (if viewers are unrestricted or listed), else None."""
    email = (email or "").strip().lower()
    if email and email in s.editors:
        return EDITOR
    if s.viewers is None or email in s.viewers:
        return VIEWER
    return None


def role_for_secret(text: str, s: Settings) -> str | None:
    """The role a typed shared secret grants (compared in constant time), or None."""
    typed = text.encode()
    if s.editor_secret and hmac.compare_digest(typed, s.editor_secret.encode()):
        return EDITOR
    if s.viewer_secret and hmac.compare_digest(typed, s.viewer_secret.encode()):
        return VIEWER
    return None


def listening_locally() -> bool:
    return str(st.get_option("server.address") or "").strip().lower() in LOOPBACK


def role() -> str:
    """This session's role (after `gate()` ran in app.py)."""
    return st.session_state.get(_ROLE, VIEWER)


def can_edit() -> bool:
    """True when this session may change the store: an editor's session, on a store that can be written."""
    return role() == EDITOR and not store_resource.get_store().read_only


def require_editor() -> None:
    """Refuse a store write from a viewer's session, or to a read-only store (the pages also hide the controls).
    The shared Store calls this before every data write (`guard_store_writes`)."""
    if role() != EDITOR:
        raise RankboardError("Only editors may change the store. Log in as an editor (sidebar), "
                             "or use the command line on the server.")
    store = store_resource.get_store()
    if store.read_only:
        raise store.read_only_error()


def for_editors(write: Callable[..., T]) -> Callable[..., T] | None:
    """The one access check on a control that writes to the store: None when this session may not edit (draw no
    control), else `write` wrapped so that it asks again when it runs (the role may have changed since)."""
    if not can_edit():
        return None

    @functools.wraps(write)
    def checked(*args, **kwargs):
        require_editor()
        return write(*args, **kwargs)
    return checked


def why_read_only() -> str:
    """Why this session sees no control that writes: the store cannot be written, or it is a viewer's."""
    if store_resource.get_store().read_only:
        return store_resource.read_only_notice()
    return "You are viewing: uploading, renaming, deleting and notes need an editor login."


def guard_store_writes() -> None:
    """Make the shared Store ask `require_editor` before every write that changes its data (app.py calls this
    on every run, before any page)."""
    store_resource.get_store().write_check = require_editor


def _set(role_: str | None, who: str | None = None) -> None:
    st.session_state[_ROLE] = role_
    st.session_state[_WHO] = who


def _secret_form(s: Settings, *, required: bool) -> None:
    """The shared-secret login; `required` when viewers need a secret too (the whole app waits on it)."""
    where = st if required else st.sidebar
    with where.form("access_login", clear_on_submit=True, border=required):
        label = "Team password" if required else "Editor password"
        typed = st.text_input(label, type="password", key="access_secret")
        if st.form_submit_button("Log in", type="primary" if required else "secondary"):
            got = []     # every attempt waits its turn of the server's login limit (dashboard/session/logins.py)
            ok = logins.limiter().attempt(lambda: bool(got.append(role_for_secret(typed, s)) or got[0]))
            if ok:
                _set(got[0], f"{got[0]} (shared password)")
                st.session_state.pop("access_failed", None)
                st.rerun()
            st.session_state["access_failed"] = "busy" if ok is None else "wrong"
    failed = st.session_state.get("access_failed")
    if failed:
        where.error("Too many failed logins: try again in a minute." if failed == "busy"
                    else "That password is not right.", icon=":material/lock:")


def _oidc_gate(s: Settings) -> str:
    if not st.user.is_logged_in:
        st.title("Rankboard")
        st.info("This team's dashboard needs a login.", icon=":material/lock:")
        st.button("Log in", key="access_oidc_login", type="primary", on_click=st.login)
        st.stop()
    email = st.user.get("email")
    got = role_for_email(email, s)
    if got is None:
        st.title("Rankboard")
        st.error("Your account may not see this dashboard. Ask the team's admin to add it.", icon=":material/lock:")
        st.button("Log out", key="access_oidc_logout_denied", on_click=st.logout)
        st.stop()
    _set(got, str(email or st.user.get("name") or "signed in"))
    return got


def gate() -> str:
    """Decide this session's role, showing a login where the mode needs one; stops the page until then."""
    try:
        s = settings()
    except RankboardError as err:
        show_error(err, title="Rankboard's access settings are wrong")
        st.stop()
    if s.mode == "open" or (s.mode == "local" and listening_locally()):
        _set(EDITOR)
        return EDITOR
    if s.mode == "local":       # listening beyond localhost without team mode: read-only
        _set(VIEWER)
        return VIEWER
    if s.oidc:
        return _oidc_gate(s)
    if not s.editor_secret:
        st.error("Team mode needs an editor password: set RANKBOARD_EDITOR_SECRET, or editor_secret under "
                 "[rankboard] in .streamlit/secrets.toml (or an [auth] section for a login provider).",
                 icon=":material/lock:")
        st.stop()
    if st.session_state.get(_ROLE) is None:
        if s.viewer_secret:
            st.title("Rankboard")
            _secret_form(s, required=True)
            st.stop()
        _set(VIEWER, None)
    return role()


def render_status(*, key: str) -> None:
    """The sidebar's word on access: who is signed in, log in / log out, or why nobody may edit."""
    s = settings()    # gate() already stopped the page if the settings are wrong
    with st.sidebar:
        if store_resource.get_store().read_only:
            st.warning(store_resource.read_only_notice(), icon=":material/lock:")
        if s.mode == "local" and not listening_locally():
            st.warning("Read-only: this server listens beyond localhost without team mode. Set "
                       "RANKBOARD_ACCESS=team (see the README, Team use) to let editors log in.",
                       icon=":material/lock:")
            return
        if s.mode != "team":
            return
        who = st.session_state.get(_WHO)
        st.caption(md_format("{} · {}", "Editor" if can_edit() else "Viewer", who) if who and s.oidc
                   else ("Editor" if can_edit() else "Viewer"))
        if s.oidc:
            st.button("Log out", key=f"{key}_logout", on_click=st.logout)
        elif can_edit():
            st.button("Log out", key=f"{key}_logout", on_click=lambda: _set(None))
        else:
            _secret_form(s, required=False)
