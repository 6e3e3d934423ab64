"""The preference graph of trec_eval's form_prefs_counts.c, built with numpy over whole columns.

Every judged document of a topic gets a docid: the retrieved ones 0..NJR-1 in rank order, then the unretrieved
ones in docno order (byte order). Preference rows are sorted as trec_eval sorts them: by topic, judgment group
(jg), subgroup (jsg), rel_level descending, docid. Within one (jg, jsg) every row prefers every later row of a
strictly lower rel_level: a contiguous range of rows, so the preference pairs ("edges") of all groups come out of
one np.repeat/arange expansion, not a loop over documents.

A judgment group with one subgroup is trec_eval's equivalence-class (EC) case: those pairs are all its
preferences. A group with several subgroups is the preference-array (PA) case: its pairs are closed
transitively (boolean matrix products until nothing changes, as add_transitives does), one group at a time.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.errors import EvalError


@dataclass
class Graph:
    """One run's judged documents and preference rows, in trec_eval's order (rows sorted by group, jsg,
    rel_level descending, docid)."""
    topics: list[str]            # evaluated topics, in code order
    njr: np.ndarray              # per topic: judged documents retrieved (within -M)
    g: np.ndarray                # per row: judgment group (index into group_topic / group_jg)
    rel: np.ndarray              # per row: rel_level
    docid: np.ndarray            # per row
    start: np.ndarray            # per row: first row this row is preferred to (its subgroup's next lower level)
    end: np.ndarray              # per row: end of its subgroup
    last: np.ndarray             # per row: in the lowest rel_level of its group (the EC that Rnonrel trims)
    pos: np.ndarray              # per row: place inside its rel_level (0 = smallest docid)
    group_topic: np.ndarray      # per group: topic code
    group_jg: list[str]
    is_pa: np.ndarray            # per group: several subgroups (preference-array case)

    @property
    def n_groups(self) -> int:
        return len(self.group_topic)


def build(prefs: pa.Table, ranks: pa.Table, topics: list[str]) -> Graph:
    """`prefs`: qid, jg, jsg, docno, rel for the evaluated topics; `ranks`: qid, docno, rank (1-based, the
    run's retrieved documents within -M, trec_eval's prefs order); `topics`: the evaluated topics."""
    names = pa.array(topics, pa.string())
    prefs = prefs.append_column("t", pc.cast(pc.index_in(prefs["qid"], value_set=names), pa.int64()))
    judged = prefs.group_by(["t", "docno"], use_threads=False).aggregate([])
    ranks = pa.table({"t": pc.cast(pc.index_in(ranks["qid"], value_set=names), pa.int64()),
                      "docno": ranks["docno"], "rank": ranks["rank"]})
    judged = judged.join(ranks, ["t", "docno"], join_type="left outer", use_threads=False)
    unret = np.iinfo(np.int64).max                                  # after every rank: not retrieved
    judged = judged.set_column(judged.column_names.index("rank"), "rank", pc.fill_null(judged["rank"], unret))
    judged = judged.take(pc.sort_indices(judged, [("t", "ascending"), ("rank", "ascending"), ("docno", "ascending")]))
    jt = judged["t"].to_numpy()
    first = np.searchsorted(jt, np.arange(len(topics)))
    docid = np.arange(len(jt)) - first[jt]
    njr = np.bincount(jt[judged["rank"].to_numpy() != unret], minlength=len(topics))
    judged = judged.select(["t", "docno"]).append_column("docid", pa.array(docid))
    rows = prefs.join(judged, ["t", "docno"], use_threads=False)
    groups = rows.group_by(["t", "jg"], use_threads=False).aggregate([])
    groups = groups.take(pc.sort_indices(groups, [("t", "ascending"), ("jg", "ascending")]))
    groups = groups.append_column("g", pa.array(np.arange(groups.num_rows)))
    rows = rows.join(groups, ["t", "jg"], use_threads=False)
    rows = rows.take(pc.sort_indices(rows, [("g", "ascending"), ("jsg", "ascending"), ("rel", "descending"),
                                            ("docid", "ascending")]))
    g, rel, did = rows["g"].to_numpy(), rows["rel"].to_numpy(), rows["docid"].to_numpy()
    jsg = rows["jsg"].combine_chunks() if isinstance(rows["jsg"], pa.ChunkedArray) else rows["jsg"]
    n = len(g)
    new_group = np.r_[True, g[1:] != g[:-1]] if n else np.zeros(0, bool)
    new_block = new_group | np.r_[True, pc.not_equal(jsg[1:], jsg[:-1]).to_numpy(zero_copy_only=False)] if n \
        else new_group
    new_run = new_block | np.r_[True, rel[1:] != rel[:-1]] if n else new_group
    block_end = _ends(new_block, n)
    run_starts = np.flatnonzero(new_run)
    run_id = np.cumsum(new_run) - 1
    run_end = np.r_[run_starts[1:], n]
    start = run_end[run_id] if n else np.zeros(0, np.int64)
    group_end = _ends(new_group, n)
    last = run_end[run_id] == group_end if n else np.zeros(0, bool)
    pos = np.arange(n) - (run_starts[run_id] if n else 0)
    blocks_per_group = np.bincount(g[new_block], minlength=groups.num_rows)
    return Graph(list(topics), njr.astype(np.int64), g, rel, did.astype(np.int64), start, block_end, last, pos,
                 groups["t"].to_numpy(), groups["jg"].to_pylist(), blocks_per_group > 1)


def _ends(new: np.ndarray, n: int) -> np.ndarray:
    """Per row: the end (exclusive) of the segment it belongs to, segments starting where `new` is True."""
    if n == 0:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(new)
    return np.r_[starts[1:], n][np.cumsum(new) - 1]


def expand(start: np.ndarray, end: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a_row, b_row): every row of `rows` paired with each row of its range [start, end)."""
    counts = (end[rows] - start[rows]).astype(np.int64)
    a = np.repeat(rows, counts)
    offsets = np.repeat(np.cumsum(counts) - counts, counts)
    b = start[a] + (np.arange(len(a)) - offsets)
    return a, b


