"""Writing parsed files into the store. Every function takes a cursor inside an open transaction
(see `Store.transaction`), so that the caller decides what commits together.
"""
from __future__ import annotations

import json
import numbers
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from core.errors import EvalError, OptionError, Problem, UploadError
from core.formats import read_documents, read_qrels, read_topics, source_name
from core.store.prepare import PreparedRun, prepare_run  # noqa: F401  (the loaders' first step, before the store)
from core.db.sqltext import one, registered, statement
from core.formats.lineage import from_header
from core.store.lineage import write_meta
from core.store.schema import BY_RUN

INSERT_RUN_ROWS = "INSERT INTO run_docs SELECT ?, topic, docno, score, rank FROM {view}"
INSERT_RUN_TOPICS = "INSERT INTO run_topics SELECT ?, qid, n, topic FROM {view}"
# The judged retrieved rows of one new run (in view, with its topic number and rank; its topics in {topics})
# under every qrels set of its collection. The qrels take the run's topic numbers, so the join of the run's
# millions of rows is on (integer, docno) rather than on two strings.
INSERT_RUN_JUDGED = """INSERT INTO judged_rows SELECT ?, q.qrels_id, tp.qid, t.rank, q.rel
FROM {view} t JOIN (qrels q JOIN {topics} tp ON tp.qid = q.qid) ON tp.topic = t.topic AND q.docno = t.docno
WHERE q.qrels_id IN (SELECT qrels_id FROM qrels_sets WHERE collection_id = ?)"""
# The judged retrieved rows of every stored run of a collection under one new qrels set.
INSERT_QRELS_JUDGED = """INSERT INTO judged_rows SELECT r.run_id, q.qrels_id, r.qid, r.rank, q.rel
FROM run_rows r JOIN qrels q ON q.qid = r.qid AND q.docno = r.docno
WHERE q.qrels_id = ? AND r.run_id IN (SELECT run_id FROM runs WHERE collection_id = ?)"""


@dataclass
class IngestReport:
    id: int | None
    n_rows: int
    warnings: list[str] = field(default_factory=list)
    name: str | None = None
    ids: list[int] = field(default_factory=list)


def collection_id(cur, collection, *, create: bool = False) -> int:
    """A collection name or id -> its id; unknown names are created when `create`. A string is a name first,
    then, if it is all digits, an id (so `load --collection 5` loads into collection 5 when no collection
    is named '5')."""
    is_id = isinstance(collection, numbers.Integral) and not isinstance(collection, bool)  # numpy ints too
    by_name = ("name", str(collection))
    by_id = [("collection_id", int(collection))] if is_id or str(collection).isdecimal() else []
    for column, value in (by_id + [by_name] if is_id else [by_name] + by_id):
        row = one(cur, statement("SELECT collection_id FROM collections WHERE {c} = ?", c=column), [value])
        if row:
            return row[0]
    if create and isinstance(collection, str):
        return create_collection(cur, collection)
    raise EvalError(f"Unknown collection '{collection}'. Run `python -m core list` to see the collections.")


def create_collection(cur, name: str) -> int:
    if not name or not name.strip():
        raise EvalError("A collection needs a name.")
    if one(cur, "SELECT 1 FROM collections WHERE name = ?", [name]):
        raise EvalError(f"A collection named '{name}' already exists.")
    return one(cur, "INSERT INTO collections VALUES (nextval('collection_ids'), ?, now()) "
                       "RETURNING collection_id", [name])[0]


def default_qrels_id(cur, cid: int) -> int | None:
    row = one(cur, "SELECT qrels_id FROM qrels_sets WHERE collection_id = ? AND is_default "
                      "ORDER BY qrels_id LIMIT 1", [cid])
    return row[0] if row else None


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _examples(qids: set[str], n: int = 3) -> str:
    shown = sorted(qids, key=lambda q: (len(q), q))[:n]
    return ", ".join(shown) + (", ..." if len(qids) > n else "")


def _unique_name(cur, cid: int, name: str) -> str:
    taken = {r[0] for r in cur.execute("SELECT name FROM runs WHERE collection_id = ?", [cid]).fetchall()}
    i = 2
    while f"{name}-{i}" in taken:
        i += 1
    return f"{name}-{i}"


