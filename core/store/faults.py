"""Faults of the machine, in words: a store that cannot be written, a full disk, a spool folder that is missing,
full or not writable. Each becomes a ServerFault (core/errors.py) whose message says what happened, names the
folder or the variable to set, and what to do, in one line; its `public` text says the same without a path,
for a dashboard visitor. Where the fault is caught decides what it is about (`store_fault`, `reading_fault`,
`describe`). DuckDB reports these as text ("No space left on device"), Python as an errno; both count.
"""
from __future__ import annotations

import errno
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

from core.errors import RankboardError, ServerFault, StoreReadOnlyError

FULL, DENIED, READ_ONLY_FS, MISSING = errno.ENOSPC, errno.EACCES, errno.EROFS, errno.ENOENT
_TEXTS = (("no space left on device", FULL), ("disk quota exceeded", FULL), ("permission denied", DENIED),
          ("read-only file system", READ_ONLY_FS), ("no such file or directory", MISSING))
_ERRNOS = {errno.ENOSPC: FULL, errno.EDQUOT: FULL, errno.EACCES: DENIED, errno.EPERM: DENIED,
           errno.EROFS: READ_ONLY_FS, errno.ENOENT: MISSING}
_QUOTED = re.compile(r'"(/[^"]+)"')

DISK_FULL_PUBLIC = ("The server's disk is full, so nothing was saved. Ask whoever runs this dashboard to free space "
                    "on the store's disk (the server's log says where).")
SPOOL_FULL_PUBLIC = ("The server's spool folder is full, so this file was not loaded and nothing was stored. Ask "
                     "whoever runs this dashboard to free space there, or to set RANKBOARD_SPOOL_DIR to a folder "
                     "with room (the server's log says which folder).")
SPOOL_BROKEN_PUBLIC = ("The server's spool folder is missing or not writable, so this file was not loaded and "
                       "nothing was stored. Ask whoever runs this dashboard to check RANKBOARD_SPOOL_DIR (the "
                       "server's log says more).")


def _chain(exc: BaseException | None):
    """The exception and those it was raised from or during, most recent first (a cleanup's error hides the
    fault that caused it: "Current transaction is aborted" after "No space left on device")."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def kind(exc: BaseException) -> tuple[int | None, str | None]:
    """(FULL, DENIED, READ_ONLY_FS, MISSING or None; the path involved, when known) of an error or its causes."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.errno in _ERRNOS:
            return _ERRNOS[e.errno], e.filename if isinstance(e.filename, str) else None
        text = str(e).lower()
        for words, code in _TEXTS:
            if words in text and type(e).__module__.split(".")[0] in ("duckdb", "_duckdb", "pyarrow"):
                found = _QUOTED.search(str(e))
                return code, found.group(1) if found else None
    return None, None


def spool_folder() -> tuple[Path, str]:
    """(the folder a large upload is spooled to, the variable that sets it): $RANKBOARD_SPOOL_DIR, else $TMPDIR's."""
    env = os.environ.get("RANKBOARD_SPOOL_DIR")
    return (Path(env), "RANKBOARD_SPOOL_DIR") if env else (Path(tempfile.gettempdir()), "TMPDIR")


def read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def unwritable(path: Path) -> str | None:
    """Why the store at `path` cannot be written ('filesystem', 'folder' or 'file'), or None when it can."""
    folder = path.parent
    if not os.access(folder, os.W_OK):
        return "filesystem" if read_only_fs(folder) else "folder"
    if path.exists() and not os.access(path, os.W_OK):
        return "filesystem" if read_only_fs(path) else "file"
    return None


def read_only_error(path: Path, reason: str, *, doing: str = "Nothing was changed") -> StoreReadOnlyError:
    """The message for a write to a store that can only be read; `reason` as `unwritable` gives it."""
    other = "or pass --store PATH (or set RANKBOARD_STORE) to a store"
    why = {"file": f"the file is not writable. {doing}. Make it writable (chmod u+w {path}), {other} you may write.",
           "folder": f"its folder {path.parent} is not writable (the store keeps its lock files and write-ahead log "
                     f"there). {doing}. Make the folder writable, {other} in a folder you may write.",
           "filesystem": f"{path.parent} is on a read-only file system. {doing}. Copy the store to a writable disk "
                         f"and pass --store PATH (or set RANKBOARD_STORE).",
           "requested": f"it was opened read-only. {doing}. Open it without read_only to change it."}[reason]
    return StoreReadOnlyError(f"{path}: the store is read-only: {why}")