def closure(adjacency: np.ndarray) -> np.ndarray:
    """The transitive closure of a boolean preference matrix (diagonal excluded). trec_eval multiplies by the
    matrix once per step (mult_and_check_change); squaring reaches the same fixed point in log2(n) steps."""
    n = len(adjacency)
    m = (adjacency | np.eye(n, dtype=bool)).astype(np.float32)      # float32 products count paths exactly
    while True:
        nxt = ((m @ m) > 0).astype(np.float32)
        if np.array_equal(nxt, m):
            break
        m = nxt
    out = m > 0
    np.fill_diagonal(out, False)
    return out


def pa_group(graph: Graph, g: int, lo: int, hi: int) -> dict:
    """Edges, relevant/non-relevant counts and the Rnonrel recount of preference-array group `g` (rows lo:hi)."""
    rows = np.arange(lo, hi)
    docs, local = np.unique(graph.docid[rows], return_inverse=True)
    a_row, b_row = expand(graph.start, graph.end, rows)
    adj = np.zeros((len(docs), len(docs)), bool)
    adj[local[a_row - lo], local[b_row - lo]] = True
    full = closure(adj)
    topic = graph.topics[graph.group_topic[g]]
    if (full & full.T).any():
        raise EvalError(f"Topic {topic!r}, judgment group {graph.group_jg[g]!r}: the preferences contradict each "
                        f"other (a document is preferred to another, and the other to it, directly or through other "
                        f"documents). trec_eval stops here. Put contradicting subgroups in different judgment groups.")
    rel = _doc_levels(graph, rows, local, len(docs), topic, graph.group_jg[g])
    la, lb = np.nonzero(full)
    a, b = docs[la], docs[lb]
    njr = graph.njr[graph.group_topic[g]]
    ret = docs < njr
    num_rel, num_nonrel = int((rel > 0).sum()), int((rel == 0).sum())
    out = dict(a=a, b=b, num_rel=num_rel, num_nonrel=num_nonrel, num_rel_ret=int(((rel > 0) & ret).sum()),
               num_nonrel_ret=int(((rel == 0) & ret).sum()))
    # m_prefs_avgjg_Rnonrel.c recalculate(): keep the first num_rel non-relevant docids (all docids, then only
    # the retrieved ones for the _ret form) and count the preferences between kept documents
    nonrel = docs[rel == 0]
    cut = nonrel[num_rel] if len(nonrel) > num_rel else np.iinfo(np.int64).max
    kept = ~((rel == 0) & (docs >= cut))
    both = kept[la] & kept[lb]
    out["rc_ful"], out["rc_poss"] = int((both & (a < b) & (a < njr)).sum()), int(both.sum())
    nonrel_ret = nonrel[nonrel < njr]
    cut_ret = nonrel_ret[num_rel] if len(nonrel_ret) > num_rel else njr
    kept = ~((rel == 0) & (docs >= cut_ret))
    both = kept[la] & kept[lb] & (a < njr) & (b < njr)
    out["rc_ful_ret"], out["rc_poss_ret"] = int((both & (a < b)).sum()), int(both.sum())
    return out


def _doc_levels(graph: Graph, rows, local, n: int, topic: str, jg: str) -> np.ndarray:
    """Each document's rel_level in a PA group: the last one in trec_eval's row order (form_jg_pa), refusing a
    document that is non-relevant (0) in one subgroup and relevant (> 0) in the next."""
    rel = graph.rel[rows]
    order = np.lexsort((np.arange(len(rows)), local))              # each document's rows, in row order
    same = local[order][1:] == local[order][:-1]
    r0, r1 = rel[order][:-1], rel[order][1:]
    clash = same & (((r0 > 0) & (r1 == 0)) | ((r0 == 0) & (r1 > 0)))
    if clash.any():
        raise EvalError(f"Topic {topic!r}, judgment group {jg!r}: a document has rel_level 0 (non-relevant) in one "
                        f"subgroup and a positive rel_level in another. trec_eval refuses this. Give it one kind of "
                        f"level within the group.")
    out = np.full(n, -1.0)
    final = order[np.r_[~same, True]]                               # each document's last row
    out[local[final]] = rel[final]
    return out
