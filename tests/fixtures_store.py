"""Store helpers for every part's tests.

    from tests.fixtures_store import fresh_store, sample_store

    def test_something(tmp_path):
        with sample_store(tmp_path) as store:          # the bundled robust03-sample collection
            runs = store.runs("robust03-sample")

`fresh_store(tmp_path)` is an empty store (schema only). `sample_store(tmp_path)` holds the sample
collection from data/ (5 runs at depth 100, NIST + simulated-B qrels, 100 topics); it is built once
per test process and copied, so it costs a file copy per test. Both return an open `Store` (a
context manager that closes it). The pytest fixtures `empty_store` and `seeded_store` wrap them.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from core.store import Store

SAMPLE_COLLECTION = "robust03-sample"
_template: Path | None = None


def fresh_store(tmp_path: Path, name: str = "fresh.duckdb") -> Store:
    """An empty store (schema only, no sample) in tmp_path."""
    return Store.open(Path(tmp_path) / name, load_sample=False)


def _sample_template() -> Path:
    global _template
    if _template is None or not _template.exists():
        path = Path(tempfile.mkdtemp(prefix="rankboard-sample-")) / "sample.duckdb"
        Store.open(path, load_sample=True).close()
        _template = path
    return _template


def sample_store(tmp_path: Path, name: str = "sample.duckdb") -> Store:
    """A store holding the sample collection from data/, in tmp_path."""
    target = Path(tmp_path) / name
    shutil.copyfile(_sample_template(), target)
    return Store.open(target, load_sample=False)


@pytest.fixture
def empty_store(tmp_path):
    store = fresh_store(tmp_path)
    yield store
    store.close()


@pytest.fixture
def seeded_store(tmp_path):
    store = sample_store(tmp_path)
    yield store
    store.close()
