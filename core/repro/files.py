"""`reproduce_files`: reproducibility (or, with other qrels, replicability) of run files. Each run file is parsed
once (core.formats.read_run) and used twice: evaluated by the engine (core.engine.evaluate_parsed, the parsed-run
form of evaluate_files) and ranked for KTU and RBO (core.repro.ordering)."""
from __future__ import annotations

from pathlib import Path

from core.engine import EvalOptions, evaluate_parsed, run_names
from core.errors import EvalError
from core.formats import read_qrels, read_run
from core.measures import parse_measures
from core.repro import ordering
from core.repro.report import Reproduction
from core.repro.reproduce import reproduce

DEFAULT_MEASURES = ["map", "P_10", "ndcg_cut_10"]


def _evaluate(qrels_path, paths: dict[str, str], measures, options, warnings: list[str]):
    """(per-query table, role -> run name, role -> parsed run) of the runs `paths` (role -> file) on one qrels."""
    qrels = read_qrels(qrels_path, filename=Path(str(qrels_path)).name)
    roles = list(paths)
    parsed = [read_run(paths[r], filename=Path(str(paths[r])).name) for r in roles]
    names = run_names([p.tag for p in parsed], [paths[r] for r in roles])
    result = evaluate_parsed(qrels, parsed, names, measures, options)
    warnings += list(qrels.warnings) + [w for p in parsed for w in p.warnings] + list(result.warnings)
    return result.per_query, dict(zip(roles, names)), dict(zip(roles, parsed))


def reproduce_files(qrels, original, reproduced, *, original_baseline=None, reproduced_baseline=None,
                    reproduced_qrels=None, measures=None, options: EvalOptions = EvalOptions(),
                    rbo_p: float = ordering.RBO_P, depth: int = ordering.DEPTH) -> tuple[Reproduction, list[str]]:
    """(the Reproduction, the readers' and the engine's warnings). With `reproduced_qrels` the reproduced runs are
    evaluated on those qrels (replicability: other topics, no KTU, RBO or RMSE)."""
    if depth < 1:
        raise EvalError(f"--depth must be 1 or more, not {depth}.")
    ms = parse_measures(measures or DEFAULT_MEASURES, compat=options.compat)
    names = [m.name for m in ms]
    originals = {"original": original, "original_baseline": original_baseline}
    copies = {"reproduced": reproduced, "reproduced_baseline": reproduced_baseline}
    originals, copies = ({k: v for k, v in d.items() if v is not None} for d in (originals, copies))
    warnings: list[str] = []
    if reproduced_qrels is None:
        table, run, parsed = _evaluate(qrels, {**originals, **copies}, ms, options, warnings)
        rankings = {role: ordering.ranked(p.table, depth) for role, p in parsed.items()}
        result = reproduce(table, table, run, names, rankings=rankings, rbo_p=rbo_p, depth=depth)
    else:
        table_o, run_o, _ = _evaluate(qrels, originals, ms, options, warnings)
        table_r, run_r, _ = _evaluate(reproduced_qrels, copies, ms, options, warnings)
        result = reproduce(table_o, table_r, {**run_o, **run_r}, names, replicability=True, rbo_p=rbo_p,
                           depth=depth)
    return result, warnings


__all__ = ["reproduce_files", "DEFAULT_MEASURES"]
