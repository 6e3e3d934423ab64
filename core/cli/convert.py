"""`python -m core convert RUN [RUN ...] --out DIR`: check run files and write them as Parquet (core.distributed.convert)."""
from __future__ import annotations

import sys


def add_arguments(p) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run file(s): TREC text (gzip is fine), CSV/TSV or Parquet")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the .parquet files (created if needed)")


def run(args) -> int:
    from core.distributed.convert import to_parquet

    for path in args.runs:
        target = to_parquet(path, args.out)
        print(f"{path} -> {target}", file=sys.stderr)
    return 0
