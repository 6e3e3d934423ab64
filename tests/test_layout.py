"""Architecture rules the code can check: core never imports Streamlit; components never reach the store."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STORE_MODULES = ("core.store", "core.catalogue", "dashboard.store_resource", "dashboard.catalogue",
                 "dashboard.cached")
STORE_NAMES = {"Store", "get_store", "db_lock", "cursor", "transaction"}


def imported(path: Path) -> set[str]:
    """Every module an import statement in `path` names (imports inside functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def names_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return ({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)})


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", modules("core"), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_streamlit(path):
    assert not {n for n in imported(path) if n.split(".")[0] == "streamlit"}


@pytest.mark.parametrize("path", modules("dashboard/components"), ids=lambda p: p.name)
def test_components_take_values_not_the_store(path):
    reach = {n for n in imported(path) if n.startswith(STORE_MODULES)}
    assert not reach, f"{path.name} imports {sorted(reach)}: take values and callbacks from the page instead"
    assert not names_used(path) & STORE_NAMES, f"{path.name} uses the store: take values and callbacks instead"
