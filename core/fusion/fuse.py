"""fuse(): runs -> one fused run, as ranx.fuse does it, over whole columns.

    from core.fusion import fuse
    fused = fuse([bm25, dense], method="rrf")          # frames of (qid, docno, score)
    fused.table                                        # qid, docno, rank, score: trec_eval's order, `depth` deep
    fused.provenance                                   # method, norm, params, weights, runs

Steps: stack the runs (stack.py), normalise each run's ranking of each topic (norms.py), group the rows by fused
document (votes.py), score each with the method (combine.py, ranks.py, condorcet.py), then rank every topic by
score descending, ties by docno descending, and keep the first `depth`. Every topic any run has is fused.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.errors import EvalError
from core.fusion.registry import Method, Norm, method_named, norm_named
from core.fusion.stack import Stack, places, stack
from core.fusion.votes import Votes, votes

__all__ = ["Fused", "fuse", "prepare", "scores", "learn", "ranked", "check_weights"]


@dataclass(frozen=True)
class Fused:
    table: pd.DataFrame                  # qid, docno, rank (1-based), score
    provenance: dict = field(default_factory=dict)


def check_weights(method: Method, weights, n_runs: int) -> np.ndarray:
    """One weight per run: the ones given, else equal weights (1/n each; ranx has no default)."""
    if weights is None:
        return np.full(n_runs, 1.0 / max(n_runs, 1))   # no runs: prepare() says so
    if not method.weighted:
        raise EvalError(f"{method.name} takes no weights. Drop --weights, or choose a weighted method "
                        f"(wsum, wmnz, mixed, w_bordafuse, w_condorcet).")
    w = np.asarray(list(weights), float)
    if len(w) != n_runs:
        raise EvalError(f"{len(w)} weights for {n_runs} runs. Give one weight per run, in the order of the runs.")
    if not np.isfinite(w).all():
        raise EvalError("a weight is not a finite number. Give numbers such as 0.3,0.7.")
    return w


def prepare(runs: list[pd.DataFrame], norm: str | None, method: Method) -> tuple[Stack, Norm]:
    """The runs stacked, ranked and normalised, and the normalisation (`norm` None: the method's default)."""
    if len(runs) < 1:
        raise EvalError("fusion needs at least one run. Give two or more run files.")
    n = norm_named(norm or method.default_norm)
    return n.fn(stack(runs)), n


def scores(v: Votes, method: Method, params: dict, model=None) -> np.ndarray:
    """One fused score per fused document of `v` (`model`: what a learning method learned)."""
    if method.train is not None:
        return np.asarray(method.fn(v, model, **params), float)
    return np.asarray(method.fn(v, **params), float)


def learn(method: Method, s: Stack, qrels: pd.DataFrame | None, params: dict):
    """What a learning method learns from `qrels` (None for the others)."""
    if method.train is None:
        if qrels is not None:
            raise EvalError(f"{method.name} does not learn from judged topics. Drop --train, or choose posfuse, "
                            f"probfuse, segfuse, slidefuse, bayesfuse or mapfuse.")
        return None
    if qrels is None:
        raise EvalError(f"{method.name} learns from judged topics. Give --train QRELS (the topics to learn from), "
                        f"or --tune QRELS to learn on the other folds of topics.")
    return method.train(s, qrels[["qid", "docno", "rel"]], **params)


def ranked(v: Votes, score: np.ndarray, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(rows, rank): the fused documents of `v` in trec_eval's order per topic, the first `depth` of each, and
    their 1-based ranks."""
    order = np.lexsort((-v.doc, -score, v.topic))
    rank = places(v.topic[order]) + 1
    if depth is not None:
        keep = rank <= depth
        order, rank = order[keep], rank[keep]
    return order, rank


def frame(v: Votes, score: np.ndarray, depth: int | None) -> pd.DataFrame:
    order, rank = ranked(v, score, depth)
    s = v.stack
    return pd.DataFrame({"qid": s.topics[v.topic[order]], "docno": s.docs[v.doc[order]], "rank": rank,
                         "score": score[order]})


def fuse(runs: list[pd.DataFrame], method: str = "wsum", *, norm: str | None = None, params: dict | None = None,
         weights=None, depth: int | None = 1000, names: list[str] | None = None,
         qrels: pd.DataFrame | None = None) -> Fused:
    """Fuse `runs` (frames of qid, docno, score) with `method` (a name of the registry), after `norm` (None: the
    method's default, min-max as in ranx.fuse). `params` overrides the method's defaults; `weights` (weighted
    methods) gives one weight per run; `qrels` (qid, docno, rel) are the training topics of a learning method."""
    m = method_named(method)
    values = m.resolve(params or {})
    if depth is not None and int(depth) < 1:
        raise EvalError(f"the depth must be a positive number of documents, not {depth!r}. Give e.g. --depth 1000.")
    w = check_weights(m, weights, len(runs))
    s, n = prepare(runs, norm, m)
    v = votes(s, w)
    table = frame(v, scores(v, m, values, learn(m, s, qrels, values)), depth)
    return Fused(table, provenance(m, n.name, values, w if m.weighted else None, names or []))


def provenance(method: Method, norm: str, params: dict, weights, names: list[str], **more) -> dict:
    """The fused run's provenance: method, norm, params and weights when given, `more` (tuning), the runs."""
    out = {"method": method.name, "norm": norm}
    if params:
        out["params"] = {k: params[k] for k in sorted(params)}
    if weights is not None:
        out["weights"] = [float(x) for x in weights]
    return out | more | {"runs": list(names)}
