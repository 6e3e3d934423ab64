"""The command line: `python -m core [--store PATH] <command> ...`.

Each command is one module of this package with `add_arguments(parser)` and `run(args) -> int`.
`COMMANDS` lists them; adding a command is one line there plus its module. Only the chosen
command's module is imported (scipy, statsmodels and pandas cost most of a second to import).
A RankboardError becomes `error: <message>` on stderr and exit status 2; so does an operating-system error (a full
disk, a folder that cannot be written: one line that says what happened and what to do, core/store/faults.py),
never a traceback. A reader that stops early (`python -m core list | head -1`) ends the command quietly. Control
characters in what is printed to a terminal are escaped (core/cli/terminal.py).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NamedTuple

from core.errors import RankboardError


class Command(NamedTuple):
    module: str  # a module with add_arguments(parser) and run(args) -> int
    help: str


COMMANDS = {
    "load": Command("core.cli.load", "Load runs, qrels, topics and documents into the store."),
    "list": Command("core.cli.listing", "List the collections, runs and qrels sets in the store."),
    "rename": Command("core.cli.rename", "Rename a run or a collection of the store."),
    "meta": Command("core.cli.meta", "Show or edit a stored run's lineage and cost metadata (system, version, ...)."),
    "delete": Command("core.cli.delete", "Delete runs or a whole collection from the store (needs --yes)."),
    "evaluate": Command("core.cli.evaluate", "Evaluate runs against qrels, like trec_eval."),
    "compare": Command("core.cli.compare", "Compare runs against a baseline with significance tests."),
    "check": Command("core.cli.check", "Regression gate for CI: is a new run significantly worse than its baseline?"),
    "repro": Command("core.cli.repro", "Reproducibility of a run: KTU, RBO, RMSE, t-test, effect ratio, delta RI."),
    "agreement": Command("core.cli.agreement", "Inter-assessor agreement between qrels files."),
    "convert": Command("core.cli.convert", "Check run files and write them as Parquet (fast input for --engine dask)."),
    "judges": Command("core.cli.judges", "Many judges (human or LLM) against a reference qrels set."),
    "fuse": Command("core.cli.fuse", "Fuse runs into one, as ranx does (rrf, wsum, mnz, ...)."),
    "nuggets": Command("core.cli.nuggets", "Score RAG answers on nuggets, as nuggetizer does, from its files."),
}


def _chosen(argv: list[str]) -> str | None:
    """The command named in argv (the first positional token, after the global `--store PATH`)."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("--store", "--wait"):
            next(tokens, None)
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every command is listed in the help; only the chosen one gets its arguments."""
    chosen = _chosen(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m core", description="Rankboard: IR evaluation over DuckDB.")
    parser.add_argument("--store", metavar="PATH", default=None,
                        help="DuckDB store file (default: $RANKBOARD_STORE, else data/rankboard.duckdb)")
    parser.add_argument("--wait", metavar="SECONDS", type=float, default=None,
                        help="how long to wait while another process (the dashboard, another load) uses the store "
                             "(default: $RANKBOARD_WAIT, else 120)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help)
        if name == chosen:
            module = importlib.import_module(command.module)
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    from core.cli import terminal
    terminal.protect()
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from core.store import access as store_access
    store_access.set_notice(lambda message: print(message, file=sys.stderr, flush=True))
    store_access.set_default_timeout(args.wait)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()              # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:             # e.g. `python -m core list | head -1`
        return _pipe_closed()
    except RankboardError as exc:
        return _fail(str(exc))
    except Exception as exc:            # the store file or the machine: words, not a traceback
        message = _fault(exc, args)
        if message is None:
            raise
        return _fail(message)


def _fault(exc: Exception, args) -> str | None:
    """The one-line message for a damaged store or an operating-system error; None for anything else (a bug)."""
    from core.store import faults
    from core.store import health as store_health
    from core.store.store import resolve_path
    if store_health.is_damage(exc):
        return str(store_health.damaged(resolve_path(args.store), exc))
    if isinstance(exc, OSError) or type(exc).__name__ == "IOException" or faults.kind(exc)[0] is not None:
        return faults.describe(exc, resolve_path(args.store))
    return None


def _fail(message: str) -> int:
    try:
        print(f"error: {message}", file=sys.stderr)
    except (BrokenPipeError, ValueError):
        pass
    return 2


def _pipe_closed() -> int:
    """The reader of our output has gone: send the rest nowhere, so that nothing complains at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return 0
