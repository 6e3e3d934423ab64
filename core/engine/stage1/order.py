"""trec_eval's order, defined once: within each ranking, score descending, ties broken by docno descending
(byte order). trec_eval ignores a run file's rank column and sorts every topic's documents itself.

Two forms of the one order, tested equal (tests/engine/test_ranking.py): `rank_sql` for the providers that rank in
DuckDB (tables too large for memory, which DuckDB sorts with spilling), and `canonical_ranks` in numpy for
the rest (Arrow runs, ingest, curves). The numpy form avoids a string sort of every row, the expensive part
of evaluation, in three cheap steps:

1. Runs are nearly always written topic by topic, best score first. That is checked in one pass; only when a
   file is in some other order are the rows sorted, by (topic code, score) with DuckDB (numbers, not strings).
2. In that order a row's rank is its position inside its topic, except inside a run of equal scores.
3. Only the rows inside tied runs (and, with `rows`, only the tied runs that hold a row asked for) are sorted
   by (tied run, docno descending) with pyarrow; each gets its tied run's first rank plus its place in the run.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.db.scratch import shared_cursor

__all__ = ["TIES", "rank_sql", "canonical_ranks", "topic_codes"]

# How equal scores are ordered: by docno descending (trec_eval's measures), or ascending (ndeval's diversity measures,
# and trec_eval's preference measures: form_prefs_counts.c comp_sim_docno). Everything else is the same order.
TIES = {"desc": "descending", "asc": "ascending"}


def rank_sql(partition: str, ties: str = "desc") -> str:
    """The SQL form: the rank of a row among the rows of its `partition` (e.g. "run, qid")."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {sorted(TIES)}, not {ties!r}")
    return f"row_number() OVER (PARTITION BY {partition} ORDER BY score DESC, docno {ties.upper()})"


def topic_codes(qid) -> tuple[np.ndarray, pa.Array]:
    """(codes, distinct qids): codes[i] is the index in the distinct qids of row i's qid (first-seen order)."""
    encoded = pc.dictionary_encode(qid)
    if isinstance(encoded, pa.ChunkedArray):
        if encoded.num_chunks == 0:
            return np.zeros(0, np.int32), pa.array([], pa.string())
        dictionary = encoded.chunk(0).dictionary
        if all(c.dictionary.equals(dictionary) for c in encoded.chunks[1:]):
            codes = pa.chunked_array([c.indices for c in encoded.chunks]).to_numpy()
            return codes.astype(np.int32, copy=False), dictionary
        encoded = pc.dictionary_encode(encoded.combine_chunks())
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False), encoded.dictionary


