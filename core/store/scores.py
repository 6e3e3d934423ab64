"""Per-query scores imported from other tools: table `imported_scores` (run_id, qid, measure, value, source).

They are kept apart from the results cache of computed measures (core/store/results.py) and never recomputed.
A run named by a scores file is the collection's run of that name when it has one; otherwise a run with only
imported scores is added (a `runs` row with n_rows 0, no run_topics and no judged rows, so every reader of
rankings sees a run that retrieved nothing). A measure name that Rankboard computes itself (`map`, `P_10`,
`nDCG@10`: anything core.measures.parse_measure accepts) is stored as `imported:<name>`, and the report says so.
Loading the same run and measure again replaces its values. Each function takes a cursor inside the caller's
transaction, so a failed load changes nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from core.errors import RankboardError
from core.formats.scores import ParsedScores
from core.measures import parse_measure
from core.db.sqltext import one, registered, statement

__all__ = ["PREFIX", "ScoresReport", "insert_scores", "imported_name", "read_imported", "imported_measures"]

PREFIX = "imported:"
# the (run, measure) pairs of a new load that already have imported rows, which the load replaces
PAIRS = "(run_id, measure) IN (SELECT DISTINCT run_id, measure FROM {view})"
COUNT_REPLACED = "SELECT count(DISTINCT (run_id, measure)) FROM imported_scores WHERE " + PAIRS
DELETE_REPLACED = "DELETE FROM imported_scores WHERE " + PAIRS


@dataclass
class ScoresReport:
    """What a load stored: run name -> run id, the measures as stored, the renamed measures (file name -> stored
    name), the runs added with scores only, and warnings for the user."""
    runs: dict[str, int]
    measures: list[str]
    n_rows: int
    renamed: dict[str, str] = field(default_factory=dict)
    new_runs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The runs' names, as the command line reports a load."""
        return ", ".join(self.runs)


def imported_name(measure: str) -> str:
    """The stored name of an imported measure: `imported:<name>` when Rankboard computes a measure by that name."""
    try:
        parse_measure(measure)
    except (RankboardError, ValueError):
        return measure
    return PREFIX + measure


def insert_scores(cur, cid: int, parsed: ParsedScores, *, source: str | None = None) -> ScoresReport:
    """Store the scores of `parsed` in collection `cid` (inside the caller's transaction)."""
    source = (source or "").strip() or parsed.fmt
    frame = parsed.frame
    renamed = {m: imported_name(m) for m in parsed.measures}
    renamed = {m: s for m, s in renamed.items() if s != m}
    runs, new_runs = {}, []
    topics = frame.groupby("run", sort=False)["qid"].nunique()       # one pass, not a scan per run
    for name in parsed.runs:                   # one lookup per run of the file (a handful), not per row
        row = one(cur, "SELECT run_id FROM runs WHERE collection_id = ? AND name = ?", [cid, name])
        if row is None:
            header = json.dumps({"scores_only": True, "source": source})
            row = one(cur, "INSERT INTO runs VALUES (nextval('run_ids'), ?, ?, NULL, ?, ?, 0, ?, NULL, now()) "
                           "RETURNING run_id", [cid, name, parsed.file, header, int(topics[name])])
            new_runs.append(name)
        runs[name] = int(row[0])
    codes, uniq = pd.factorize(frame["run"])
    measure = frame["measure"].replace(renamed) if renamed else frame["measure"]
    table = pa.table({"run_id": np.asarray([runs[r] for r in uniq], np.int32)[codes],
                      "qid": pa.array(frame["qid"].astype(str), pa.string()),
                      "measure": pa.array(measure.astype(str), pa.string()),
                      "value": frame["value"].to_numpy(np.float64)})
    with registered(cur, table) as view:
        replaced = one(cur, statement(COUNT_REPLACED, view=view))[0]
        cur.execute(statement(DELETE_REPLACED, view=view)).fetchall()
        cur.execute(statement("INSERT INTO imported_scores SELECT run_id, qid, measure, value, ? FROM {view}",
                              view=view), [source]).fetchall()
    warnings = [f"Rankboard computes a measure named '{m}' itself, so the imported one is stored as '{s}'."
                for m, s in renamed.items()]
    if replaced:
        warnings.append(f"{replaced} (run, measure) pair{'s' if replaced != 1 else ''} already had imported scores; "
                        "the new values replace them.")
    return ScoresReport(runs, [renamed.get(m, m) for m in parsed.measures], len(frame), renamed, new_runs, warnings)


def read_imported(cur, run_ids, measures=None) -> pd.DataFrame:
    """Imported per-query rows (run_id, qid, measure, value, source) of `run_ids` (and of `measures`, if given),
    ordered by measure, run id and qid."""
    params = {"runs": [int(r) for r in run_ids]}
    params["ms"] = None if measures is None else [str(m) for m in measures]
    return cur.execute("SELECT run_id, qid, measure, value, source FROM imported_scores "
                       "WHERE list_contains($runs, run_id) AND ($ms IS NULL OR list_contains($ms, measure)) "
                       "ORDER BY measure, run_id, qid", params).df()


def imported_measures(cur, cid: int) -> pd.DataFrame:
    """The imported measures of a collection: measure, source (their sources, joined), number of runs."""
    return cur.execute("""SELECT s.measure, string_agg(DISTINCT s.source, ', ' ORDER BY s.source) AS source,
        count(DISTINCT s.run_id) AS n_runs FROM imported_scores s JOIN runs r USING (run_id)
        WHERE r.collection_id = ? GROUP BY s.measure ORDER BY s.measure""", [cid]).df()
