"""`python -m core load ...`: files into the store (docs/cli.md#load lists the options).

--system, --version, --timestamp and --meta describe the --run before them, or, before the first --run, every run of
the load (a run's own flags win), over what its ir_metadata header gives (core/formats/lineage.py). A `load` is one
transaction: if any file is rejected, nothing from it is stored. The files are read and checked before the store is
taken, so other processes wait only for the inserts."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from core.errors import OptionError
from core.store import faults
from core.store import ingest
from core.store.datasets import insert_dataset, prepare_dataset
from core.formats import (GZIP_MAGIC, file_error, max_text_bytes, read_documents, read_qrels, read_scores, read_topics,
                          too_big)
from core.formats.lineage import COST_KEYS, META_KEYS, parse_pair
from core.formats.pieces import pieces_min_bytes
from core.store.scores import insert_scores
from core.store.store import Store, resolve_path

CHUNK = 4 << 20
DATASET_DOCS = object()           # `--docs` without a file: the documents of --dataset
PROGRESS_MIN_BYTES = 8 << 20


class _Append(argparse.Action):
    """--qrels/--run append a new entry; --assessor/--name label the entry before them."""

    def __call__(self, parser, ns, value, option_string=None):
        entries = getattr(ns, self.dest) or []
        setattr(ns, self.dest, entries)
        if self.const is None:
            entries.append({"file": value, "label": None, "kind": option_string.lstrip("-"), "source": None})
        elif not entries or entries[-1]["label"] is not None:
            parser.error(f"{option_string} must follow the {self.const} it names")
        else:
            entries[-1]["label"] = value


class _Meta(argparse.Action):
    """--system/--version/--timestamp/--meta describe the preceding --run, or every run when no --run precedes them
    (kept as `key=value` texts, checked by `_run_meta` before any file is read)."""

    def __call__(self, parser, ns, value, option_string=None):
        runs = getattr(ns, "runs", None)
        if runs and runs[-1]["kind"] != "run":
            parser.error(f"{option_string} must follow a --run (or come before the first one), not --scores")
        target = runs[-1].setdefault("meta", []) if runs else ns.__dict__.setdefault("meta_all", [])
        target.append((option_string, value if self.dest == "meta" else f"{self.dest}={value}"))


def _run_meta(texts) -> dict[str, str]:
    """The (option, key=value) texts of one run -> {key: checked value}; a bad one raises OptionError."""
    return dict(parse_pair(text, option=option) for option, text in texts)


class _Source(argparse.Action):
    """--source labels the --scores before it."""

    def __call__(self, parser, ns, value, option_string=None):
        entries = getattr(ns, self.dest) or []
        if not entries or entries[-1]["kind"] != "scores" or entries[-1]["source"] is not None:
            parser.error(f"{option_string} must follow the --scores it describes")
        entries[-1]["source"] = value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--collection", default="default", help="collection to load into (created if new; default: 'default')")
    p.add_argument("--qrels", dest="qrels", action=_Append, metavar="FILE", help="qrels file (repeatable)")
    p.add_argument("--assessor", dest="qrels", action=_Append, const="--qrels", metavar="NAME",
                   help="assessor name for the preceding --qrels (default: the file name)")
    p.add_argument("--judgment-groups", action="store_true",
                   help="column 2 of the qrels is a judgment group (trec_eval qrels_jg): one qrels set per group")
    p.add_argument("--diversity-qrels", dest="diversity", action="append", metavar="FILE",
                   help="subtopic qrels (qid subtopic docno rel, as ndeval reads) for the diversity measures, "
                        "stored as a diversity qrels set named after the file (repeatable)")
    p.add_argument("--run", dest="runs", action=_Append, metavar="FILE", help="run file (repeatable)")
    p.add_argument("--scores", dest="runs", action=_Append, metavar="FILE",
                   help="per-query scores from another tool (trec_eval -q, ir_measures, ranx, or a long CSV/Parquet "
                        "of run, qid, measure, value), stored as imported measures of their runs (repeatable)")
    p.add_argument("--name", dest="runs", action=_Append, const="--run", metavar="NAME",
                   help="name for the preceding --run (default: the run tag, else the file name) or --scores "
                        "(of one run; default: the run the file names, else the file name)")
    for flag, meaning in (("--system", "NAME"), ("--version", "V"), ("--timestamp", "ISO")):
        key = flag.removeprefix("--")
        p.add_argument(flag, dest=key, action=_Meta, metavar=meaning,
                       help=f"{key}: {META_KEYS[key].meaning}; describes the preceding --run (before any --run: "
                            "every run)")
    p.add_argument("--meta", dest="meta", action=_Meta, metavar="KEY=VALUE",
                   help="metadata of the preceding --run (before any --run: of every run), repeatable: a cost key ("
                        + ", ".join(COST_KEYS) + ") or any other key; KEY= removes a key the header gave")
    p.add_argument("--source", dest="runs", action=_Source, metavar="TEXT",
                   help="where the preceding --scores come from, shown as 'imported (TEXT)' (default: the "
                        "file's layout, e.g. trec_eval -q)")
    p.add_argument("--on-conflict", choices=("error", "replace", "rename"), default="error",
                   help="when a run name exists: stop (default), replace the old run, or load as NAME-2")
    p.add_argument("--topics", metavar="FILE", help="topics: TREC <top> SGML, TSV qid<TAB>text, or JSONL")
    p.add_argument("--docs", metavar="FILE", nargs="?", const=DATASET_DOCS,
                   help="documents: TSV docno<TAB>text, JSONL or TREC <DOC>; without FILE, the documents of --dataset")
    p.add_argument("--dataset", metavar="ID",
                   help="an ir_datasets id (msmarco-passage/trec-dl-2019/judged): load its qrels (as the qrels set "
                        "named ID) and its queries (as topics); with --docs, its documents too")
    p.add_argument("--docs-limit", metavar="N", type=_positive, default=None,
                   help="with --dataset and --docs: load at most the first N documents")
    p.add_argument("--nuggets", metavar="FILE", help="RAG nuggets, nuggetizer's JSON Lines (qid, nuggets); with "
                   "--assignments")
    p.add_argument("--assignments", metavar="FILE",
                   help="nuggetizer's assignments of those nuggets to each run's answers (qid, run_id, nuggets): "
                        "stored with the runs' four nugget scores as imported measures, source 'nuggets'")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of documents, 1 or more, not {text!r}")
    return int(text)


def read_with_progress(path: str) -> bytes:
    """Read a file, drawing a progress bar on stderr when it is large."""
    try:
        size = Path(path).stat().st_size
        with open(path, "rb") as f:
            if f.read(2) != GZIP_MAGIC and size > max_text_bytes():    # refused before it is read
                raise too_big(Path(path).name, "holds")
            f.seek(0)
            parts, done = [], 0
            with _Bar(Path(path).name) as bar:
                while chunk := f.read(CHUNK):
                    parts.append(chunk)
                    done += len(chunk)
                    bar(done, size)
        return b"".join(parts)
    except OSError as exc:
        raise file_error(path, exc) from None


class _Line:
    """A progress line on stderr, redrawn in place; finish() (or the end of a `with` block) ends it."""

    def __init__(self, name: str):
        self.name, self.out, self.drawn = name, sys.stderr, False

    def finish(self) -> None:
        if self.drawn:
            self.out.write("\n")
            self.drawn = False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.finish()


class _Bar(_Line):
    """A file's progress bar: read_with_progress's, and prepare_run's callback for a run read in pieces."""

    what = "reading"        # the pass over the file the bar shows

    def __call__(self, done: int, size: int, what: str = "reading") -> None:
        """Draw the bar; a new pass over the file (`what`: parsing, re-reading, ...) starts a bar on a new line."""
        if size < PROGRESS_MIN_BYTES:
            return
        if what != self.what:
            self.finish()
            self.what = what
        filled = int(30 * done / size)
        self.out.write(f"\r  {what} {self.name} [{'#' * filled}{'.' * (30 - filled)}] {done * 100 // size:3d}%")
        self.out.flush()
        self.drawn = True


