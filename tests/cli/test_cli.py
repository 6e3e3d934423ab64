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
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.strip() == "['core.cli.listing']"


@pytest.mark.parametrize("command", ["list", "compare", "check", "repro"])
def test_scipy_stats_and_statsmodels_are_imported_only_when_a_statistic_needs_them(command):
    """They take ~1 s to import (core.stats.paired._sp); a command's parser and the randomisation tests load neither.
    A t-test does (the second half), so the deferred import is exercised too."""
    code = ("import sys; from core.cli import build_parser; build_parser([" + repr(command) + "]); "
            "import core.stats.baselines, core.stats.multisys, core.stats.risk, core.stats.paired, numpy as np; "
            "heavy = lambda: sorted(m for m in sys.modules if m.startswith(('scipy.stats', 'statsmodels'))); "
            "print(heavy() == []); core.stats.multisys.all_pairs(np.arange(12.0).reshape(4, 3) % 5, 'randomization-all', "
            "n_resamples=50, seed=0); print(heavy() == []); "
            "core.stats.paired.correct(core.stats.paired.paired_t_columns(np.eye(4), np.ones((4, 4)), np.ones((4, 4), bool)), 'holm'); "
            "print('scipy.stats' in sys.modules, 'statsmodels.stats.multitest' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.split("\n")[:3] == ["True", "True", "True True"], out
