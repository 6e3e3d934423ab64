"""Stage 1 of stored runs, from the small tables the store keeps at ingest: `run_topics` (documents retrieved
per topic) and `judged_rows` (the judged retrieved documents with their canonical rank); never the run rows."""
from __future__ import annotations

import uuid

import numpy as np
import pandas as pd

from core.db.sql import sql
from core.db.sqltext import ident
from core.engine.types import Rankings


def stored_rankings(cur, run_ids, qrels_id) -> Rankings:
    """`Rankings` of stored runs `run_ids` under qrels set `qrels_id`, on cursor `cur`. Runs are named by
    their id (as strings)."""
    params = {"runs": [int(r) for r in run_ids], "q": int(qrels_id)}
    topics = [r[0] for r in cur.execute("SELECT DISTINCT qid FROM qrels WHERE qrels_id = $q ORDER BY qid",
                                        {"q": params["q"]}).fetchall()]
    levels = cur.execute(sql("stored_levels"), {"q": params["q"]}).fetchdf()
    res = cur.execute(sql("stored_groups"), params).fetchnumpy()
    groups = pd.DataFrame({"run_id": np.asarray(res["run_id"], np.int64), "qid": np.asarray(res["qid"], object),
                           "g": np.arange(len(res["qid"]), dtype=np.int64)})
    name = f"rb_groups_{uuid.uuid4().hex[:8]}"
    cur.register(name, groups)
    try:
        hit = cur.execute(sql("stored_judged", groups=ident(name)), params).fetchnumpy()
    finally:
        cur.unregister(name)
    frame = pd.DataFrame({"run": groups["run_id"].astype(str).astype(object), "qid": groups["qid"]})
    return Rankings(frame, np.asarray(res["n"], np.int64), np.asarray(hit["g"], np.int64),
                    np.asarray(hit["rank"], np.int64), np.asarray(hit["rel"], np.int64), levels,
                    [str(r) for r in params["runs"]], topics)
