"""Named SQL files, read as package resources (so core also runs from a zip or a wheel).

Each file starts with a one-line `--` comment saying what it returns. `{name}` placeholders take identifiers
that the caller has quoted (core.db.sqltext.ident); values are always bound parameters ($name).
"""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return files(__name__).joinpath(f"{name}.sql").read_text()


def sql(name: str, **identifiers) -> str:
    """The text of core/db/sql/<name>.sql with its {placeholders} filled by already quoted identifiers."""
    return _text(name).format(**identifiers)
