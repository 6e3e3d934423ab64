"""SQL text with identifiers in it, built one way.

Values always travel as bound parameters. A few statements must name a table or view (a
registered Arrow table, a temporary table, a table picked from a fixed list), which parameters
cannot do: those names go through `statement`, which quotes every one of them as an identifier,
so no text, ours or a user's, can end the identifier and start SQL of its own.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from contextlib import contextmanager, suppress

import duckdb


def ident(name: object) -> str:
    """`name` as a quoted SQL identifier: "name", with any double quote doubled."""
    text = str(name)
    if not text:
        raise ValueError("an SQL identifier cannot be empty")
    return '"' + text.replace('"', '""') + '"'


def int_list(values: Iterable[object]) -> str:
    """A comma-separated list of integers for an IN (...) that cannot take a parameter (a view's body)."""
    return ", ".join(str(int(v)) for v in values) or "NULL"


def statement(template: str, *, ints: dict[str, Iterable[object]] | None = None, **identifiers: object) -> str:
    """`template` with each {name} replaced by the quoted identifier, and each {name} in `ints`
    by a list of integers. Fixed SQL fragments belong in the template itself."""
    fields = {key: ident(value) for key, value in identifiers.items()}
    fields.update({key: int_list(values) for key, values in (ints or {}).items()})
    return template.format(**fields)


def one(cur, sql: str, params=()):
    """The first row of a query (or None), fetching the whole result so the cursor is free again."""
    rows = cur.execute(sql, list(params)).fetchall()
    return rows[0] if rows else None


@contextmanager
def registered(cur, rows):
    """`rows` (an Arrow table or a DataFrame, or the path of a Parquet file, which DuckDB then reads a row group at
    a time) under a fresh name on `cur` for the block; yields the name, which enters SQL through `statement`."""
    name = f"_rb_{uuid.uuid4().hex}"
    cur.register(name, cur.read_parquet(str(rows)) if isinstance(rows, (str, os.PathLike)) else rows)
    try:
        yield name
    except BaseException:
        with suppress(duckdb.Error):   # an aborted transaction refuses this too: the block's error is the one to see
            cur.unregister(name)
        raise
    cur.unregister(name)
