"""Connections to the store file beyond the plain one (core/store/access.py makes that): a cursor that holds a
store session of its own (Store.cursor(), for callers outside a session), and the overlay through which a store
that cannot be written is read."""
from __future__ import annotations

import logging
from pathlib import Path

import duckdb

from core.db.sqltext import ident

LOG = logging.getLogger("rankboard.store")


class SessionCursor:
    """A DuckDB cursor taken outside a session: it holds its own session until it is closed (or its `with` block
    ends)."""

    def __init__(self, session):
        self._session = session
        self._cur = session.__enter__().cursor()

    def __getattr__(self, name):
        attr = getattr(self._cur, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):     # execute() etc. return the cursor: return this wrapper, which keeps it open
            out = attr(*args, **kwargs)
            return self if out is self._cur else out
        return call

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            try:
                self._cur.close()
            finally:
                session.__exit__(None, None, None)

    def __del__(self):
        if getattr(self, "_session", None) is not None:
            LOG.warning("a store cursor was not closed; closing it now")
            self.close()


def overlay(path: Path, config: dict) -> duckdb.DuckDBPyConnection:
    """An in-memory database over a store that cannot be written: the store attached read-only, and a view of each
    of its tables and views under the same name, so every query reads as on the store itself. What may be written
    (the results cache, Store.transaction(bump=False)) goes to the memory database, which every cursor shares."""
    con = duckdb.connect(":memory:", config=config)
    try:
        con.execute("ATTACH ? AS store (READ_ONLY)", [str(path)]).fetchall()
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables WHERE table_catalog = "
                                           "'store' AND table_schema = 'main'").fetchall()]
        for name in names:
            con.execute("CREATE VIEW " + ident(name) + " AS FROM store." + ident(name)).fetchall()
    except BaseException:
        con.close()
        raise
    return con
