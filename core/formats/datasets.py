"""Collections by ir_datasets id (https://ir-datasets.com): a dataset's qrels, queries and documents read through the
`ir_datasets` package, as Rankboard's own readers read files.

`irds:ID` names a dataset wherever a qrels file is read (`read_qrels`, so `evaluate`, `compare` and `check` take it
as ir_measures' command line does); `read_dataset_topics` and `dataset_doc_batches` serve `load --dataset`. The
iterators are taken a batch of BATCH_ROWS records at a time and turned into Arrow columns (`zip(*batch)`), never
inserted row by row. ir_datasets is imported only when a dataset is asked for. What goes wrong (an unknown id, a
dataset without qrels, files that are not on this machine) is an UploadError worded by core.formats.dataset_errors.
"""
from __future__ import annotations

import typing
from itertools import islice
from pathlib import Path
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.formats import dataset_errors as errors

PREFIX = "irds:"
BATCH_ROWS = 50_000
_QRELS = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("rel", pa.int32())])


def dataset_id(source) -> str | None:
    """The dataset id of `irds:ID` (a string that is not the name of an existing file), else None."""
    if not isinstance(source, (str, Path)) or not str(source).startswith(PREFIX) or Path(source).exists():
        return None
    return str(source)[len(PREFIX):].strip()


def open_dataset(did: str):
    """The ir_datasets dataset `did`; an UploadError (with close ids) when ir_datasets has none by that id."""
    import ir_datasets
    try:
        return ir_datasets.load(did)
    except KeyError:
        raise errors.unknown(did, list(ir_datasets.registry)) from None


def text_field(cls, key: str) -> str:
    """The field that holds a record's text: `text`, else `title`, else the first text field after `key` (the id)."""
    fields = list(getattr(cls, "_fields", ()))
    for name in ("text", "title"):
        if name in fields:
            return name
    try:
        types = typing.get_type_hints(cls)
    except Exception:                       # noqa: BLE001 - a hint that does not resolve: take the fields untyped
        types = {}
    rest = [f for f in fields if f != key and types.get(f, str) is str]
    if not rest:
        raise errors.no_text_field(cls.__name__, fields)
    return rest[0]


def _batches(records, fields: tuple[str, ...], limit: int | None = None) -> Iterator[list]:
    """The records' `fields` as columns (lists), BATCH_ROWS records at a time, at most `limit` records."""
    it = iter(records) if limit is None else islice(records, limit)
    while batch := list(islice(it, BATCH_ROWS)):
        columns, names = list(zip(*batch)), type(batch[0])._fields
        yield [columns[names.index(f)] for f in fields]


def read_dataset_qrels(did: str) -> pa.Table:
    """The dataset's qrels (qid, docno, rel; read_qrels wraps them in ParsedQrels); an UploadError when it has none,
    when its files are not on this machine, or when a (topic, document) pair is judged twice."""
    ds = open_dataset(did)
    if not ds.has_qrels():
        raise errors.lacks(did, "qrels", _children(did, "qrels"))
    parts = []
    with errors.fetching(did, "qrels"):
        for qid, docno, rel in _batches(ds.qrels_iter(), ("query_id", "doc_id", "relevance")):
            parts.append(pa.table([pa.array(qid, pa.string()), pa.array(docno, pa.string()),
                                   pa.array(rel, pa.int32())], schema=_QRELS))
    table = pa.concat_tables(parts) if parts else _QRELS.empty_table()
    twice = table.group_by(["qid", "docno"]).aggregate([("rel", "count")]).filter(pc.field("rel_count") > 1)
    if twice.num_rows:
        raise errors.judged_twice(did, twice["qid"][0].as_py(), twice["docno"][0].as_py(), twice.num_rows)
    return table


def read_dataset_topics(did: str) -> pd.DataFrame:
    """The dataset's queries as topics (qid, text): the query's `text` field, else `title`, else its first text
    field."""
    ds = open_dataset(did)
    if not ds.has_queries():
        raise errors.lacks(did, "queries", _children(did, "queries"))
    field = text_field(ds.queries_cls(), "query_id")
    qids, texts = [], []
    with errors.fetching(did, "queries"):
        for qid, text in _batches(ds.queries_iter(), ("query_id", field)):
            qids += qid
            texts += text
    return pd.DataFrame({"qid": pd.Series(qids, dtype=object), "text": pd.Series(texts, dtype=object)})


def dataset_doc_batches(did: str, limit: int | None = None) -> Iterator[pa.Table]:
    """The dataset's documents (docno, text), BATCH_ROWS at a time, at most `limit` of them."""
    ds = open_dataset(did)
    if not ds.has_docs():
        raise errors.lacks(did, "documents", _children(did, "docs"))
    field = text_field(ds.docs_cls(), "doc_id")
    with errors.fetching(did, "documents"):
        for docno, text in _batches(ds.docs_iter(), ("doc_id", field), limit):
            yield pa.table({"docno": pa.array(docno, pa.string()), "text": pa.array(text, pa.string())})


def dataset_parts(did: str) -> dict[str, bool]:
    """What the dataset has: {"qrels": ..., "queries": ..., "documents": ...} (nothing is downloaded to know)."""
    ds = open_dataset(did)
    return {"qrels": ds.has_qrels(), "queries": ds.has_queries(), "documents": ds.has_docs()}


def documents_count(did: str) -> int | None:
    """How many documents ir_datasets' metadata says the dataset has, or None when it does not say."""
    try:
        return int(open_dataset(did).docs_count())
    except Exception:                   # noqa: BLE001 - no metadata for it: the count is only for a progress bar
        return None


def _children(did: str, part: str) -> list[str]:
    """Up to 5 ids below `did` (did/...) that have `part` (qrels, queries, docs)."""
    import ir_datasets
    found = (other for other in ir_datasets.registry
             if other.startswith(did + "/") and getattr(ir_datasets.load(other), f"has_{part}")())
    return list(islice(found, 5))
