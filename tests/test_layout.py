"""Architecture rules the code can check.

- core/ holds at most 8 modules at its top level; every other module is in the package of its layer; the dashboard's
  top level holds only its entry points (app.py, pages.py, __init__.py, __main__.py).
- A package of core imports only packages below it in `CORE_LAYERS` (imports inside functions count).
- In the dashboard, components render values and take callbacks (they never reach the store, the caches or the
  session), and the caches never import components or pages.
- No module imports a `_private` name, or a `_private` module, of another package.
- core never imports Streamlit, or the dashboard.
- No module in core/ or dashboard/ is over 350 lines or in an import cycle.
- No test module imports another (shared cases live in tests/cases/, tests/fixtures_store.py, tests/apptest_kit.py
  and the oracles).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# core's layers, bottom first: a package may import the ones before it, never the ones after it
CORE_LAYERS = ("errors", "db", "formats", "measures", "engine", "fusion", "stats", "repro", "agreement", "judges",
               "analysis", "distributed", "store", "service", "cli")
CORE_TOP = {"__init__.py", "__main__.py", "errors.py"}
DASHBOARD_TOP = {"__init__.py", "__main__.py", "app.py", "pages.py"}
# dashboard package -> the dashboard and core packages it must not import
DASHBOARD_FORBIDDEN = {
    "components": ("dashboard.cache", "dashboard.session", "dashboard.app_pages", "dashboard.app", "core.store",
                   "core.service"),
    "cache": ("dashboard.components", "dashboard.app_pages", "dashboard.app"),
    "session": ("dashboard.app_pages", "dashboard.app"),
}
STORE_NAMES = {"Store", "get_store", "db_lock", "cursor", "transaction"}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import statement in `path`, inside functions too; relative imports
    resolved."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = package.split(".")
                module = ".".join(parts[: len(parts) - node.level + 1] + ([module] if module else []))
            out.append((node.lineno, module, [a.name for a in node.names]))
    return out


def imported(path: Path) -> set[str]:
    """Every module an import statement in `path` names, and every module.name it imports."""
    return {m for _, m, _ in imports(path)} | {f"{m}.{n}" for _, m, names in imports(path) for n in names}


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def core_layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "core" and len(parts) > 1 else None


def test_core_top_level_holds_only_the_entry_points():
    top = sorted(p.name for p in (ROOT / "core").glob("*.py"))
    assert len(top) <= 8 and set(top) <= CORE_TOP, f"move {sorted(set(top) - CORE_TOP)} into a package"
    packages = sorted(p.name for p in (ROOT / "core").iterdir() if (p / "__init__.py").exists())
    assert set(packages) <= set(CORE_LAYERS), f"{sorted(set(packages) - set(CORE_LAYERS))}: add it to CORE_LAYERS"


def test_dashboard_top_level_holds_only_the_entry_points():
    top = sorted(p.name for p in (ROOT / "dashboard").glob("*.py"))
    assert set(top) <= DASHBOARD_TOP, f"move {sorted(set(top) - DASHBOARD_TOP)} into app_pages, components, cache or session"


@pytest.mark.parametrize("path", modules("core"), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_imports_only_lower_layers(path):
    mine = core_layer(module_name(path))
    if mine not in CORE_LAYERS:
        return
    bad = []
    for line, module, names in imports(path):
        targets = [f"{module}.{n}" for n in names] if module == "core" else [module]
        for target in targets:
            theirs = core_layer(target)
            if theirs in CORE_LAYERS and CORE_LAYERS.index(theirs) > CORE_LAYERS.index(mine):
                bad.append(f"line {line}: {mine} imports {target} ({theirs} is above {mine})")
            if target.split(".")[0] in ("streamlit", "dashboard"):
                bad.append(f"line {line}: core imports {target}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", modules("dashboard"), ids=lambda p: str(p.relative_to(ROOT)))
def test_dashboard_packages_keep_their_place(path):
    parts = module_name(path).split(".")
    forbidden = DASHBOARD_FORBIDDEN.get(parts[1]) if len(parts) > 1 else None
    if not forbidden:
        return
    reach = sorted(n for n in imported(path) if n.startswith(forbidden))
    assert not reach, f"{path.name} imports {reach}"
    if parts[1] == "components":
        assert not names_used(path) & STORE_NAMES, f"{path.name} uses the store: take values and callbacks instead"


def names_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return ({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)})


def _package(module: str) -> str:
    """The package a module belongs to, for the private-name rule: core.<layer> or dashboard.<package>."""
    return ".".join(module.split(".")[:2])


@pytest.mark.parametrize("path", modules("core") + modules("dashboard"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_import_across_packages(path):
    mine = _package(module_name(path))
    bad = []
    for line, module, names in imports(path):
        if module.split(".")[0] not in ("core", "dashboard") or _package(module) == mine:
            continue
        private = [p for p in module.split(".") if p.startswith("_") and not p.startswith("__")]
        private += [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private:
            bad.append(f"line {line}: from {module} import {', '.join(names)}")
    assert not bad, "make these public in their package's __init__.py:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", sorted((ROOT / "tests").rglob("test_*.py")), ids=lambda p: p.name)
def test_no_test_module_imports_another(path):
    others = {n for n in imported(path) if n.rpartition(".")[2].startswith("test_") or n.startswith("tests.test_")}
    assert not others, f"move what {path.name} shares with {sorted(others)} into tests/cases/ or tests/fixtures_store.py"


@pytest.mark.parametrize("path", modules("core") + modules("dashboard"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_350_lines(path):
    assert len(path.read_text().splitlines()) <= 350, f"split {path.name} along a seam"


def _graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name resolves to its longest known prefix)."""
    paths = {module_name(p): p for p in modules("core") + modules("dashboard")}

    def resolve(name):
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in paths.items():
        deps = set()
        for _, module, names in imports(path):
            for target in [module] + [f"{module}.{n}" for n in names]:
                t = resolve(target)
                if t and t != mod and not mod.startswith(t + "."):
                    deps.add(t)
        graph[mod] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[str]:
    state, found = {}, []

    def visit(mod, trail):
        state[mod] = "open"
        for dep in sorted(graph[mod]):
            if state.get(dep) == "open":
                found.append(" -> ".join(trail[trail.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, trail + [dep])
        state[mod] = "done"

    for mod in sorted(graph):
        if mod not in state:
            visit(mod, [mod])
    return found


def test_no_import_cycle():
    found = cycles(_graph())
    assert not found, "import cycles:\n" + "\n".join(found)


def test_the_rules_fail_on_what_they_forbid():
    """The checks above are not vacuous: a cycle, an upward import and a private import are caught."""
    assert cycles({"a": {"b"}, "b": {"a"}}) == ["a -> b -> a"]
    assert CORE_LAYERS.index("engine") < CORE_LAYERS.index("store") < CORE_LAYERS.index("service")
    assert CORE_LAYERS.index("store") < CORE_LAYERS.index("service")
    assert "distributed" in CORE_LAYERS[: CORE_LAYERS.index("store")]
    assert _package("core.formats._text") != _package("core.engine.stage1.files")
