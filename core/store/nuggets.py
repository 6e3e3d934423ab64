"""RAG nuggets in the store: tables `nuggets` (collection_id, qid, nugget, text, importance) and `nugget_assignments`
(run_id, qid, nugget, assignment), and nuggetizer's four scores stored as imported per-query measures of each run
(core/store/scores.py), source "nuggets".

A collection's nuggets of a topic are the reference of every run scored on it: a later load may add topics, and
may give a topic again only with the same nuggets in the same order (else it is refused, naming the topic). A run
of the assignments file is the collection's run of that name, or a run with scores only (scores.insert_scores adds
it); loading a run again replaces its assignments and its scores. Each function takes a cursor inside the caller's
transaction, so a failed load changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa

from core.db.sqltext import registered, statement
from core.errors import Problem, UploadError
from core.formats import MatchedNuggets, ParsedScores
from core.measures import NUGGET_SOURCE, NuggetResult
from core.store import scores

# the topics of a new nuggets file ({view}) whose nuggets differ from those the collection holds (a topic given in
# both: a nugget of one that is not in the other, at its place)
DIFFERING = """WITH held AS (SELECT qid, nugget, text, importance FROM nuggets WHERE collection_id = ?),
    given AS (SELECT qid, nugget, text, importance FROM {view})
SELECT qid FROM (
    (SELECT * FROM held WHERE qid IN (SELECT qid FROM given) EXCEPT ALL SELECT * FROM given)
    UNION ALL
    (SELECT * FROM given WHERE qid IN (SELECT qid FROM held) EXCEPT ALL SELECT * FROM held))
GROUP BY qid ORDER BY qid"""


@dataclass
class NuggetsReport:
    """What a load stored: the runs (name -> id), the topics added, the topics already there, the lines of the
    assignments file (one per run and topic) and the nugget assignments they hold, warnings."""
    runs: dict[str, int]
    new_topics: list[str]
    kept_topics: list[str]
    n_rows: int
    n_assignments: int
    new_runs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    name: str | None = None           # (what the load command prints: a run's new name; none here)


def insert_nuggets(cur, cid: int, matched: MatchedNuggets, result: NuggetResult, *, nuggets_file: str,
                   assignments_file: str) -> NuggetsReport:
    """Store the nuggets, the assignments and the four scores of every run (inside the caller's transaction)."""
    new_topics, kept = _add_topics(cur, cid, matched.nuggets, nuggets_file)
    parsed = ParsedScores(assignments_file, NUGGET_SOURCE, result.per_query[["run", "qid", "measure", "value"]])
    report = scores.insert_scores(cur, cid, parsed, source=NUGGET_SOURCE)
    a = matched.assignments
    table = pa.table({"run_id": pa.array(a["run_id"].map(report.runs).to_numpy(), pa.int32()),
                      "qid": pa.array(a["qid"], pa.string()), "nugget": pa.array(a["nugget"], pa.int32()),
                      "assignment": pa.array(a["assignment"], pa.string())})
    runs = [int(r) for r in report.runs.values()]
    cur.execute("DELETE FROM nugget_assignments WHERE list_contains(?, run_id)", [runs]).fetchall()
    with registered(cur, table) as view:
        cur.execute(statement("INSERT INTO nugget_assignments SELECT * FROM {view}", view=view)).fetchall()
    return NuggetsReport(report.runs, new_topics, kept, matched.lines, len(a), report.new_runs,
                         list(result.warnings) + report.warnings)


def _add_topics(cur, cid: int, nuggets: pd.DataFrame, file: str) -> tuple[list[str], list[str]]:
    table = pa.table({"qid": pa.array(nuggets["qid"], pa.string()), "nugget": pa.array(nuggets["nugget"], pa.int32()),
                      "text": pa.array(nuggets["text"], pa.string()),
                      "importance": pa.array(nuggets["importance"], pa.string())})
    topics = list(dict.fromkeys(nuggets["qid"]))
    with registered(cur, table) as view:
        differ = [r[0] for r in cur.execute(statement(DIFFERING, view=view), [cid]).fetchall()]
        if differ:
            first = nuggets.drop_duplicates("qid").set_index("qid")["line"]
            raise UploadError([Problem(file, int(first[q]), f"the collection holds other nuggets for topic '{q}'",
                                       "Load the nuggets file the collection's runs were scored with, or load these "
                                       "into another collection") for q in differ[:20]], total=len(differ))
        have = {r[0] for r in cur.execute("SELECT DISTINCT qid FROM nuggets WHERE collection_id = ?", [cid]).fetchall()}
        cur.execute(statement("INSERT INTO nuggets SELECT ?, qid, nugget, text, importance FROM {view} "
                              "WHERE qid NOT IN (SELECT qid FROM nuggets WHERE collection_id = ?)", view=view),
                    [cid, cid]).fetchall()
    return [q for q in topics if q not in have], [q for q in topics if q in have]


def nugget_topics(cur, cid: int) -> list[str]:
    """The topics of a collection that have nuggets, in the order they were loaded."""
    return [r[0] for r in cur.execute("SELECT qid FROM nuggets WHERE collection_id = ? GROUP BY qid "
                                      "ORDER BY min(rowid)", [cid]).fetchall()]


def nugget_matrix(cur, cid: int, qid: str) -> pd.DataFrame:
    """Topic `qid`'s nuggets by the collection's runs that have assignments: one row per nugget and run with
    nugget, text, importance, run_id, run (its name), assignment (None when the run has no assignments for the
    topic); vital nuggets first, then in the nuggets file's order, runs in the order they were added."""
    return cur.execute("""WITH r AS (SELECT DISTINCT a.run_id, runs.name FROM nugget_assignments a
            JOIN runs USING (run_id) WHERE runs.collection_id = ?)
        SELECT n.nugget, n.text, n.importance, r.run_id, r.name AS run, a.assignment
        FROM nuggets n CROSS JOIN r
        LEFT JOIN nugget_assignments a ON a.run_id = r.run_id AND a.qid = n.qid AND a.nugget = n.nugget
        WHERE n.collection_id = ? AND n.qid = ?
        ORDER BY n.importance <> 'vital', n.nugget, r.run_id""", [cid, cid, qid]).df()