def add_run(cur, cid: int, source, *, filename=None, name=None, on_conflict="error", parsed=None,
            prepared: PreparedRun | None = None, meta: dict[str, str] | None = None) -> IngestReport:
    """Insert one run (parsing it here unless `prepared`); raises UploadError (nothing written) on any problem.
    Its lineage and cost metadata (core/store/lineage.py) come from its ir_metadata header, overridden by `meta`
    ({key: value} already checked by core.formats.lineage.parse_pairs; an empty value removes the header's)."""
    if on_conflict not in ("error", "replace", "rename"):
        raise OptionError(f"on_conflict must be 'error', 'replace' or 'rename', not {on_conflict!r}.")
    if prepared is None:
        prepared = prepare_run(source, filename=filename, parsed=parsed)
        try:
            return add_run(cur, cid, None, name=name, on_conflict=on_conflict, prepared=prepared, meta=meta)
        finally:
            prepared.close()
    file, run, rows, topics = prepared.file, prepared.run, prepared.rows, prepared.topics
    name = name or run.tag or Path(file).name.removesuffix(".gz")
    lineage = {**from_header(run.metadata, file), **(meta or {})}
    warnings = list(run.warnings)
    old = one(cur, "SELECT run_id FROM runs WHERE collection_id = ? AND name = ?", [cid, name])
    if old and on_conflict == "error":
        cname = one(cur, "SELECT name FROM collections WHERE collection_id = ?", [cid])[0]
        raise UploadError(Problem(file, None, f"a run named '{name}' already exists in collection '{cname}'",
                                  f"Choose replace to overwrite it, or rename to load it as '{_unique_name(cur, cid, name)}'"))
    if old and on_conflict == "replace":
        delete_run(cur, old[0])
    elif old:
        warnings.append(f"A run named '{name}' already exists; this one was loaded as "
                        f"'{(name := _unique_name(cur, cid, name))}'.")
    warnings += _topic_warnings(cur, cid, topics["qid"], file)
    run_id = one(cur, "SELECT nextval('run_ids')")[0]
    _insert_run(cur, cid, run_id, rows, topics)
    cur.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now())",
                [run_id, cid, name, run.tag, file, json.dumps(run.metadata), run.n_rows, topics.num_rows,
                 pc.max(topics["n"]).as_py()]).fetchall()      # the depth: None for a run with no rows
    write_meta(cur, run_id, lineage)
    return IngestReport(run_id, run.n_rows, warnings, name, [run_id])


def _insert_run(cur, cid: int, run_id: int, rows: pa.Table | Path, topics: pa.Table) -> None:
    """run_docs (with the canonical rank), run_topics, and the judged rows under every qrels set. `rows`: a table,
    or a Parquet file of one (a spooled run, which DuckDB reads a row group at a time)."""
    with registered(cur, rows) as view, registered(cur, topics) as topics_view:
        # the rows' physical order does not matter (readers order by rank): let both threads write unordered
        cur.execute("SET preserve_insertion_order = false").fetchall()
        try:
            cur.execute(statement(INSERT_RUN_ROWS, view=view), [run_id]).fetchall()
            cur.execute(statement(INSERT_RUN_JUDGED, view=view, topics=topics_view), [run_id, cid]).fetchall()
        finally:
            cur.execute("RESET preserve_insertion_order").fetchall()
        cur.execute(statement(INSERT_RUN_TOPICS, view=topics_view), [run_id]).fetchall()


def _topic_warnings(cur, cid: int, qids: pa.Array, file: str) -> list[str]:
    """Compare the run's topics with the default qrels: none shared is an error, some missing a warning."""
    qrels_id = default_qrels_id(cur, cid)
    if qrels_id is None:
        return []
    judged = {r[0] for r in cur.execute("SELECT DISTINCT qid FROM qrels WHERE qrels_id = ?", [qrels_id]).fetchall()}
    ran = set(qids.to_pylist())
    if not judged & ran:
        raise UploadError(Problem(file, None, f"none of the run's {_n(len(ran), 'topic')} ({_examples(ran)}) appear in "
                                  f"the collection's qrels ({_n(len(judged), 'topic')}: {_examples(judged)})",
                                  "Check that you chose the right collection, or load the matching qrels first"))
    out = []
    if ran - judged:
        out.append(f"{len(ran - judged)} of the run's {_n(len(ran), 'topic')} have no judgments in the qrels "
                   f"({_examples(ran - judged)}); evaluation ignores them.")
    if judged - ran:
        out.append(f"{len(judged - ran)} of the {_n(len(judged), 'judged topic')} are missing from the run "
                   f"({_examples(judged - ran)}); trec_eval skips them unless -c counts them as 0.")
    return out


