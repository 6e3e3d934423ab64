"""Shared test fixtures: where the reference data lives, and a fresh store per test."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# helpers shared by test modules: their asserts get pytest's introspection too
pytest.register_assert_rewrite("tests.fixtures_store", "tests.cases")

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RANKBOARD_SHARED", ROOT.parent / "shared")).resolve()
REFERENCE = SHARED / "reference"
SEEDS = SHARED / "seeds"
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def shared() -> Path:
    if not REFERENCE.is_dir():
        pytest.fail(f"reference data not found at {REFERENCE}; set RANKBOARD_SHARED")
    return SHARED


@pytest.fixture(scope="session")
def reference(shared) -> Path:
    return shared / "reference"
