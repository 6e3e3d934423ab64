"""Stage 1 of stored runs, from the small tables the store keeps at ingest: `run_topics` (documents retrieved
per topic) and `judged_rows` (the judged retrieved documents with their canonical rank); never the run rows."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.db.sql import sql
from core.engine.types import Rankings


def stored_rankings(cur, run_ids, qrels_id, names=None) -> Rankings:
    """`Rankings` of stored runs `run_ids` under qrels set `qrels_id`, on cursor `cur`; run i is named names[i]
    (default: its id as text). Both queries number the rankings the same way (stored_groups.sql), so the judged
    rows come back with their ranking index and nothing is handed back to DuckDB."""
    ids = [int(r) for r in run_ids]
    names = [str(r) for r in ids] if names is None else list(names)
    params = {"runs": ids, "q": int(qrels_id)}
    topics = [r[0] for r in cur.execute("SELECT DISTINCT qid FROM qrels WHERE qrels_id = $q ORDER BY qid",
                                        {"q": params["q"]}).fetchall()]
    levels = cur.execute(sql("stored_levels"), {"q": params["q"]}).fetchdf()
    res = cur.execute(sql("stored_groups"), params).fetchnumpy()
    hit = cur.execute(sql("stored_judged"), params).fetchnumpy()
    run_id = np.asarray(res["run_id"], np.int64)
    order = np.argsort(ids, kind="stable")
    name_of = np.asarray(names, dtype=object)[order][np.searchsorted(np.asarray(ids)[order], run_id)] \
        if len(run_id) else np.zeros(0, dtype=object)
    groups = pd.DataFrame({"run": name_of, "qid": np.asarray(res["qid"], object)})
    return Rankings(groups, np.asarray(res["n"], np.int64), np.asarray(hit["g"], np.int64),
                    np.asarray(hit["rank"], np.int64), np.asarray(hit["rel"], np.int64), levels, names, topics)
