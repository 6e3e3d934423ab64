"""`core/cli/`: the COMMANDS table wires every command, and only the chosen one is imported."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import COMMANDS, build_parser


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_parses_its_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser([name]).parse_args([name, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m core {name}") and COMMANDS[name].help in out


def test_top_level_help_lists_every_command_in_table_order(capsys):
    with pytest.raises(SystemExit):
        build_parser([]).parse_args(["--help"])
    out = capsys.readouterr().out
    positions = [out.index(f"\n    {name} ") for name in COMMANDS]
    assert positions == sorted(positions)


def test_only_the_chosen_command_module_is_imported():
    code = ("import sys; from core.cli import build_parser; build_parser(['list']); "
            "print(sorted(m for m in sys.modules if m.startswith('core.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.strip() == "['core.cli.listing']"
