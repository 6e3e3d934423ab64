"""Seeded, exactly uniform permutations of every row of a topics x runs matrix, many resamples at
once: the draws behind the all-pairs randomisation test (core.stats.multisys.permuted_ranges).

How a row's permutation is drawn. Each of the k cells of a topic row gets a random key whose high
bits are random and whose low `ib` bits hold the cell's column index (ib = bits to write k - 1).
Sorting the row's keys orders the columns by their random parts; the low bits of the sorted keys
are the permutation. Keys are uint32 (32 - ib random bits) when k <= 256, else uint64. Two keys of
a row with equal random parts would be ordered by column, not at random, so such a row is
rejected and drawn again (rejection sampling: the permutations that remain are exactly uniform).
With k = 50, 1.8e-5 of the rows are drawn again.

Plain equivalent: `np.argsort(rng.random((B, n, k)), axis=2)` (argsort of uniform float keys) or
numpy's `Generator.permuted` (a Fisher-Yates shuffle per row). Sorting packed integer keys is 2-3x
faster than argsort of floats (numpy sorts integers with SIMD), a uint32 key costs half a 64-bit
draw, and the gather reads a flat index. tests/stats/test_multisys.py checks the result against a naive
loop over the same draws and the uniformity of the permutations; benchmarks/tricks.py times both.

Determinism. Resamples are drawn in blocks of a fixed number of resamples (`block_rows`: a
function of n x k only); block i uses its own generator, the i-th child of SeedSequence(seed), and
a row drawn again takes keys from that child's own child, row by row in order. So the draws depend
on (seed, n, k, number of resamples) only: not on the number of threads that evaluate the blocks,
nor on their order.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

BLOCK_CELLS = 1 << 20    # about this many cells per block (4 MB of uint32 keys: stays in cache)
MAX_BLOCK_ROWS = 64      # resamples per block at most (small matrices)
THREADS = min(2, os.cpu_count() or 1)   # blocks run on this many threads (numpy releases the GIL)


def block_rows(n: int, k: int) -> int:
    """Resamples per block: fixed by the matrix shape, so the draws never depend on threads or memory."""
    return max(1, min(MAX_BLOCK_ROWS, BLOCK_CELLS // max(n * k, 1)))


def layout(k: int) -> tuple[type, int]:
    """(key dtype, number of low index bits) for rows of k cells."""
    ib = max(1, (k - 1).bit_length())
    return (np.uint32 if ib <= 8 else np.uint64), ib


def _raw_keys(gen: np.random.Generator, rows: int, cells: int, dtype) -> np.ndarray:
    """rows x cells random words of dtype; a uint32 row takes ceil(cells / 2) 64-bit draws."""
    if dtype is np.uint64:
        return gen.bit_generator.random_raw((rows, cells))
    words = (cells + 1) // 2
    raw = gen.bit_generator.random_raw((rows, words)).view(np.uint32)
    return raw if 2 * words == cells else np.ascontiguousarray(raw[:, :cells])


def _sorted_keys(raw: np.ndarray, k: int, ib: int) -> np.ndarray:
    """Pack the column index into the low bits of each key and sort every row of k keys."""
    dtype = raw.dtype.type
    keys = raw.reshape(-1, k)
    keys &= dtype(~((1 << ib) - 1) & np.iinfo(dtype).max)
    keys |= np.arange(k, dtype=dtype)
    keys.sort(axis=1)
    return keys


_LOCAL = threading.local()


def _scratch(size: int, dtype) -> np.ndarray:
    """A reused per-thread buffer of at least `size` items (see column_sums on page faults)."""
    buf = getattr(_LOCAL, "buf", None)
    if buf is None or buf.dtype != dtype or buf.size < size:
        buf = _LOCAL.buf = np.empty(size, dtype)
    return buf[:size]


def _tied_rows(keys: np.ndarray, ib: int) -> np.ndarray:
    """Rows (of the sorted keys, k per row) where two keys have equal random parts."""
    flat = keys.reshape(-1)
    if flat.size < 2:
        return np.empty(0, dtype=np.intp)
    x = np.bitwise_xor(flat[1:], flat[:-1], out=_scratch(flat.size - 1, flat.dtype))   # < 2^ib: equal high bits
    if x.min() >= (1 << ib):
        return np.empty(0, dtype=np.intp)
    k = keys.shape[1]
    pos = np.flatnonzero(x < (1 << ib))
    pos = pos[(pos + 1) % k != 0]                # pairs that straddle two rows do not count
    return np.unique(pos // k)


def permutations(seq: np.random.SeedSequence, rows: int, n: int, k: int) -> np.ndarray:
    """One block: rows x n x k column indices (uint32 or uint64), each topic row an exactly uniform
    permutation of range(k)."""
    dtype, ib = layout(k)
    gen = np.random.Generator(np.random.PCG64(seq))
    keys = _sorted_keys(_raw_keys(gen, rows, n * k, dtype), k, ib)
    tied = _tied_rows(keys, ib)
    if len(tied):
        retry = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, 0))   # the block's own child
        again = np.random.Generator(np.random.PCG64(retry))
    for r in tied:                               # rare; one row at a time, so the order is fixed
        while True:
            row = _sorted_keys(_raw_keys(again, 1, k, dtype), k, ib)
            if not len(_tied_rows(row, ib)):
                keys[r] = row[0]
                break
    keys &= dtype((1 << ib) - 1)
    return keys.reshape(rows, n, k)


def blocks(n_resamples: int, n: int, k: int, seed: int) -> list[tuple[int, int, np.random.SeedSequence]]:
    """(first resample, rows, seed sequence) of every block."""
    size = block_rows(n, k)
    starts = list(range(0, n_resamples, size))
    seqs = np.random.SeedSequence(seed).spawn(len(starts))
    return [(s, min(size, n_resamples - s), q) for s, q in zip(starts, seqs)]


def column_sums(X: np.ndarray, n_resamples: int, seed: int, threads: int | None = None) -> np.ndarray:
    """n_resamples x k: the column sums of X after permuting every row, in every resample.

    Column j of a resample sums X[t, perm_t[j]] over the topics t: a gather by flat index into X,
    then a product with a vector of ones (= values.sum(axis=1)). Each thread reuses its buffers
    (fresh multi-megabyte arrays cost page faults: half of the time when allocated per block)."""
    X = np.ascontiguousarray(X, dtype=float)
    n, k = X.shape
    out = np.empty((n_resamples, k))
    flat = X.reshape(-1)
    offset = np.repeat(np.arange(n, dtype=np.intp) * k, k).reshape(n, k)
    ones = np.ones(n)
    local = threading.local()

    def one(block):
        start, rows, seq = block
        if getattr(local, "rows", None) != rows:
            local.rows, local.idx, local.values = rows, np.empty((rows, n, k), np.intp), np.empty((rows, n, k))
        np.copyto(local.idx, permutations(seq, rows, n, k), casting="safe")
        local.idx += offset                                   # flat indices into X
        np.take(flat, local.idx, out=local.values, mode="clip")      # every index is in range
        np.matmul(ones, local.values, out=out[start:start + rows])   # = values.sum(axis=1)

    todo = blocks(n_resamples, n, k, seed)
    threads = THREADS if threads is None else threads
    if threads <= 1 or len(todo) < 2:
        for b in todo:
            one(b)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, todo))
    return out


__all__ = ["block_rows", "layout", "permutations", "blocks", "column_sums", "THREADS"]
