"""Evaluation: run files, frames or stored rows plus judgments -> per-query values and the summary.

Stage 1 (stage1/: trec_eval's order, then the qrels join, behind one interface of providers) gives `Rankings`;
stage 2 (stage2.py) computes every measure over them; finish.py does the global steps once (run names, missing
topics, warnings, the summary). The kinds of judgments (kinds.py: relevance, qrels_jg, prefs, qrels_prefs,
diversity) are a table that `evaluate_files`, the one entry point for files, dispatches on.
"""
from core.engine.evaluate import KINDS, evaluate_files, kind_of
from core.engine.finish import no_topic, run_names, skipped, summarise, summarise_long
from core.engine.kinds import Kind
from core.engine.relevance import evaluate_frames, evaluate_parsed
from core.engine.stage1 import ArrowRun, RunFile, StoredRuns, Tables, rankings
from core.engine.stage2 import evaluate_rankings
from core.engine.types import EvalResult, Rankings, merge
from core.measures import EvalOptions

__all__ = ["evaluate_files", "evaluate_frames", "evaluate_parsed", "evaluate_rankings", "rankings", "Tables",
           "ArrowRun", "RunFile", "StoredRuns", "EvalOptions", "EvalResult", "Rankings", "merge", "Kind", "KINDS",
           "kind_of", "run_names", "summarise", "summarise_long", "skipped", "no_topic"]
