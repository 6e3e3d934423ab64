"""Consensus qrels from several assessors, and storing one as a new qrels set.

Each (qid, docno) is combined over the assessors who judged it (a pair one assessor did not
judge is simply missing for that assessor, not "non-relevant"); `on='common'` keeps only the
pairs every assessor judged. Negative grades (-1 = unjudged) are dropped first.

Methods (all vectorised group-bys over the stacked qrels):
- `agree`    the lowest grade given (intersection): at every threshold L, the document is
             relevant (>= L) only if every assessor who judged it says so. Seed 004, 8/4 b).
- `union`    the highest grade given: relevant at level L if at least one assessor says so.
             Seed 004, 8/4 c).
- `majority` the most frequent grade; a tie between grades goes to the *lower* tied grade
             (conservative: two assessors who disagree give the lower grade, as `agree` does).
- `mean`     the mean grade rounded half up: floor(mean + 0.5), so 0.5 -> 1 and 1.5 -> 2
             (not Python's round-half-to-even, which would turn 0.5 into 0 and 2.5 into 2).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.agreement.qrels import as_qrels_frame
from core.errors import EvalError

METHODS = ("majority", "agree", "union", "mean")


def consensus(qrels_list, method: str = "majority", *, on: str = "union") -> pd.DataFrame:
    """Combine several qrels sets into one: DataFrame qid, docno, rel (int). See module doc."""
    if method not in METHODS:
        raise EvalError(f"Unknown consensus method {method!r}. Use one of {', '.join(METHODS)}.")
    if on not in ("union", "common"):
        raise EvalError(f"on must be 'union' or 'common', not {on!r}.")
    frames = [as_qrels_frame(q) for q in qrels_list]
    if len(frames) < 2:
        raise EvalError("A consensus needs at least two qrels sets.")
    long = pd.concat(frames, ignore_index=True)
    keys = ["qid", "docno"]
    grouped = long.groupby(keys, sort=True)["rel"]
    if method != "majority":
        rel = {"agree": grouped.min, "union": grouped.max, "mean": lambda: np.floor(grouped.mean() + 0.5)}[method]()
    else:
        counts = long.groupby(keys + ["rel"]).size().rename("n").reset_index()
        counts = counts.sort_values(keys + ["n", "rel"], ascending=[True, True, False, True])
        rel = counts.drop_duplicates(keys).set_index(keys)["rel"]
    out = rel.astype("int64").rename("rel").reset_index()
    if on == "common":
        judged = grouped.size().to_numpy()
        out = out[judged == len(frames)]
    return out.sort_values(keys).reset_index(drop=True)


def to_trec_text(qrels: pd.DataFrame) -> bytes:
    """TREC qrels lines `qid 0 docno rel`."""
    lines = qrels["qid"].astype(str) + " 0 " + qrels["docno"].astype(str) + " " + qrels["rel"].astype(str)
    return ("\n".join(lines) + "\n").encode()