def _prepare_run(path: str, name: str):
    """A run file: read in pieces when it is large or gzip-compressed (ingest.prepare_run decides), else read
    here (with the progress bar) and parsed whole."""
    try:
        with open(path, "rb") as f:
            small = f.read(2) != GZIP_MAGIC and os.fstat(f.fileno()).st_size < pieces_min_bytes()
    except OSError:
        small = True                   # read_with_progress reports it
    if small:
        return ingest.prepare_run(read_with_progress(path), filename=name)
    with _Bar(name) as bar:
        return ingest.prepare_run(path, filename=name, progress=bar)


def _prepare(kind: str, path: str, name: str, label, args):
    """Parse (and for a run, check and rank) one file: the work done before the store is taken."""
    if kind == "dataset":
        with _Counter(name) as bar:
            return prepare_dataset(path, docs=args.docs is DATASET_DOCS, docs_limit=args.docs_limit, progress=bar)
    if kind == "run":
        return _prepare_run(path, name)
    data = read_with_progress(path)
    if kind == "scores":
        return read_scores(data, filename=name, name=label[0])
    if kind == "qrels":
        return read_qrels(data, filename=name, judgment_groups=args.judgment_groups)
    if kind == "diversity qrels":
        from core.formats.subtopics import read_subtopic_qrels
        return read_subtopic_qrels(data, filename=name)
    if kind == "nuggets":
        from core.measures import score_nugget_files
        return score_nugget_files(data, read_with_progress(args.assignments), nuggets_name=name,
                                  assignments_name=Path(args.assignments).name)
    return (read_topics if kind == "topics" else read_documents)(data, filename=name)