def _in_order(codes: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(later, tied) when every topic's rows are contiguous and their scores never increase, else None:
    `later` the rows where the 2nd, 3rd, ... topic starts, `tied` (ascending) the rows whose next row is in the
    same topic with the same score."""
    later = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if len(np.unique(codes[np.append(0, later)])) != len(later) + 1:   # a topic in two blocks
        return None
    flag = np.less_equal(score[1:], score[:-1])            # NaN compares False: such a run is sorted instead
    flag[later - 1] = True
    if not flag.all():
        return None
    np.equal(score[1:], score[:-1], out=flag)
    flag[later - 1] = False
    return later, np.flatnonzero(flag)


def by_topic_and_score(codes: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The row order by (topic code ascending, score descending); equal scores in any order. DuckDB's sort, which
    uses both cores, of (row, code, score); plain equivalent: np.lexsort((-score, codes)) (tests/engine/test_ranking.py
    compares them). Scores that are not all finite (a NaN has no place in that order) take pyarrow's table sort."""
    if not np.isfinite(score).all():
        return pc.sort_indices(pa.table({"c": codes, "s": score}),
                               sort_keys=[("c", "ascending"), ("s", "descending")]).to_numpy()
    con = shared_cursor()
    try:
        row = np.arange(len(codes), dtype=np.int32 if len(codes) < 1 << 31 else np.int64)
        con.register("_rb_order", pa.table({"i": row, "c": codes, "s": score}))
        del row
        return con.execute("SELECT i FROM _rb_order ORDER BY c, s DESC").fetchnumpy()["i"].astype(np.int64)
    finally:
        con.close()


def _runs_of(tied: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row, size) of each tied run (run of 2+ rows with one score in one topic), from `tied`: the
    ascending rows whose next row is tied with them."""
    if len(tied) == 0:
        return tied, tied
    jump = np.flatnonzero(tied[1:] != tied[:-1] + 1) + 1
    first = np.empty(len(jump) + 1, dtype=np.int64)
    first[0] = 0
    first[1:] = jump
    sizes = np.empty(len(first), dtype=np.int64)
    sizes[:-1] = np.diff(first)
    sizes[-1] = len(tied) - first[-1]
    sizes += 1
    return tied[first], sizes


def canonical_ranks(codes: np.ndarray, score: np.ndarray, docno, rows: np.ndarray | None = None,
                    ties: str = "desc") -> np.ndarray:
    """1-based trec_eval ranks within each topic. `codes`: int topic code per row; `score`: float64 per row;
    `docno`: pyarrow string array (or chunked array) per row; docnos must not repeat within a topic.
    With `rows` (indices into the rows), only those rows' ranks are returned (and only their ties ordered);
    otherwise every row's rank, in the rows' own order. Memory: a few arrays of one entry per tied row besides
    the result; never a string sort of all rows. `ties`: "desc" (trec_eval's order) or "asc" (TIES)."""
    n = len(codes)
    want = None if rows is None else np.asarray(rows, dtype=np.int64)
    if n == 0 or (want is not None and len(want) == 0):
        return np.zeros(n if want is None else len(want), dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    perm, pos = None, want
    layout = _in_order(codes, score)
    if layout is None:                        # not in trec_eval's order: sort by (topic, score) numerically
        perm = by_topic_and_score(codes, score)
        sc = score[perm]
        cd = codes[perm]
        later = np.flatnonzero(cd[1:] != cd[:-1]) + 1
        del cd
        eq = sc[1:] == sc[:-1]
        eq[later - 1] = False
        tied = np.flatnonzero(eq)
        del eq, sc
        if want is not None:
            inverse = np.empty(n, dtype=np.int64)
            inverse[perm] = np.arange(n)
            pos = inverse[want]
            del inverse
    else:
        later, tied = layout
    tie_starts, tie_sizes = _runs_of(tied)
    del tied
    if want is None:                          # every row (in sorted position order, then back to the rows')
        ranks = np.ones(n, dtype=np.int64)    # place in the topic: a running count, reset at each topic
        if len(later):
            ranks[later] = 1 - np.diff(later, prepend=0)
        np.cumsum(ranks, out=ranks)
        if len(tie_starts):
            members, shift, _ = _tie_shift(tie_starts, tie_sizes, perm, docno, ties)
            ranks[members] += shift
        if perm is not None:
            out = np.empty_like(ranks)
            out[perm] = ranks
            ranks = out
        return ranks
    order = None                              # binary searches with ascending keys stay in cache
    if len(pos) > 1 and not np.all(pos[1:] >= pos[:-1]):
        order = np.argsort(pos, kind="stable")
        pos = pos[order]
    topic_starts = np.append(0, later)
    ranks = pos + 1 - topic_starts[np.searchsorted(topic_starts, pos, side="right") - 1]
    if len(tie_starts):
        run = np.searchsorted(tie_starts, pos, side="right") - 1          # the last tied run starting at or before
        which = np.flatnonzero((run >= 0) & (pos < tie_starts[run] + tie_sizes[run]))
        if len(which):
            run = run[which]
            marked = np.zeros(len(tie_starts), dtype=bool)
            marked[run] = True
            chosen = np.flatnonzero(marked)
            _, shift, first = _tie_shift(tie_starts[chosen], tie_sizes[chosen], perm, docno, ties)
            ranks[which] += shift[first[np.searchsorted(chosen, run)] + (pos[which] - tie_starts[run])]
    if order is not None:
        out = np.empty_like(ranks)
        out[order] = ranks
        ranks = out
    return ranks


def _tie_shift(starts, sizes, perm, docno, ties: str = "desc") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(members, shift, first) for the tied runs (first sorted position, size): `members` the sorted positions
    of all their rows, run after run, `shift` what to add to each one's place in its topic to get its rank
    (its place in its run by docno descending, minus its offset in the run), `first[j]` where run j's rows
    begin in both."""
    first = np.cumsum(sizes) - sizes
    total = int(first[-1] + sizes[-1])
    members = np.repeat(starts - first, sizes)
    members += np.arange(total)
    if isinstance(docno, pa.ChunkedArray):
        docno = docno.combine_chunks() if docno.num_chunks != 1 else docno.chunk(0)   # beats a chunked take
    docs = docno.take(pa.array(members if perm is None else perm[members]))  # in row order: one sweep
    runs = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    order = pc.sort_indices(pa.table({"run": runs, "docno": docs}),
                            sort_keys=[("run", "ascending"), ("docno", TIES[ties])]).to_numpy()
    place = np.empty(total, dtype=np.int64)
    place[order] = np.arange(total)           # the sort keeps runs in order: a row's place minus its offset
    return members, place - np.arange(total), first
