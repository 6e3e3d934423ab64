"""`python -m core load ...`: files into the store.

    python -m core --store PATH load [--collection NAME] [--qrels FILE [--assessor NAME]]...
        [--run FILE [--name NAME]]... [--topics FILE] [--docs FILE] [--on-conflict error|replace|rename]

A `load` is one transaction: if any file is rejected, nothing from this command is stored.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from core import ingest
from core.formats._text import file_error
from core.store import Store

CHUNK = 4 << 20
PROGRESS_MIN_BYTES = 8 << 20


class _Append(argparse.Action):
    """--qrels/--run append a new entry; --assessor/--name label the entry before them."""

    def __call__(self, parser, ns, value, option_string=None):
        entries = getattr(ns, self.dest)
        if entries is None:
            entries = []
            setattr(ns, self.dest, entries)
        if self.const is None:
            entries.append({"file": value, "label": None})
        elif not entries or entries[-1]["label"] is not None:
            parser.error(f"{option_string} must follow the {self.const} it names")
        else:
            entries[-1]["label"] = value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--collection", default="default", help="collection to load into (created if new; default: 'default')")
    p.add_argument("--qrels", dest="qrels", action=_Append, metavar="FILE", help="qrels file (repeatable)")
    p.add_argument("--assessor", dest="qrels", action=_Append, const="--qrels", metavar="NAME",
                   help="assessor name for the preceding --qrels (default: the file name)")
    p.add_argument("--judgment-groups", action="store_true",
                   help="column 2 of the qrels is a judgment group (trec_eval qrels_jg): one qrels set per group")
    p.add_argument("--run", dest="runs", action=_Append, metavar="FILE", help="run file (repeatable)")
    p.add_argument("--name", dest="runs", action=_Append, const="--run", metavar="NAME",
                   help="name for the preceding --run (default: the run tag, else the file name)")
    p.add_argument("--on-conflict", choices=("error", "replace", "rename"), default="error",
                   help="when a run name exists: stop (default), replace the old run, or load as NAME-2")
    p.add_argument("--topics", metavar="FILE", help="topics: TREC <top> SGML, TSV qid<TAB>text, or JSONL")
    p.add_argument("--docs", metavar="FILE", help="documents: TSV docno<TAB>text, or JSONL")


def read_with_progress(path: str, out=None) -> bytes:
    """Read a file, drawing a progress bar on stderr when it is large."""
    out = out or sys.stderr
    try:
        size = Path(path).stat().st_size
        if size < PROGRESS_MIN_BYTES:
            return Path(path).read_bytes()
        return _read_chunks(path, size, out)
    except OSError as exc:
        raise file_error(path, exc) from None


def _read_chunks(path: str, size: int, out) -> bytes:
    parts, done, name = [], 0, Path(path).name
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            parts.append(chunk)
            done += len(chunk)
            filled = int(30 * done / size)
            out.write(f"\r  reading {name} [{'#' * filled}{'.' * (30 - filled)}] {done * 100 // size:3d}%")
            out.flush()
    out.write("\n")
    return b"".join(parts)


def run(args) -> int:
    jobs = [("topics", args.topics, None)] if args.topics else []
    jobs += [("qrels", q["file"], q["label"]) for q in args.qrels or []]
    jobs += [("docs", args.docs, None)] if args.docs else []
    jobs += [("run", r["file"], r["label"]) for r in args.runs or []]
    if not jobs:
        print("Nothing to load: give --run, --qrels, --topics or --docs.", file=sys.stderr)
        return 2
    store = Store.open(args.store)
    try:
        with store.transaction() as cur:
            cid = ingest.collection_id(cur, args.collection, create=True)
            for i, (kind, path, label) in enumerate(jobs, 1):
                start = time.perf_counter()
                data, name = read_with_progress(path), Path(path).name
                if kind == "run":
                    rep = ingest.add_run(cur, cid, data, filename=name, name=label, on_conflict=args.on_conflict)
                elif kind == "qrels":
                    rep = ingest.add_qrels(cur, cid, data, filename=name, assessor=label,
                                           judgment_groups=args.judgment_groups)
                elif kind == "topics":
                    rep = ingest.add_topics(cur, cid, data, filename=name)
                else:
                    rep = ingest.add_documents(cur, cid, data, filename=name)
                label = f" as '{rep.name}'" if rep.name else ""
                print(f"[{i}/{len(jobs)}] {kind} {name}{label}: {rep.n_rows} rows in "
                      f"{time.perf_counter() - start:.2f}s", file=sys.stderr)
                for w in rep.warnings:
                    print(f"  warning: {w}", file=sys.stderr)
        print(f"Loaded {len(jobs)} file(s) into collection '{args.collection}' of {store.path}.")
    finally:
        store.close()
    return 0
