"""What happened to an upload, kept where a restarted server or a new browser session can read it.

An upload batch gets a token. Before the first file is read, a journal entry is written beside the
store (`<store>.uploads/<token>.json`: uploader, file names, server PID, start time) and the token
goes into the page's URL (`?upload=<token>`); after each file its outcome is added. The browser keeps
the URL when the server restarts or the connection drops, so the next run of the page finds the
entry and can say what was stored and what was not. A store write is one transaction, so a file
without an outcome was not stored (nothing partial is kept).

Outcomes are plain dicts: {"file", "ok", "name", "n_rows", "warnings"} or {"file", "ok": False, "message"}.

The journal is a help, not a condition: when its folder cannot be written (a read-only or full disk), a batch
runs without it (`start` returns None) and the server's log says why. The upload component gets a `Journal`
(this module's functions bound to one store) from the page, so it never imports the session.
"""
from __future__ import annotations

import json
import logging
import os
import secrets
import time
from pathlib import Path

LOG = logging.getLogger("rankboard.dashboard")
KEEP_S = 7 * 24 * 3600        # journal entries older than a week are removed when a new batch starts
PARAM = "upload"


def _dir(store_path: Path) -> Path:
    return Path(str(store_path) + ".uploads")


def _file(store_path: Path, token: str) -> Path | None:
    if not token.isalnum():                 # the token comes from the URL
        return None
    return _dir(store_path) / f"{token}.json"


def _write(path: Path, entry: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(entry))
    os.replace(tmp, path)                   # readers see the old entry or the new one, never half


def start(store_path: Path, *, uploader: str, files: list[str]) -> str | None:
    """A new batch: its token, with its journal entry written; None when the journal cannot be written."""
    folder = _dir(store_path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        LOG.warning("upload journal off for this batch: %s", exc)
        return None
    now = time.time()
    for old in folder.glob("*.json"):
        try:
            if now - old.stat().st_mtime > KEEP_S:
                old.unlink()
        except OSError:
            pass
    token = secrets.token_hex(8)
    try:
        _write(folder / f"{token}.json", {"uploader": uploader, "files": files, "pid": os.getpid(),
                                          "started": now, "outcomes": [], "finished": False})
    except OSError as exc:
        LOG.warning("upload journal off for this batch: %s", exc)
        return None
    return token


def record(store_path: Path, token: str, outcome: dict | None = None, *, stopped: bool = False) -> None:
    """Add one file's outcome, or mark the batch `stopped` (its script was stopped before the end)."""
    path = _file(store_path, token)
    entry = read(store_path, token)
    if path is None or entry is None:
        return
    if outcome is not None:
        entry["outcomes"].append(outcome)
    entry["finished"] = len(entry["outcomes"]) == len(entry["files"])
    entry["stopped"] = stopped and not entry["finished"]
    try:
        _write(path, entry)
    except OSError as exc:       # the outcome is still shown to this session; only a restart would miss it
        LOG.warning("upload journal: could not record %s: %s", token, exc)


def read(store_path: Path, token: str) -> dict | None:
    path = _file(store_path, token)
    try:
        return json.loads(path.read_text()) if path else None
    except (OSError, ValueError):
        return None


def unfinished(entry: dict) -> list[str]:
    """File names of the batch that have no outcome (files are loaded, and recorded, in order)."""
    return entry["files"][len(entry["outcomes"]):]


def server_restarted(entry: dict) -> bool:
    return entry.get("pid") != os.getpid()


def over(entry: dict) -> bool:
    """Nothing more will happen to this batch: it finished, its script was stopped, or its server is gone."""
    return entry["finished"] or entry.get("stopped", False) or server_restarted(entry)


class Journal:
    """This module's functions bound to one store's journal, as the upload component takes them."""

    param = PARAM

    def __init__(self, store_path: Path):
        self.store_path = Path(store_path)

    def start(self, *, uploader: str, files: list[str]) -> str | None:
        return start(self.store_path, uploader=uploader, files=files)

    def record(self, token: str, outcome: dict | None = None, *, stopped: bool = False) -> None:
        record(self.store_path, token, outcome, stopped=stopped)

    def read(self, token: str) -> dict | None:
        return read(self.store_path, token)

    server_restarted = staticmethod(server_restarted)
    over = staticmethod(over)
