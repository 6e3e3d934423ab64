"""The one entry point for evaluating run files, whatever the judgments: `evaluate_files(qrels, runs, measures,
options, kind=...)` looks the kind up in the table of kinds (core.engine.kinds: relevance qrels, qrels_jg, prefs,
qrels_prefs, diversity), checks that it computes the measures asked for, and calls its evaluator.

    from core.engine.evaluate import evaluate_files, EvalOptions
    evaluate_files("qrels.txt", ["run.txt"], ["AP", "nDCG@10"], EvalOptions(rel_level=2)).summary
    evaluate_files("qrels.div.txt", ["run.txt"], kind="diversity").summary      # ndeval's measures

For DataFrames (notebooks, tests), `evaluate_frames`; for stage 1's output, `evaluate_rankings`; for stored runs,
core.service.evaluate.evaluate_stored; on a Dask cluster, core.distributed.evaluate_distributed.
"""
from __future__ import annotations

from core.engine import diversity, jg, relevance  # noqa: F401  (each registers its kind)
from core.engine.kinds import KINDS
from core.engine.prefs import evaluate as prefs  # noqa: F401  (registers prefs and qrels_prefs)
from core.engine.relevance import evaluate_frames
from core.engine.types import EvalResult, Rankings
from core.errors import EvalError
from core.measures import EvalOptions

__all__ = ["evaluate_files", "evaluate_frames", "kind_of", "EvalOptions", "EvalResult", "Rankings", "KINDS"]


def kind_of(name: str):
    """The Kind called `name`, or an error that lists the kinds there are."""
    try:
        return KINDS[name]
    except KeyError:
        raise EvalError(f"Unknown kind of judgments {name!r}. Use one of {', '.join(sorted(KINDS))}.") from None


def evaluate_files(qrels, runs, measures=None, options: EvalOptions = EvalOptions(), *,
                   kind: str = "relevance") -> EvalResult:
    """Evaluate run files (or one) against a judgments file of `kind` (default: relevance qrels). `measures`:
    names, sets or Measures (default: the kind's, e.g. trec_eval's official set). Runs are named by their tag (the
    last line's, as trec_eval's runid), else the file name; a name already taken gets the file name added."""
    k = kind_of(kind)
    return k.evaluate(qrels, runs, k.measures(measures or list(k.default), options), options)
