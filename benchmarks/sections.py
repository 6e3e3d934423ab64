"""The sections of benchmarks/RESULTS.md that benchmark scripts write themselves.

Each such section sits between `<!-- NAME: begin ... -->` and `<!-- NAME: end -->`. `write(NAME, text)` replaces
that section and leaves the rest of the file as it is (a section not there yet is added at the end), so every
script keeps only its latest figures and never touches another's. A section's heading names the date and the
commit of its figures (`heading`).

    run.py: peers            shapes.py: shapes        judges_timing.py: judges
    manysys_timing.py: manysys                        loadtest.py: loadtest
    loadproto.py: loadproto                           fusion.py: fusion
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"


def commit(root: Path = ROOT) -> str:
    """The short commit of the checkout being measured ('?' outside git), '+' when it has uncommitted changes."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def heading(title: str, when: str, git: str) -> str:
    """`## title (2026-11-27, git 241cf79)`: the date part of `when` ('2026-11-27 06:09 UTC') and the commit."""
    return f"## {title} ({when.split(' ')[0]}, git {git})"


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"<!-- {re.escape(name)}: begin[^>]*-->.*?<!-- {re.escape(name)}: end -->\n?", re.S)


def write(name: str, text: str, source: str, path: Path = RESULTS) -> None:
    """Put `text` (Markdown, starting with its `## ` heading) into section `name` of `path`; `source` is the script
    that writes it, named in the begin marker."""
    block = f"<!-- {name}: begin (written by {source}; rerun it, do not edit) -->\n{text.strip()}\n<!-- {name}: end -->\n"
    old = path.read_text() if path.exists() else ""
    pattern = _pattern(name)
    new = pattern.sub(lambda _: block, old, count=1) if pattern.search(old) else old.rstrip("\n") + "\n\n" + block
    path.write_text(new)


def read(name: str, path: Path = RESULTS) -> str | None:
    """The text of section `name` without its markers, or None."""
    found = _pattern(name).search(path.read_text()) if path.exists() else None
    if not found:
        return None
    return "\n".join(found.group(0).strip().splitlines()[1:-1])
