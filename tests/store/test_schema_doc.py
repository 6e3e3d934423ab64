"""docs/architecture.md's store section states the schema version the code writes and lists every table it creates."""
from __future__ import annotations

import re
from pathlib import Path

from core.store.schema import SCHEMA_VERSION
from tests.fixtures_store import fresh_store

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_the_doc_states_the_schema_version():
    text = DOC.read_text()
    assert f"version **{SCHEMA_VERSION}**" in text
    assert f"opening a store of version 1 to {SCHEMA_VERSION - 1}" in text


def test_the_doc_lists_every_table(tmp_path):
    listed = set()
    for line in DOC.read_text().splitlines():
        if line.startswith("| `"):
            listed |= set(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    with fresh_store(tmp_path) as store:
        cur = store.cursor()
        try:
            tables = {r[0] for r in cur.execute("SELECT table_name FROM duckdb_tables() WHERE NOT temporary")
                      .fetchall()}
        finally:
            cur.close()
    assert tables - listed == set()
