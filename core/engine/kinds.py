"""The kinds of judgments an evaluation reads: relevance qrels, judgment groups (qrels_jg), preferences (prefs,
qrels_prefs) and subtopics (diversity). Each kind is declared once, in the module that evaluates it
(`register(Kind(...))`, as a measure family is), and `core.engine.evaluate.evaluate_files` dispatches on this
table: the kind's evaluator, the measure families it serves (checked here, once, for every kind) and its default
measures."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.engine.finish import run_names
from core.errors import EvalError
from core.formats import is_empty_file, read_run
from core.measures import EvalOptions, parse_measures

__all__ = ["Kind", "KINDS", "register", "read_runs"]


@dataclass(frozen=True)
class Kind:
    name: str                               # what `evaluate_files(kind=...)` and the command line call it
    evaluate: Callable                      # (qrels path, run paths, measures, options) -> EvalResult
    families: frozenset | None = None       # the measure families it computes (None: any)
    serves: str = ""                        # the refusal of another measure: "<serves>, not <names>.<advice>"
    advice: str = ""
    default: tuple[str, ...] = ("official",)   # the measures without -m
    check_more: Callable | None = None      # a further check of the measures (e.g. ndeval's depth)
    trec: bool = True                       # trec_eval's measures: --compat and its refusals apply

    def measures(self, names, options: EvalOptions) -> list:
        """`names` (names, sets or Measures) parsed under options.compat; a measure the kind does not compute
        is refused, naming it and what the kind does compute."""
        ms = parse_measures(names, compat=options.compat)
        other = [m.name for m in ms if self.families is not None and m.family.name not in self.families]
        if other:
            raise EvalError(f"{self.serves}, not {', '.join(other)}.{self.advice}")
        if self.check_more is not None:
            self.check_more(ms)
        return ms


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


def read_runs(run_paths, options: EvalOptions = EvalOptions()) -> tuple[pd.DataFrame, list[str], list[str]]:
    """(run, qid, docno, score) of run files read whole, each named as evaluate_files names runs (core.engine.finish
    .run_names); the names in order; the readers' warnings. Under -c a blank file is a run that retrieved nothing
    (without -c the reader refuses it). For the kinds whose evaluators take frames (judgment groups, preferences,
    subtopics)."""
    run_paths = [run_paths] if isinstance(run_paths, (str, Path)) else list(run_paths)
    tables, tags, warnings = [], [], []
    for path in run_paths:
        file = Path(str(path)).name
        if options.complete and is_empty_file(path):
            tags.append(None)
            tables.append(pa.table({"qid": pa.array([], pa.string()), "docno": pa.array([], pa.string()),
                                    "score": pa.array([], pa.float64())}))
            continue
        parsed = read_run(path, filename=file)
        tags.append(parsed.tag)
        tables.append(parsed.table if isinstance(parsed.table, pa.Table) else parsed.table.arrow())
        warnings += parsed.warnings
    names = run_names(tags, run_paths)
    frame = pd.concat([pd.DataFrame({"run": name, "qid": pc.cast(t["qid"], pa.string()).to_pandas(),
                                     "docno": pc.cast(t["docno"], pa.string()).to_pandas(),
                                     "score": pc.cast(t["score"], pa.float64()).to_pandas()})
                       for name, t in zip(names, tables)], ignore_index=True)
    return frame, names, warnings