def add_qrels(cur, cid: int, source, *, filename=None, assessor=None, judgment_groups=False,
              parsed=None) -> IngestReport:
    """Insert a qrels set (or one set per judgment group); the collection's first set is its default.
    `parsed`: the file already read by read_qrels (a loader parses before it takes the store)."""
    file = source_name(source, filename)
    parsed = parsed or read_qrels(source, filename=file, judgment_groups=judgment_groups)
    base = assessor or Path(file).name.removesuffix(".gz")
    parts = parsed.by_group() if judgment_groups else {None: parsed.table}
    ids, total = [], 0
    for group, table in parts.items():
        who = base if group is None else f"{base}-jg{group}"
        if one(cur, "SELECT 1 FROM qrels_sets WHERE collection_id = ? AND assessor = ?", [cid, who]):
            raise UploadError(Problem(file, None, f"the collection already has qrels by assessor '{who}'",
                                      "Give these judgments a different assessor name"))
        is_default = default_qrels_id(cur, cid) is None
        qid = one(cur, "INSERT INTO qrels_sets VALUES (nextval('qrels_ids'), ?, ?, ?, ?, now()) RETURNING qrels_id",
                          [cid, who, file, is_default])[0]
        with registered(cur, table) as view:
            cur.execute(statement("INSERT INTO qrels SELECT ?, qid, docno, rel FROM {view}", view=view), [qid]).fetchall()
        cur.execute(INSERT_QRELS_JUDGED, [qid, cid]).fetchall()
        ids.append(qid)
        total += table.num_rows
    return IngestReport(ids[0], total, list(parsed.warnings), base, ids)


def add_topics(cur, cid: int, source, *, filename=None, frame=None) -> IngestReport:
    """Insert topics (`frame`: already read by read_topics); a qid already present gets its text replaced."""
    df = (frame if frame is not None else read_topics(source, filename=source_name(source, filename)))[["qid", "text"]]
    return _upsert(cur, cid, pa.Table.from_pandas(df, preserve_index=False), "topics", "qid")


def add_documents(cur, cid: int, source, *, filename=None, frame=None, rows: Path | None = None) -> IngestReport:
    """Insert document texts (`frame`: already read; `rows`: a Parquet file of docno, text, which DuckDB reads a row
    group at a time); a docno already present gets its text replaced."""
    if rows is None:
        df = frame if frame is not None else read_documents(source, filename=source_name(source, filename))
        rows = pa.Table.from_pandas(df[["docno", "text"]], preserve_index=False)
        return _upsert(cur, cid, rows, "documents", "docno")
    with registered(cur, rows) as view:
        twice = one(cur, statement("SELECT docno, count(*) FROM {view} GROUP BY docno HAVING count(*) > 1 "
                                   "ORDER BY docno LIMIT 1", view=view))
    if twice:
        raise UploadError(Problem(source_name(source, filename), None, f"document {twice[0]} appears {twice[1]} "
                                  "times", "Each document needs one text: remove the repeated ones"))
    return _upsert(cur, cid, rows, "documents", "docno")


def _upsert(cur, cid: int, rows, table: str, key: str) -> IngestReport:
    """Insert `rows` (key, text: an Arrow table or a Parquet file) into `table`, replacing the texts of keys the
    collection already holds."""
    in_view = "collection_id = ? AND {key} IN (SELECT {key} FROM {view})"
    with registered(cur, rows) as view:
        names = {"table": table, "key": key, "view": view}
        replaced = one(cur, statement("SELECT count(*) FROM {table} WHERE " + in_view, **names), [cid])[0]
        cur.execute(statement("DELETE FROM {table} WHERE " + in_view, **names), [cid]).fetchall()
        cur.execute(statement("INSERT INTO {table} SELECT ?, {key}, text FROM {view}", **names), [cid]).fetchall()
        n = one(cur, statement("SELECT count(*) FROM {view}", view=view))[0]
    warnings = [f"{replaced} existing {table} were replaced by the new text."] if replaced else []
    return IngestReport(cid, n, warnings)


def run_collection(cur, run_id: int) -> int:
    """The id of the run's collection; an unknown run id is an EvalError."""
    row = one(cur, "SELECT collection_id FROM runs WHERE run_id = ?", [run_id])
    if row is None:
        raise EvalError(f"Unknown run id {run_id}.")
    return row[0]


def rename_run(cur, run_id: int, new_name: str) -> None:
    cid = run_collection(cur, run_id)
    if not new_name.strip():
        raise EvalError("A run needs a non-empty name.")
    if one(cur, "SELECT 1 FROM runs WHERE collection_id = ? AND name = ? AND run_id <> ?", [cid, new_name, run_id]):
        raise EvalError(f"A run named '{new_name}' already exists in this collection; choose another name.")
    cur.execute("UPDATE runs SET name = ? WHERE run_id = ?", [new_name, run_id]).fetchall()


def delete_run(cur, run_id: int) -> None:
    """Remove a run, its rows, its judged rows and its cached results."""
    run_collection(cur, run_id)
    for table in BY_RUN:
        cur.execute(statement("DELETE FROM {table} WHERE run_id = ?", table=table), [run_id]).fetchall()
