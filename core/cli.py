"""The command line: `python -m core [--store PATH] <command> ...`.

Each command lives in its own module `core/cli_<command>.py`, which exposes
`add_arguments(parser)` and `run(args) -> int`. This file only wires them up and
turns a RankboardError into a readable message and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from core.errors import RankboardError

COMMANDS = {
    "load": ("core.cli_load", "Load runs, qrels, topics and documents into the store."),
    "list": ("core.cli_load", "List the collections, runs and qrels sets in the store."),
    "evaluate": ("core.cli_evaluate", "Evaluate runs against qrels, like trec_eval."),
    "compare": ("core.cli_compare", "Compare runs against a baseline with significance tests."),
    "agreement": ("core.cli_agreement", "Inter-assessor agreement between qrels files."),
    "judges": ("core.cli_judges", "Many judges (human or LLM qrels) against a reference: agreement, ranking, shifts."),
}


def _chosen(argv: list[str]) -> str | None:
    """The command named in argv (the first positional token, after the global `--store PATH`),
    so that only its module is imported."""
    tokens = iter(argv)
    for token in tokens:
        if token == "--store":
            next(tokens, None)
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """All commands are listed, but only the chosen one's module is imported (scipy, statsmodels
    and pandas-heavy modules cost most of a second to import)."""
    chosen = _chosen(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m core", description="Rankboard: IR evaluation over DuckDB.")
    parser.add_argument("--store", metavar="PATH", default=None,
                        help="DuckDB store file (default: $RANKBOARD_STORE, else data/rankboard.duckdb)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name != chosen:
            continue
        module = importlib.import_module(module_name)
        adder = getattr(module, f"add_{name}_arguments", None) or module.add_arguments
        adder(p)
        p.set_defaults(_run=getattr(module, f"run_{name}", None) or module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except RankboardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `python -m core evaluate ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