def cannot_create(path: Path, exc: BaseException | None = None) -> ServerFault:
    """A store that does not exist and cannot be made: its folder is a file, on a read-only disk, missing and not
    creatable, or not writable."""
    folder, other = path.parent, "pass --store PATH (or set RANKBOARD_STORE)"
    code, _ = kind(exc) if exc is not None else (None, None)
    if code == FULL:
        return disk_full(path, folder)
    existing = next((f for f in (folder, *folder.parents) if f.exists()), None)
    if existing is not None and not existing.is_dir():
        why = f"{existing} is a file, not a folder. P{other[1:]} to a path in a folder"
    elif code == READ_ONLY_FS or read_only_fs(existing or folder):
        why = f"{folder} is on a read-only file system. P{other[1:]} to a folder on a writable disk"
    elif not folder.is_dir():
        why = (f"its folder {folder} does not exist and cannot be created. Create it (or make {existing} writable), "
               f"or {other} to a folder you may write")
    else:
        why = f"its folder {folder} is not writable. Make the folder writable, or {other} to a folder you may write"
    return ServerFault(f"{path}: cannot create the store: {why}.",
                       "Rankboard cannot create its store: the store's folder is not writable. Whoever runs this "
                       "dashboard can see the details in the server's log.")


def disk_full(store: Path, folder: Path) -> ServerFault:
    return ServerFault(f"{store}: the disk holding the store is full (no space left in {folder}). Nothing was saved. "
                       f"Free space in {folder}, or pass --store PATH to a store on a disk with room.",
                       DISK_FULL_PUBLIC)


def _within(path: Path, folder: Path) -> bool:
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return False


def _spool_fault(code: int, folder: Path, variable: str, file: str) -> ServerFault:
    name = "the spool folder" if variable == "RANKBOARD_SPOOL_DIR" else "the temporary folder"
    setting = "set RANKBOARD_SPOOL_DIR" if variable == "RANKBOARD_SPOOL_DIR" else "set RANKBOARD_SPOOL_DIR (or TMPDIR)"
    where = f"{name} {folder} ({variable})"
    if code == FULL:
        return ServerFault(f"no space left in {where} while reading {file}. Nothing was stored. Free space there, "
                           f"or {setting} to a folder with room.", SPOOL_FULL_PUBLIC)
    what, fix = {MISSING: ("does not exist", f"Create it, or {setting} to a folder that exists"),
                 DENIED: ("is not writable", f"Make it writable, or {setting} to a folder you may write"),
                 READ_ONLY_FS: ("is on a read-only file system", f"S{setting[1:]} to a folder on a writable "
                                                                 "disk")}[code]
    return ServerFault(f"{where} {what}, so {file} could not be read. Nothing was stored. {fix}.",
                       SPOOL_BROKEN_PUBLIC)


def reading_fault(exc: BaseException, file: str, store: Path | None = None) -> ServerFault | None:
    """The fault behind an error met while `file` was read and spooled (before the store was taken), or None when
    the error is not one of the machine's."""
    code, where = kind(exc)
    if code is None:
        return None
    spool, variable = spool_folder()
    if where is not None and not _within(Path(where), spool):
        temp = Path(tempfile.gettempdir())
        if store is not None and _within(Path(where), store.parent):
            return disk_full(store, store.parent) if code == FULL else None
        if _within(Path(where), temp):
            spool, variable = temp, "TMPDIR"
        elif code == MISSING:
            return None                     # a file of the user's, not a folder of the server's
    return _spool_fault(code, spool, variable, file)


@contextmanager
def reading(file: str, store: Path | None = None):
    """Around the reading and spooling of `file` before the store is taken: a fault of the machine becomes a
    ServerFault that names the spool folder (or the temporary one) and what to do."""
    try:
        yield
    except RankboardError:
        raise
    except Exception as exc:
        fault = reading_fault(exc, file, store)
        if fault is None:
            raise
        raise fault from exc


def store_fault(exc: BaseException, store: Path) -> ServerFault | None:
    """The fault behind a failed write of the store, or None when the error is not one of the machine's."""
    code, where = kind(exc)
    if code == FULL:
        if where is not None and not _within(Path(where), store.parent):
            return reading_fault(exc, Path(where).name, store)
        return disk_full(store, store.parent)
    if code in (DENIED, READ_ONLY_FS):
        reason = unwritable(store) or ("filesystem" if code == READ_ONLY_FS else "file")
        return read_only_error(store, reason, doing="Nothing was saved")
    return None


def describe(exc: BaseException, store: Path | None = None) -> str:
    """One line for an operating-system error the command line did not expect: what happened, then what to do."""
    code, where = kind(exc)
    if store is not None and where is not None and _within(Path(where), store.parent):
        fault = store_fault(exc, store)
        if fault is not None:
            return str(fault)
    if code == FULL:
        spool, variable = spool_folder()
        temp = Path(tempfile.gettempdir())
        if where is None:
            named = f"{spool} ({variable})" + (f" or the store's folder {store.parent}" if store is not None else "")
        elif _within(Path(where), spool):
            named = f"{spool} ({variable})"
        else:
            named = f"{temp} (TMPDIR)" if _within(Path(where), temp) else str(Path(where).parent)
        return (f"no space left in {named}. Nothing was stored. Free space there, or set RANKBOARD_SPOOL_DIR "
                "(or TMPDIR) to a folder with room.")
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, OSError) and exc.strerror:
        first = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return f"{first.rstrip('.')}. Check the path, its permissions and the free space on its disk, then try again."
