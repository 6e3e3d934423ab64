"""Independent implementations of statistics that several test modules check core against."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import studentized_range
from statsmodels.formula.api import ols


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
