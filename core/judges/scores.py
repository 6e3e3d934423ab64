"""Every run's scores under the reference, every judge, every "filled" set and the pool-hole bound, in one
stage-2 pass of the engine (part of core/judges/report.py).

Stage 1 (a provider below, or `core.judges.report.stored_stage1`) gives the judged retrieved rows of every run under
every qrels set at once: `(s, run, topic, rank, rel)` with s = 0 for the reference and 1..J for the judges, plus
the documents retrieved per (run, topic). From those rows this module derives, with numpy only,
- the filled sets J+1..2J: judge j's labels fill the reference's holes (documents of the reference's topics
  that the reference did not judge); a retrieved document's place is its (run, topic, rank), so a hole is a
  judge row with no reference row at the same place;
- the upper bound set: every unjudged retrieved document (within the measure's cutoff, the whole ranking when
  it has none) counted relevant at the reference's top grade, so its ideal ranking depends on the run.
All of it becomes one `core.engine.evaluate.Rankings` whose "runs" are integer keys (set, run) and whose "topics" are
integer keys (set, topic), or (run, topic) for the bound, so that each key has its own judged-document counts;
`evaluate_rankings` then scores everything in one call, whatever the number of judges and runs.

Speed: rows below the measure's cutoff cannot change a measure with a cutoff, so stage 1 keeps only ranks <=
cutoff (the plain equivalent is depth=None, every judged row; tests compare the two).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.db.sqltext import ident
from core.engine.stage1 import Tables, rankings
from core.measures import EvalOptions
from core.engine.stage2 import evaluate_rankings
from core.engine.types import Rankings

LEVELS_SQL = "SELECT s, qid, rel, count(*) AS n FROM {q} WHERE rel >= 0 GROUP BY ALL"
TOPICS_SQL = "SELECT DISTINCT s, qid FROM {q}"
# judge labels of documents the reference did not judge, on the reference's topics: the filled sets' extra counts
EXTRA_SQL = ("SELECT j.s, j.qid, j.rel, count(*) AS n FROM {q} j "
             "WHERE j.s > 0 AND j.rel >= 0 AND j.qid IN (SELECT qid FROM {q} WHERE s = 0) "
             "AND NOT EXISTS (SELECT 1 FROM {q} r WHERE r.s = 0 AND r.qid = j.qid AND r.docno = j.docno) GROUP BY ALL")


@dataclass
class Stage1:
    """Judged retrieved rows of every run under every stacked qrels set (ranks <= depth), and run sizes."""
    runs: list[str]                 # run names; a row's `run` indexes this list
    qids: np.ndarray                # the topic axis: every qid of the runs and the qrels (object, sorted)
    num_ret: np.ndarray             # documents retrieved, shape (runs, topics)
    s: np.ndarray                   # the rows: qrels set,
    run: np.ndarray                 #   run,
    topic: np.ndarray               #   topic (index into qids),
    rank: np.ndarray                #   canonical trec_eval rank,
    rel: np.ndarray                 #   grade (any, negative included)


def table_stage1(con, runs_table: str, qrels_table: str, names: list[str], depth: int | None) -> Stage1:
    """Stage 1 of runs held in DuckDB table `runs_table` (run INTEGER index into names, qid, docno, and the
    canonical rank, else score to rank them by) against stacked qrels `qrels_table` (s, qid, docno, rel): stage 1's
    table provider, with the qrels set `s` as the stacked key, ranked once per run and joined once to all sets."""
    rk = rankings(Tables(con, runs_table, qrels_table, key="s"), EvalOptions(max_depth=depth))
    run = rk.groups["run"].to_numpy(np.int64)
    rows = {"s": rk.key, "run": run[rk.g], "qid": rk.groups["qid"].to_numpy(object)[rk.g], "rank": rk.rank,
            "rel": rk.rel}
    return build_stage1(names, run, rk.groups["qid"], rk.num_ret, rk.topics, rows)


def build_stage1(names, size_run, size_qid, size_n, qrels_qids, rows) -> Stage1:
    """A Stage1 from (run, qid, n) sizes and judged rows (s, run, qid, rank, rel) with string qids."""
    size_qid = np.asarray(size_qid, dtype=object)
    qids = np.unique(np.concatenate([size_qid, np.asarray(qrels_qids, dtype=object)]).astype(str)).astype(object)
    num_ret = np.zeros((len(names), len(qids)), np.int64)
    axis = pd.Index(qids)                        # a hash lookup per row, not a string search
    num_ret[np.asarray(size_run, np.int64), axis.get_indexer(size_qid.astype(str))] = np.asarray(size_n)
    topic = axis.get_indexer(np.asarray(rows["qid"], dtype=object))
    return Stage1(list(names), qids, num_ret, np.asarray(rows["s"], np.int64), np.asarray(rows["run"], np.int64),
                  topic.astype(np.int64), np.asarray(rows["rank"], np.int64), np.asarray(rows["rel"], np.int64))


@dataclass
class Scores:
    """values[set, run, topic] (NaN where not evaluated) and means[set, run]; sets: 0 reference, 1..J judges,
    J+1..2J filled, 2J+1 the upper bound (unjudged counted relevant at the reference's top grade)."""
    values: np.ndarray
    means: np.ndarray
    top_grade: int
    holes: np.ndarray | None = None     # [judge, run]: the run's holes (within the cutoff) that judge j + 1 labels


def _counts(con, sql: str, q: str, qids: np.ndarray, sets: int, width: int) -> np.ndarray:
    got = con.execute(sql.format(q=q)).fetchnumpy()
    out = np.zeros((sets, len(qids), width), np.int64)
    if len(got["s"]):
        np.add.at(out, (np.asarray(got["s"], np.int64), np.searchsorted(qids, np.asarray(got["qid"], object).astype(str)),
                        np.asarray(got["rel"], np.int64)), np.asarray(got["n"], np.int64))
    return out


def score_sets(con, qrels_table: str, st: Stage1, n_judges: int, measure, options, depth: int | None) -> Scores:
    """Evaluate `measure` for every run under every set (see `Scores`) with one `evaluate_rankings` call."""
    q, J, R, Q = ident(qrels_table), n_judges, len(st.runs), len(st.qids)
    present = np.zeros((J + 1, Q), bool)
    got = con.execute(TOPICS_SQL.format(q=q)).fetchnumpy()
    present[np.asarray(got["s"], np.int64), np.searchsorted(st.qids, np.asarray(got["qid"], object).astype(str))] = True
    top = int(con.execute("SELECT coalesce(max(rel), 1) FROM " + q + " WHERE s = 0").fetchone()[0])
    top = max(top, int(options.rel_level), 1)
    width = max(top, int(con.execute("SELECT coalesce(max(rel), 0) FROM " + q).fetchone()[0])) + 1
    levels = _counts(con, LEVELS_SQL, q, st.qids, J + 1, width)
    extra = _counts(con, EXTRA_SQL, q, st.qids, J + 1, width)[1:]
    S = 2 * J + 1                                                    # reference, judges, filled
    present = np.vstack([present, np.repeat(present[:1], J, axis=0)])
    levels = np.concatenate([levels, levels[:1] + extra], axis=0)

    # rows of the filled sets: the reference's rows, plus each judge's rows where the reference has none
    s, run, topic, rank, rel = st.s, st.run, st.topic, st.rank, st.rel
    width_rank = int(max(rank.max(initial=0), st.num_ret.max(initial=0))) + 1
    place = (run * Q + topic) * width_rank + rank                    # a retrieved document's place
    ref = s == 0
    holes = (s > 0) & ~np.isin(place, place[ref]) & present[0][topic]
    within = holes & (rank <= depth) if depth is not None else holes
    filled_holes = np.bincount((s[within] - 1) * R + run[within], minlength=J * R).reshape(J, R)
    n_ref = int(ref.sum())
    s_f = np.r_[np.repeat(np.arange(J + 1, S), n_ref), s[holes] + J]
    take = np.r_[np.tile(np.flatnonzero(ref), J), np.flatnonzero(holes)]
    s = np.r_[s, s_f]
    run, topic, rank, rel = (np.r_[x, x[take]] for x in (run, topic, rank, rel))

    # groups: (set, run, topic) with the topic in the set's qrels and retrieved by the run
    ok = present[:, None, :] & (st.num_ret[None, :, :] > 0)
    gs, gr, gq = np.nonzero(ok)
    gid = np.full(ok.shape, -1, np.int64)
    gid[gs, gr, gq] = np.arange(len(gs))
    g = gid[s, run, topic]
    keep = g >= 0
    g, rank, rel = g[keep], rank[keep], rel[keep]

    # the upper bound: every retrieved rank <= depth of the reference's topics, holes at the top grade
    br, bq = np.nonzero(present[0][None, :] & (st.num_ret > 0))
    n_b = np.minimum(st.num_ret[br, bq], depth) if depth is not None else st.num_ret[br, bq]
    b_grp = np.repeat(np.arange(len(br)), n_b)
    b_rank = np.arange(len(b_grp)) - np.repeat(np.cumsum(n_b) - n_b, n_b) + 1
    b_rel = np.full(len(b_grp), top, np.int64)
    b_place = (br[b_grp] * Q + bq[b_grp]) * width_rank + b_rank
    r_place = place[ref]
    order = np.argsort(r_place)
    pos = np.searchsorted(r_place[order], b_place)
    found = (pos < len(order)) & (r_place[order][np.minimum(pos, max(len(order) - 1, 0))] == b_place) \
        if len(order) else np.zeros(len(b_place), bool)
    b_rel[found] = st.rel[ref][order][pos[found]]
    b_levels = levels[0][bq].copy()
    b_levels[:, top] += np.bincount(b_grp[~found], minlength=len(br))

    n_g = len(gs)
    groups = pd.DataFrame({"run": np.r_[gs * R + gr, S * R + br], "qid": np.r_[gs * Q + gq, S * Q + br * Q + bq]})
    level_keys = np.r_[np.arange(S * Q), S * Q + br * Q + bq]
    level_rows = np.vstack([levels.reshape(S * Q, width), b_levels])
    lv = pd.DataFrame({"qid": np.repeat(level_keys, width), "rel": np.tile(np.arange(width), len(level_keys)),
                       "n": level_rows.ravel()})
    lv = lv[lv["n"] > 0]
    rk = Rankings(groups, np.r_[st.num_ret[gr, gq], st.num_ret[br, bq]], np.r_[g, n_g + b_grp],
                  np.r_[rank, b_rank], np.r_[rel, b_rel], lv.reset_index(drop=True), [], [])
    result = evaluate_rankings(rk, [measure], options)
    return _unpack(result, S, R, Q, top, filled_holes)


def _unpack(result, S: int, R: int, Q: int, top: int, holes: np.ndarray) -> Scores:
    pq = result.per_query
    key, qkey = pq["run"].to_numpy(np.int64), pq["qid"].to_numpy(np.int64)
    values = np.full((S + 1, R, Q), np.nan)
    values[key // R, key % R, qkey % Q] = pq["value"].to_numpy(np.float64)
    means = np.full((S + 1, R), np.nan)
    sm = result.summary
    skey = sm["run"].to_numpy(np.int64)
    means[skey // R, skey % R] = sm["value"].to_numpy(np.float64)
    return Scores(values, means, top, holes)