class _Counter(_Line):
    """prepare_dataset's progress: the documents read so far, on one line of stderr."""

    def __call__(self, part: str, done: int, total) -> None:
        if part != "documents":
            return
        of = f" of {total:,}" if total else ""
        self.out.write(f"\r  reading the documents of {self.name}: {done:,}{of}")
        self.out.flush()
        self.drawn = True


def _insert(cur, cid: int, kind: str, name: str, label, parsed, args):
    if kind == "dataset":
        return insert_dataset(cur, cid, parsed)
    if kind == "scores":
        return insert_scores(cur, cid, parsed, source=label[1])
    if kind == "run":
        label, meta = label
        return ingest.add_run(cur, cid, None, filename=name, name=label, on_conflict=args.on_conflict,
                              prepared=parsed, meta=meta)
    if kind == "qrels":
        return ingest.add_qrels(cur, cid, None, filename=name, assessor=label,
                                judgment_groups=args.judgment_groups, parsed=parsed)
    if kind == "diversity qrels":
        from core.store.diversity import insert_diversity_qrels
        return insert_diversity_qrels(cur, cid, parsed, name)
    if kind == "nuggets":
        from core.store.nuggets import insert_nuggets
        return insert_nuggets(cur, cid, *parsed, nuggets_file=name, assignments_file=Path(args.assignments).name)
    adder = ingest.add_topics if kind == "topics" else ingest.add_documents
    return adder(cur, cid, None, filename=name, frame=parsed)


def _check(args) -> None:
    if args.docs is DATASET_DOCS and not args.dataset:
        raise OptionError("--docs without a FILE loads the documents of --dataset ID: give --dataset, or a FILE "
                          "after --docs.")
    if args.docs_limit is not None and args.docs is not DATASET_DOCS:
        raise OptionError("--docs-limit N limits the documents of --dataset ID: add --dataset ID --docs.")
    if bool(args.nuggets) != bool(args.assignments):
        raise OptionError("--nuggets and --assignments go together: give the nuggets file and the assignments made "
                          "from it.")


def run(args) -> int:
    _check(args)
    jobs = [("dataset", args.dataset, None)] if args.dataset else []
    jobs += [("topics", args.topics, None)] if args.topics else []
    jobs += [("qrels", q["file"], q["label"]) for q in args.qrels or []]
    jobs += [("diversity qrels", path, None) for path in args.diversity or []]
    jobs += [("docs", args.docs, None)] if isinstance(args.docs, str) else []
    common = _run_meta(getattr(args, "meta_all", []))
    jobs += [("run", r["file"], (r["label"], {**common, **_run_meta(r.get("meta", []))}))
             for r in args.runs or [] if r["kind"] == "run"]
    jobs += [("scores", r["file"], (r["label"], r["source"])) for r in args.runs or [] if r["kind"] == "scores"]
    jobs += [("nuggets", args.nuggets, None)] if args.nuggets else []
    if not jobs:
        print("Nothing to load: give --run, --scores, --qrels, --diversity-qrels, --topics, --docs, --dataset or "
              "--nuggets.", file=sys.stderr)
        return 2
    # Every file is read and checked first, without the store, so the store is held only for the inserts
    # and a bad file is reported before anyone else is made to wait.
    prepared = []
    try:
        for kind, path, label in jobs:
            start = time.perf_counter()
            name = f"irds:{path}" if kind == "dataset" else Path(path).name
            with faults.reading(name, resolve_path(args.store)):
                parsed = _prepare(kind, path, name, label, args)
            prepared.append((kind, name, label, parsed, time.perf_counter() - start))
        _insert_all(args, prepared)
    finally:
        for _, _, _, parsed, _ in prepared:
            getattr(parsed, "close", lambda: None)()     # a run spooled to a temporary file
    return 0


def _insert_all(args, prepared) -> None:
    """The inserts, in one transaction of the store."""
    with Store.open(args.store, load_sample=False) as store, store.transaction() as cur:
        cid = ingest.collection_id(cur, args.collection, create=True)
        for i, (kind, name, label, parsed, spent) in enumerate(prepared, 1):
            start = time.perf_counter()
            rep = _insert(cur, cid, kind, name, label, parsed, args)
            if kind == "dataset":         # [(part, report)]: one line for the parts
                rows = ", ".join(f"{r.n_rows} {part}" for part, r in rep)
                rep = ingest.IngestReport(None, 0, [w for _, r in rep for w in r.warnings])
            else:
                rows = f"{rep.n_rows} rows"
            label = f" as '{rep.name}'" if rep.name else ""
            print(f"[{i}/{len(prepared)}] {kind} {name}{label}: {rows} in "
                  f"{spent + time.perf_counter() - start:.2f}s", file=sys.stderr)
            for w in rep.warnings:
                print(f"  warning: {w}", file=sys.stderr)
    files = len(prepared) - bool(args.dataset)
    what = " and ".join([f"irds:{args.dataset}"] * bool(args.dataset) + [f"{files} file(s)"] * bool(files))
    print(f"Loaded {what} into collection '{args.collection}' of {store.path}.")
