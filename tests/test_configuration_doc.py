"""docs/configuration.md's table of environment variables names exactly the RANKBOARD_* variables the code reads."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "configuration.md"
NAME = re.compile(r"RANKBOARD_[A-Z_]+")
SOURCES = ("*.py", "*.sql", "*.toml")


def in_code() -> dict[str, list[str]]:
    """Every RANKBOARD_* name in the source text of core/ and dashboard/ -> the files that hold it."""
    found: dict[str, list[str]] = {}
    for folder in ("core", "dashboard"):
        for pattern in SOURCES:
            for path in sorted((ROOT / folder).rglob(pattern)):
                for name in set(NAME.findall(path.read_text(errors="replace"))):
                    found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def in_table() -> set[str]:
    """The names in the first column of the table rows of docs/configuration.md."""
    names = set()
    for line in DOC.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            names |= set(NAME.findall(cells[1]))
    return names


def test_the_configuration_table_names_every_variable_the_code_reads():
    code, table = in_code(), in_table()
    missing = {name: code[name] for name in sorted(set(code) - table)}
    extra = sorted(table - set(code))
    assert not missing and not extra, (
        (f"read by the code but not in docs/configuration.md's table: {missing}. " if missing else "")
        + (f"in docs/configuration.md's table but read nowhere in core/ or dashboard/: {extra}." if extra else ""))


def test_the_check_sees_names():
    assert "RANKBOARD_STORE" in in_code() and "RANKBOARD_STORE" in in_table()
