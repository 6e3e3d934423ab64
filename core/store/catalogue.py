"""What the store holds, read and edited by name: collections, runs, qrels sets, topics, documents
and notes. Each write is one transaction of the store (`core/store/ingest.py` does the writing).

`Catalogue` is the part of `Store` that needs only `self.cursor()`, `self.transaction()` and
`self._query()`, which `core/store/store.py` defines: connections and transactions stay there.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.store import edits
from core.store import faults
from core.store import ingest
from core.store import nuggets as store_nuggets
from core.store import lineage, scores
from core.formats.lineage import check_key, check_value
from core.formats import read_documents, read_qrels, read_scores, read_topics, source_name

if TYPE_CHECKING:
    import pandas as pd


class Catalogue:
    """Store methods by collection name or id; mixed into `core.store.store.Store`."""

    def _cid(self, collection) -> int:
        with self.cursor() as cur:
            return ingest.collection_id(cur, collection)

    def _read(self, collection, read, *args):
        """`read(cur, the collection's id, *args)` on a cursor of its own."""
        with self.cursor() as cur:
            return read(cur, ingest.collection_id(cur, collection), *args)

    # -- collections ------------------------------------------------------------------------------
    def collections(self) -> pd.DataFrame:
        return self._query("""
            SELECT c.collection_id, c.name,
                (SELECT count(*) FROM runs r WHERE r.collection_id = c.collection_id) AS n_runs,
                (SELECT count(*) FROM topics t WHERE t.collection_id = c.collection_id) AS n_topics,
                (SELECT count(*) FROM qrels_sets q WHERE q.collection_id = c.collection_id) AS n_qrels_sets,
                (SELECT count(*) FROM documents d WHERE d.collection_id = c.collection_id) AS n_documents,
                c.created_at,
                greatest(c.created_at, (SELECT max(r.uploaded_at) FROM runs r WHERE r.collection_id = c.collection_id),
                         (SELECT max(q.created_at) FROM qrels_sets q WHERE q.collection_id = c.collection_id))
                    AS changed_at
            FROM collections c ORDER BY c.collection_id""")

    def create_collection(self, name: str) -> int:
        with self.transaction() as cur:
            return ingest.create_collection(cur, name)

    # -- uploads (each one transaction; the file is parsed before the store is taken) --------------------------
    def add_run(self, collection, source, *, filename=None, name=None, on_conflict="error", meta=None):
        """Load one run file; `meta`: {key: value} lineage and cost metadata over its header's
        (checked here as core.formats.lineage.parse_pairs checks them)."""
        meta = {check_key(k): check_value(k, v) for k, v in meta.items()} if meta else meta
        with faults.reading(source_name(source, filename), self.path):   # parse and rank before taking the store
            prepared = ingest.prepare_run(source, filename=filename)
        try:
            with self.transaction() as cur:
                cid = ingest.collection_id(cur, collection, create=True)
                return ingest.add_run(cur, cid, source, filename=filename, name=name, on_conflict=on_conflict,
                                      prepared=prepared, meta=meta)
        finally:
            prepared.close()      # a large run waits in a temporary file until it is inserted

    def add_qrels(self, collection, source, *, filename=None, assessor=None, judgment_groups=False):
        parsed = read_qrels(source, filename=source_name(source, filename), judgment_groups=judgment_groups)
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection, create=True)
            return ingest.add_qrels(cur, cid, source, filename=filename, assessor=assessor,
                                    judgment_groups=judgment_groups, parsed=parsed)

    def add_topics(self, collection, source, *, filename=None):
        frame = read_topics(source, filename=source_name(source, filename))
        with self.transaction() as cur:
            return ingest.add_topics(cur, ingest.collection_id(cur, collection, create=True), source,
                                     filename=filename, frame=frame)

    def add_documents(self, collection, source, *, filename=None):
        frame = read_documents(source, filename=source_name(source, filename))
        with self.transaction() as cur:
            return ingest.add_documents(cur, ingest.collection_id(cur, collection, create=True), source,
                                        filename=filename, frame=frame)

    def add_dataset(self, collection, did: str, *, docs: bool = False, docs_limit: int | None = None, progress=None):
        """The qrels, queries (and with `docs` the documents) of the ir_datasets dataset `did`, read before the
        store is taken, in one transaction: [(part, IngestReport)] (core.store.datasets)."""
        from core.store.datasets import insert_dataset, prepare_dataset
        with faults.reading(f"irds:{did}", self.path):
            prepared = prepare_dataset(did, docs=docs, docs_limit=docs_limit, progress=progress)
        try:
            with self.transaction() as cur:
                return insert_dataset(cur, ingest.collection_id(cur, collection, create=True), prepared)
        finally:
            prepared.close()

    def add_scores(self, collection, source=None, *, filename=None, name=None, label=None, parsed=None):
        """Per-query scores from another tool (core.store.scores): read and checked before the store is taken,
        stored in one transaction. `label`: where they come from (default: the file's layout, e.g. trec_eval -q).
        `parsed`: scores already read (read_scores) or computed (core.formats.scores_from_frame) instead of a file."""
        parsed = parsed or read_scores(source, filename=source_name(source, filename), name=name)
        with self.transaction() as cur:
            return scores.insert_scores(cur, ingest.collection_id(cur, collection, create=True), parsed,
                                        source=label)

    def add_nuggets(self, collection, nuggets, assignments, *, nuggets_name=None, assignments_name=None):
        """A nuggets file and its assignments file (core.store.nuggets): read, checked against each other and
        scored before the store is taken; the nuggets, the assignments and the four scores of each run stored in
        one transaction."""
        from core.measures import score_nugget_files
        names = source_name(nuggets, nuggets_name), source_name(assignments, assignments_name)
        matched, result = score_nugget_files(nuggets, assignments, nuggets_name=names[0], assignments_name=names[1])
        with self.transaction() as cur:
            return store_nuggets.insert_nuggets(cur, ingest.collection_id(cur, collection, create=True), matched,
                                                result, nuggets_file=names[0], assignments_file=names[1])

    def nugget_topics(self, collection) -> list[str]:
        """The collection's topics that have nuggets."""
        return self._read(collection, store_nuggets.nugget_topics)

    def nugget_matrix(self, collection, qid: str) -> pd.DataFrame:
        """Topic `qid`'s nuggets by the runs: nugget, text, importance, run_id, run, assignment
        (core.store.nuggets)."""
        return self._read(collection, store_nuggets.nugget_matrix, str(qid))

    def imported_scores(self, run_ids, measures=None) -> pd.DataFrame:
        """Imported per-query rows (run_id, qid, measure, value, source) of these runs."""
        with self.cursor() as cur:
            return scores.read_imported(cur, run_ids, measures)

    def imported_measures(self, collection) -> pd.DataFrame:
        """The collection's imported measures: measure, source, n_runs."""
        return self._read(collection, scores.imported_measures)

    # -- reading ------------------------------------------------------------------------------------
    def runs(self, collection) -> pd.DataFrame:
        return self._query("SELECT run_id, name, tag, filename, n_rows, n_topics, depth, uploaded_at, metadata "
                           "FROM runs WHERE collection_id = ? ORDER BY run_id", [self._cid(collection)])

    def qrels_sets(self, collection) -> pd.DataFrame:
        return self._query("""
            SELECT s.qrels_id, s.assessor, s.filename, s.is_default, count(q.qid) AS n_judgments,
                   count(DISTINCT q.qid) AS n_topics
            FROM qrels_sets s LEFT JOIN qrels q USING (qrels_id) WHERE s.collection_id = ?
            GROUP BY ALL ORDER BY s.qrels_id""", [self._cid(collection)])

    def default_qrels_id(self, collection) -> int | None:
        return self._read(collection, ingest.default_qrels_id)

    def qrels(self, qrels_id: int) -> pd.DataFrame:
        return self._query("SELECT qid, docno, rel FROM qrels WHERE qrels_id = ? ORDER BY qid, docno", [qrels_id])

    def run_rows(self, run_id: int) -> pd.DataFrame:
        return self._query("SELECT qid, docno, score, rank FROM run_rows WHERE run_id = ? ORDER BY qid, rank",
                           [run_id])

    def topics(self, collection) -> pd.DataFrame:
        return self._query("SELECT qid, text FROM topics WHERE collection_id = ? ORDER BY qid",
                           [self._cid(collection)])

    def document_text(self, collection, docnos) -> dict[str, str]:
        df = self._query("SELECT docno, text FROM documents WHERE collection_id = ? AND list_contains(?, docno)",
                         [self._cid(collection), list(docnos)])
        return dict(zip(df["docno"], df["text"]))

    # -- lineage and cost (core/store/lineage.py) ------------------------------------------------------
    def lineage(self, collection) -> pd.DataFrame:
        """Every run of the collection with its lineage and cost, one row per run: `run_id`, `run` (its name),
        `system`, `version` (text, None when not given), `timestamp` (pandas datetime in UTC: the run's own, else
        its upload time), then the cost keys any run carries (`latency_ms`, `index_gb`, `cost_usd`, `energy_kwh` as
        floats, NaN when a run lacks it; `gpu` as text), then the free keys (text), alphabetically. Rows are in
        version order: by system (runs without one last), then timestamp, then the natural order of version
        ('v2' before 'v10'), then run id."""
        return self._read(collection, lineage.read_lineage)

    def run_meta(self, run_id: int) -> dict[str, str]:
        """The run's stored metadata, {key: value} as text."""
        with self.cursor() as cur:
            return lineage.run_meta(cur, run_id)

    def set_run_meta(self, run_id: int, values: dict[str, str | None], *, replace: bool = False) -> None:
        """Set keys of a run's metadata (values checked by core.formats.lineage; '' or None removes a key); with
        `replace`, the run's metadata becomes exactly `values`. One transaction."""
        checked = {check_key(k): (None if v is None else check_value(k, v)) for k, v in values.items()}
        with self.transaction() as cur:
            ingest.run_collection(cur, run_id)
            if replace:      # the Data page's editor saves the whole set
                cur.execute("DELETE FROM run_meta WHERE run_id = ?", [run_id]).fetchall()
            lineage.write_meta(cur, run_id, checked)

    # -- editing ------------------------------------------------------------------------------------
    def rename_run(self, run_id: int, new_name: str) -> None:
        with self.transaction() as cur:
            ingest.rename_run(cur, run_id, new_name)

    def delete_run(self, run_id: int) -> None:
        with self.transaction() as cur:
            ingest.delete_run(cur, run_id)

    def rename_collection(self, collection, new_name: str) -> None:
        with self.transaction() as cur:
            edits.rename_collection(cur, ingest.collection_id(cur, collection), new_name)

    def delete_collection(self, collection) -> dict[str, int]:
        """Remove the collection and all it holds; returns what it held ({'runs': n, 'qrels sets': n, ...})."""
        with self.transaction() as cur:
            return edits.delete_collection(cur, ingest.collection_id(cur, collection))

    def get_note(self, collection, qid: str) -> str:
        df = self._query("SELECT note FROM query_notes WHERE collection_id = ? AND qid = ?",
                         [self._cid(collection), str(qid)])
        return "" if df.empty else df["note"].iat[0]

    def set_note(self, collection, qid: str, text: str) -> None:
        with self.transaction() as cur:
            cid = ingest.collection_id(cur, collection)
            cur.execute("DELETE FROM query_notes WHERE collection_id = ? AND qid = ?", [cid, str(qid)]).fetchall()
            if text.strip():
                cur.execute("INSERT INTO query_notes VALUES (?, ?, ?, now())", [cid, str(qid), text]).fetchall()
