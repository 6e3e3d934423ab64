"""Independent implementations of statistics that several test modules check core against."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import studentized_range
from statsmodels.formula.api import ols

from core.stats import permute


def tukey_oracle(X):
    """Fit x ~ C(run) + C(topic) with statsmodels OLS; p from scipy's studentized range."""
    n, k = X.shape
    df = pd.DataFrame({"value": X.ravel(), "topic": np.repeat(np.arange(n), k).astype(str),
                       "run": np.tile(np.arange(k), n).astype(str)})
    fit = ols("value ~ C(run) + C(topic)", data=df).fit()
    means = df.groupby("run")["value"].mean().reindex([str(j) for j in range(k)]).to_numpy()
    out = np.full((k, k), np.nan)
    for a, b in itertools.combinations(range(k), 2):
        q = abs(means[a] - means[b]) / np.sqrt(fit.mse_resid / n)
        out[a, b] = out[b, a] = studentized_range.sf(q, k, fit.df_resid)
    return out, fit


def naive_permutations(n, k, B, seed):
    """core.stats.permute's draws, written out one resample and one topic at a time: block i of
    permute.block_rows(n, k) resamples takes 64-bit words from PCG64(SeedSequence(seed).spawn(...)[i]),
    each resample ceil(n*k/2) words read as 2 uint32 keys each (low half first); a topic's k keys,
    minus their low index bits, order its runs; a topic whose random parts repeat is drawn again,
    k keys at a time, from the block's child generator."""
    ib = max(1, (k - 1).bit_length())
    assert ib <= 8                                     # 32-bit keys
    size = permute.block_rows(n, k)
    starts = list(range(0, B, size))
    words = (n * k + 1) // 2
    for i, seq in enumerate(np.random.SeedSequence(seed).spawn(len(starts))):
        gen = np.random.Generator(np.random.PCG64(seq))
        retry = None
        for _ in range(min(size, B - starts[i])):
            raw = [int(w) for w in gen.bit_generator.random_raw(words)]
            keys = [h for w in raw for h in (w & 0xFFFFFFFF, w >> 32)][:n * k]
            perms = []
            for t in range(n):
                part = [key >> ib for key in keys[t * k:(t + 1) * k]]
                while len(set(part)) < k:
                    if retry is None:
                        child = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, 0))
                        retry = np.random.Generator(np.random.PCG64(child))
                    again = [int(w) for w in retry.bit_generator.random_raw((k + 1) // 2)]
                    part = [h >> ib for w in again for h in (w & 0xFFFFFFFF, w >> 32)][:k]
                perms.append(sorted(range(k), key=lambda j: part[j]))
            yield perms


def naive_max_statistic(X, B, seed):
    """Carterette's algorithm, one resample and one topic at a time, on core.stats.permute's draws."""
    n, k = X.shape
    means = X.mean(axis=0)
    ranges = []
    for perms in naive_permutations(n, k, B, seed):
        sums = [0.0] * k
        for t in range(n):
            row = X[t][perms[t]]                               # the topic's values, permuted
            for j in range(k):
                sums[j] += row[j]
        ranges.append((max(sums) - min(sums)) / n)
    out = np.full((k, k), np.nan)
    for a, b in itertools.combinations(range(k), 2):
        d = abs(means[a] - means[b])
        hits = sum(1 for r in ranges if r >= d - 1e-12)
        out[a, b] = out[b, a] = (hits + 1) / (B + 1)
    return out
