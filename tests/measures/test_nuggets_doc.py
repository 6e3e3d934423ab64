"""The docs of the nugget scores read the one table that declares them (core.measures.NUGGET_SCORES): formats.md's
table of the scores, cli.md's `nuggets` command, and the `nuggets` command's own output."""
from __future__ import annotations

import re
from pathlib import Path

from core.cli import COMMANDS
from core.measures import NUGGET_SCORES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_formats_md_has_one_row_per_score_with_nuggetizers_field_and_rule():
    text = (DOCS / "formats.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \| (the vital nuggets|every nugget) \| ([0-9.]+) \|$", text, re.M)
    assert rows == [(s.name, s.nuggetizer, "the vital nuggets" if s.vital_only else "every nugget",
                     f"{s.partial:g}") for s in NUGGET_SCORES]


def test_cli_md_documents_the_command_and_the_load_options():
    text = (DOCS / "cli.md").read_text()
    assert "nuggets" in COMMANDS and "| [`nuggets`](#nuggets) |" in text and "\n## nuggets\n" in text
    assert "`--nuggets FILE --assignments FILE`" in text
    assert ", ".join(f"`{s.name}`" for s in NUGGET_SCORES[:-1]) + f" and `{NUGGET_SCORES[-1].name}`" in text
