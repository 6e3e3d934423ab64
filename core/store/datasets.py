"""A dataset of ir_datasets loaded into a collection: its qrels (a qrels set whose assessor is the dataset id), its
queries (as topics) and, when asked, its documents.

As for files, the dataset is read before the store is taken (`prepare_dataset`): the qrels and queries into Arrow and
pandas, the documents batch by batch into a temporary Parquet file in the spool folder ($RANKBOARD_SPOOL_DIR, else
the temporary folder), so memory stays bounded however many there are. `insert_dataset` then inserts the parts
inside the caller's transaction (core.store.ingest), so a load that fails stores nothing.
"""
from __future__ import annotations

import os
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq

from core.db.sqltext import one
from core.errors import Problem, UploadError
from core.formats import datasets
from core.formats.dataset_errors import nothing_to_load
from core.formats.qrels import ParsedQrels
from core.store import faults, ingest

DOCS = pa.schema([("docno", pa.string()), ("text", pa.string())])
# progress(part, done, total): part is "qrels", "queries" or "documents"; done and total count documents (total: None
# when ir_datasets does not know it)
Progress = Callable[[str, int, "int | None"], None]


@dataclass
class PreparedDataset:
    """What `insert_dataset` inserts: the parts the dataset has (None for a part it lacks or that was not asked for)."""
    did: str
    qrels: ParsedQrels | None
    topics: object | None                 # a pandas DataFrame (qid, text)
    docs: Path | None                     # a Parquet file (docno, text), removed by close()
    warnings: list[str] = field(default_factory=list)
    _cleanup: weakref.finalize = field(repr=False, default=None)

    @property
    def name(self) -> str:
        return f"{datasets.PREFIX}{self.did}"

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()


def prepare_dataset(did: str, *, docs: bool = False, docs_limit: int | None = None,
                    progress: Progress | None = None) -> PreparedDataset:
    """Read the dataset's qrels and queries (and, with `docs`, at most `docs_limit` of its documents) without the
    store. A dataset with neither qrels nor queries is refused unless its documents are asked for; a missing part is
    a warning. Raises UploadError (core.formats.dataset_errors) on what ir_datasets cannot give."""
    tell = progress or (lambda part, done, total: None)
    has = datasets.dataset_parts(did)
    if not (has["qrels"] or has["queries"]) and not (docs and has["documents"]):
        raise nothing_to_load(did, has["documents"])
    warnings = [f"The dataset has no {part}; only its other parts were loaded." for part in ("qrels", "queries")
                if not has[part]]
    qrels = topics = None
    if has["qrels"]:
        tell("qrels", 0, None)
        qrels = ParsedQrels(datasets.read_dataset_qrels(did), None, [], "ir_datasets")
    if has["queries"]:
        tell("queries", 0, None)
        topics = datasets.read_dataset_topics(did)
    prepared = PreparedDataset(did, qrels, topics, None, warnings)
    if docs:
        total = datasets.documents_count(did)
        total = docs_limit if total is None else (total if docs_limit is None else min(total, docs_limit))
        prepared.docs = _spool_docs(did, docs_limit, lambda done: tell("documents", done, total))
        prepared._cleanup = weakref.finalize(prepared, prepared.docs.unlink, missing_ok=True)
    return prepared


def _spool_docs(did: str, limit: int | None, tell: Callable[[int], None]) -> Path:
    """The documents, batch by batch, into a temporary Parquet file of the spool folder (named as a spooled run's,
    so core.db.sweep removes it when its process is gone)."""
    folder = faults.spool_folder()[0]
    fd, path = tempfile.mkstemp(prefix=f"rankboard-run-{os.getpid()}-docs-", suffix=".parquet", dir=folder)
    os.close(fd)
    done = 0
    try:
        with pq.ParquetWriter(path, DOCS) as writer:
            tell(0)
            for batch in datasets.dataset_doc_batches(did, limit):
                writer.write_table(batch.cast(DOCS))
                done += batch.num_rows
                tell(done)
    except BaseException:
        Path(path).unlink(missing_ok=True)
        raise
    return Path(path)


def insert_dataset(cur, cid: int, prepared: PreparedDataset) -> list[tuple[str, ingest.IngestReport]]:
    """Insert the prepared parts into collection `cid`, inside the caller's transaction: [(part, report)], part being
    "qrels", "topics" or "documents". The qrels set is named after the dataset id; a dataset whose qrels set is
    already in the collection is refused (nothing is stored)."""
    name, out = prepared.name, []
    if prepared.qrels is not None and one(cur, "SELECT 1 FROM qrels_sets WHERE collection_id = ? AND assessor = ?",
                                          [cid, prepared.did]):
        raise UploadError(Problem(name, None, "the collection already holds this dataset's qrels (its qrels set "
                                              f"'{prepared.did}')", "Load the dataset into another collection"))
    if prepared.qrels is not None:
        out.append(("qrels", ingest.add_qrels(cur, cid, None, filename=name, assessor=prepared.did,
                                              parsed=prepared.qrels)))
    if prepared.topics is not None:
        out.append(("topics", ingest.add_topics(cur, cid, None, filename=name, frame=prepared.topics)))
    if prepared.docs is not None:
        out.append(("documents", ingest.add_documents(cur, cid, None, filename=name, rows=prepared.docs)))
    if out:
        out[0][1].warnings[:0] = prepared.warnings
    return out
