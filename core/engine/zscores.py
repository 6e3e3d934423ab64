"""trec_eval -Z: per-topic values as z-scores against a reference set of runs (convert_zscores.c).

The z-score file has one line per topic and measure, `qid measure mean stddev`, keyed by trec_eval measure names.
Each per-topic value v becomes (v - mean) / stddev; with stddev 0 it becomes 0 when v equals the mean, else
trec_eval's MISSING_ZSCORE_VALUE (-1000000), as it does for a topic or measure the file lacks. The "all" line then
aggregates the z-scores as usual (sums for the num_* counts, the floored geometric mean for gm_*).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from core.errors import Problem, UploadError
from core.engine.types import EvalResult
from core.engine.finish import summarise_long

MISSING_ZSCORE_VALUE = -1000000.0


def read_zscores(path) -> pd.DataFrame:
    """qid, measure, mean, stddev; an UploadError naming the line for anything else."""
    file = Path(str(path)).name
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UploadError(Problem(file, None, f"cannot read the z-score file ({e})",
                                  "Give a text file with lines 'qid measure mean stddev'")) from None
    rows, problems = [], []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            if len(parts) != 4:
                raise ValueError
            rows.append((parts[0], parts[1], float(parts[2]), float(parts[3])))
        except ValueError:
            problems.append(Problem(file, n, f"a z-score line needs 4 fields (qid measure mean stddev) with numbers "
                                    f"for mean and stddev, found {len(parts)} field(s)",
                                    "Fix the line or remove it", line.strip()))
    if problems:
        raise UploadError(problems)
    if not rows:
        raise UploadError(Problem(file, None, "the z-score file is empty", "Give lines 'qid measure mean stddev'"))
    return pd.DataFrame(rows, columns=["qid", "measure", "mean", "stddev"])


def to_zscores(result: EvalResult, pairs, zscores: pd.DataFrame) -> EvalResult:
    """The result with every numeric per-topic value converted; `pairs` = (trec label, Measure) as printed."""
    label_of = {m.name: label for label, m in pairs}
    pq = result.per_query.copy()
    key = pd.MultiIndex.from_arrays([pq["qid"], pq["measure"].map(label_of)])
    ref = zscores.drop_duplicates(["qid", "measure"], keep="last").set_index(["qid", "measure"])
    mean = ref["mean"].reindex(key).to_numpy()
    std = ref["stddev"].reindex(key).to_numpy()
    v = pq["value"].to_numpy(np.float64)
    z = np.full(len(v), MISSING_ZSCORE_VALUE)
    known = ~np.isnan(mean)
    spread = known & (std != 0)
    z[spread] = (v[spread] - mean[spread]) / std[spread]
    z[known & (std == 0) & (v == mean)] = 0.0
    pq["value"] = z
    ms = [m for m in result.measures if m.family.agg != "text"]
    summary = summarise_long(pq.sort_values(["measure", "run", "qid"], kind="stable"), ms)
    return EvalResult(pq, summary, result.missing_topics, result.warnings, result.text, result.num_q,
                      result.measures, result.runs)
