"""Fusion: combine runs into one, the way ranx does, over whole columns.

    from core.fusion import fuse, METHODS, NORMS
    fused = fuse([run_a, run_b], "rrf")              # frames of (qid, docno, score) -> Fused(table, provenance)

Each method is declared once, in the module of its kind (combine, ranks, condorcet), with its ranx name, aliases,
parameters, default normalisation, formula and reference; each normalisation once, in norms.py. This layer reads
runs as frames and evaluates through core.engine (tune.py): it sits between the engine and the statistics.
"""
# registers the normalisations and the methods, in the order the registry lists them: the ones that combine
# scores, then places, then the ones that learn
from core.fusion import norms, combine, condorcet, ranks  # noqa: F401, I001
from core.fusion import learned  # noqa: F401, E402
from core.fusion.fuse import Fused, fuse
from core.fusion.registry import METHODS, NORMS, Method, method_named, norm_named, weight_grid
from core.fusion.run import fuse_or_tune

__all__ = ["Fused", "fuse", "fuse_or_tune", "METHODS", "NORMS", "Method", "method_named", "norm_named",
           "weight_grid"]
