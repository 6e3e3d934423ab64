"""trec_eval's canonical ranking, vectorised: score descending, ties broken by docno descending (byte order).

trec_eval ignores a run file's rank column and sorts every topic's documents itself. Sorting every line by
(topic, score, docno) is the expensive part of evaluation (a string sort of millions of rows), so it is done
in three cheap steps instead:

1. Runs are nearly always written topic by topic, best score first. That is checked in one pass; only when a
   file is in some other order are the rows sorted, by (topic code, score) with numpy (numbers, not strings).
2. In that order a row's rank is its position inside its topic, except inside a run of equal scores.
3. Only the rows inside tied runs (and, with `rows`, only the tied runs that hold a row asked for) are sorted
   by docno, with pyarrow; each gets its tied run's first rank plus its place in that run.

The result equals `row_number() OVER (PARTITION BY qid ORDER BY score DESC, docno DESC)`; the tests check it
against that SQL and against a plain Python sort.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["canonical_ranks", "topic_codes"]


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


def _in_order(codes: np.ndarray, score: np.ndarray) -> bool:
    """True when every topic's rows are contiguous and their scores never increase."""
    same = codes[1:] == codes[:-1]
    blocks = len(codes) - int(np.count_nonzero(same))
    if blocks != int(np.count_nonzero(np.bincount(codes))):
        return False
    return bool(np.all(score[1:][same] <= score[:-1][same]))


def _starts(flags: np.ndarray) -> np.ndarray:
    """For each position, the index of the last position at or before it whose flag is set (flags[0] is set)."""
    return np.maximum.accumulate(np.where(flags, np.arange(len(flags)), 0))


def canonical_ranks(codes: np.ndarray, score: np.ndarray, docno, rows: np.ndarray | None = None) -> np.ndarray:
    """1-based trec_eval ranks within each topic. `codes`: int topic code per row; `score`: float64 per row;
    `docno`: pyarrow string array (or chunked array) per row; docnos must not repeat within a topic.
    With `rows` (indices into the rows), only those rows' ranks are returned (and only their ties sorted);
    otherwise every row's rank, in the rows' own order."""
    n = len(codes)
    want = None if rows is None else np.asarray(rows, dtype=np.int64)
    if n == 0 or (want is not None and len(want) == 0):
        return np.zeros(n if want is None else len(want), dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    if _in_order(codes, score):
        perm, cd, sc, pos = None, codes, score, want
    else:
        perm = np.lexsort((-score, codes))
        cd, sc = codes[perm], score[perm]
        pos = None
        if want is not None:
            inverse = np.empty(n, dtype=np.int64)
            inverse[perm] = np.arange(n)
            pos = inverse[want]
    new_topic = np.empty(n, dtype=bool)
    new_topic[0] = True
    np.not_equal(cd[1:], cd[:-1], out=new_topic[1:])
    new_tie = new_topic.copy()
    new_tie[1:] |= sc[1:] != sc[:-1]
    topic_start, tie_start = _starts(new_topic), _starts(new_tie)   # int64
    if rows is None:
        ranks = tie_start - topic_start + 1
    else:
        ranks = tie_start[pos] - topic_start[pos] + 1
    tie_id = np.cumsum(new_tie) - 1
    tie_size = np.bincount(tie_id)
    if rows is None:
        tied = tie_size[tie_id] > 1
        runs = np.flatnonzero(tie_size > 1)
    else:
        tied = tie_size[tie_id[pos]] > 1
        marked = np.zeros(len(tie_size), dtype=bool)
        marked[tie_id[pos[tied]]] = True
        runs = np.flatnonzero(marked)
    if len(runs) == 0:
        return _unsort(ranks, perm, rows)
    # every row of each tied run that holds a wanted row, sorted by (run, docno descending)
    first = np.flatnonzero(new_tie)[runs]
    sizes = tie_size[runs]
    offsets = np.repeat(np.cumsum(sizes) - sizes, sizes)
    members = np.repeat(first, sizes) + (np.arange(int(sizes.sum())) - offsets)
    original = members if perm is None else perm[members]
    docs = docno.take(pa.array(original))
    order = pc.sort_indices(pa.table({"run": pa.array(np.repeat(runs, sizes)), "docno": docs}),
                            sort_keys=[("run", "ascending"), ("docno", "descending")]).to_numpy()
    place = np.empty(len(members), dtype=np.int64)
    place[order] = np.arange(len(members)) - offsets      # the sort keeps runs in order, so offsets still align
    if rows is None:
        ranks[members] += place                         # members are exactly the tied positions
    else:
        ranks[tied] += place[np.searchsorted(members, pos[tied])]
    return _unsort(ranks, perm, rows)


def _unsort(ranks: np.ndarray, perm: np.ndarray | None, rows) -> np.ndarray:
    """Ranks by sorted position back to the rows' own order (only needed for all rows of a sorted copy)."""
    if rows is not None or perm is None:
        return ranks
    out = np.empty_like(ranks)
    out[perm] = ranks
    return out
def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """values[i] where keys[i] == query[j], for sorted unique `keys` that contain every query."""
    return values[np.searchsorted(keys, query)]
