"""The fusion reference (docs/fusion.md), generated from the registry so it cannot drift from the code.

    python -m core.fusion.reference > docs/fusion.md

tests/fusion/test_fusion_doc.py fails when docs/fusion.md differs from `markdown()`.
"""
from __future__ import annotations

from core.fusion.registry import METHODS, NORMS, Method

COMMAND = "python -m core.fusion.reference > docs/fusion.md"

SEMANTICS = [
    "Each run is ranked per topic in trec_eval's order (score descending, equal scores by docno descending); a "
    "place p_r(d) is 0-based in that ranking, after normalisation (which keeps it, except min-max-inverted, which "
    "reverses it, and borda, which appends the documents the run did not retrieve).",
    "A normalisation works on one run's ranking of one topic. Then a document a run did not retrieve adds nothing "
    "to a sum and is left out of a count, mean, median, maximum or minimum, as in ranx; Borda gives it the mean "
    "of the points the run left unused.",
    "Every topic any run has is fused. A run that lacks a topic counts as an empty ranking of it (ranx refuses "
    "runs whose topics differ).",
    "The fused run is ranked like any run: score descending, equal scores by docno descending, and cut to `depth` "
    "documents per topic (1000 by default; ranx keeps all).",
    "Weighted methods take one weight per run; without weights every run weighs 1/n (ranx has no default).",
    "posfuse, probfuse, segfuse, slidefuse, bayesfuse and mapfuse learn from judged topics, as ranx's *_train "
    "functions do, from the normalised runs' rankings: `fuse --train QRELS` learns from the topics of QRELS; "
    "`fuse --tune QRELS` learns each fold from the other folds' topics. A hit is a retrieved document of grade "
    ">= 1.",
]

DIFFERENCES = [
    "Equal scores: ranx sorts a ranking with numba's quicksort, so the order of equal scores, and with it the "
    "places the rank-based methods read, is not defined; Rankboard breaks ties by docno descending. The tests "
    "give ranx runs in that order.",
    "After borda, ranx's rankings are in the order of a Python set of docnos, which changes with the hash seed, "
    "so the rank-based methods have no defined answer there; Rankboard ranks by the normalised scores.",
    "condorcet, w_condorcet: when the majorities form a cycle, ranx's result depends on the order its sort visits "
    "the candidates (again a set); Rankboard scores each document 1 + the number of documents it goes before, "
    "which is ranx's score whenever the majorities are a strict order.",
    "Learning methods: ranx ranks a normalised run again before counting its hits, with the same undefined order "
    "of equal scores; bayesfuse reads past the end of its table for a place beyond 1000, where Rankboard counts "
    "the document as not retrieved by that run (log(0.001/0.999)).",
    "--tune's weight grid keeps the vectors whose steps add up to 1; ranx's optimize_fusion checks "
    "`sum(weights) == 1.0` in floating point and drops some, such as (0.1, 0.2, 0.7).",
]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _params(m: Method) -> str:
    parts = [f"`{p.name}={p.default!r}`" if p.default is not None else f"`{p.name}` (no default)"
             for p in m.params]
    if m.weighted:
        parts.append("`weights` (1/n each)")
    return ", ".join(parts)


def _grid(values) -> str:
    values = list(values)
    return ", ".join(map(str, values)) if len(values) <= 10 else f"{values[0]}, {values[1]}, ..., {values[-1]}"


def _method(m: Method) -> list[str]:
    out = [f"### {m.name}", "", m.description, "", f"$$ {m.formula} $$", "",
           f"- aliases: {', '.join(f'`{a}`' for a in m.aliases) or 'none'}",
           f"- default normalisation: `{m.default_norm}`",
           f"- ranx: `ranx.fusion.{m.ranx}`",
           f"- reference: {m.reference}"]
    for p in m.params:
        default = "no default (give it, or tune it)" if p.default is None else f"`{p.default!r}`"
        out.append(f"- `{p.name}` ({p.type.__name__}, {p.low} to {p.high}): {p.help}; default {default}; "
                   f"`--tune` tries {_grid(p.grid)}")
    if m.weighted:
        out.append("- `weights`: one per run; `--tune` tries every vector on a grid of `--step` (0.1) summing to 1")
    if m.train is not None:
        out.append("- learns from judged topics (`--train QRELS`, or `--tune QRELS`)")
    return out + [""]


def markdown() -> str:
    """docs/fusion.md."""
    out = ["# Fusion", "",
           f"Generated from the fusion registry (`core/fusion/`) by `{COMMAND}`; "
           "`tests/fusion/test_fusion_doc.py` fails when this file differs. Do not edit it by hand.", "",
           f"Rankboard fuses runs with {len(METHODS)} methods and {len(NORMS)} normalisations, under ranx 0.3.21's "
           "names and with its formulas, defaults and normalisations (`python -m core fuse`, docs/cli.md). ranx "
           "is the oracle of the tests (tests/fusion/): the same scores to 1e-6, the same order wherever the "
           "scores are not tied, the same AP and nDCG@10.", "",
           "## Where to fuse", "",
           "- Files: `python -m core fuse RUN RUN ... --method NAME` writes the fused run (docs/cli.md).",
           "- Stored runs: `python -m core fuse --collection NAME --stored RUN RUN ... --method NAME` reads them from "
           "the store (core/service/fusion.py); `--tune` and `--train` use the collection's qrels; `--store-as NAME` "
           "stores the fused run in the collection, its provenance (method, normalisation, parameters, weights, "
           "tuning, the parts' names and, when they have any, their lineage versions) in its ir_metadata.",
           "- The dashboard's Fusion page (docs/dashboard.md) fuses stored runs, shows the fused run beside its parts "
           "tested against the best part, with a per-topic chart of where fusion helps and hurts, and saves it to "
           "the collection; the Data page shows a fused run's provenance.", "",
           "## How runs are combined", ""]
    out += [f"- {s}" for s in SEMANTICS]
    out += ["", "## Methods", "", "| method | aliases | parameters | default normalisation | learns | description |",
            "|---|---|---|---|---|---|"]
    out += [f"| [`{m.name}`](#{m.name}) | {', '.join(f'`{a}`' for a in m.aliases)} | {_params(m)} | "
            f"`{m.default_norm}` | {'yes' if m.train else ''} | {_cell(m.description)} |" for m in METHODS]
    out += ["", "s_r(d) is run r's normalised score of document d, p_r(d) its 0-based place, r ∋ d the runs that "
            "retrieved d.", "", "## Normalisations", "", "| normalisation | aliases | formula | description |",
            "|---|---|---|---|"]
    out += [f"| `{n.name}` | {', '.join(f'`{a}`' for a in n.aliases)} | ${_cell(n.formula)}$ | "
            f"{_cell(n.description)} |" for n in NORMS]
    out += ["", "## Where Rankboard differs from ranx, on purpose", ""]
    out += [f"- {d}" for d in DIFFERENCES] + ["", "## Each method", ""]
    for m in METHODS:
        out += _method(m)
    return "\n".join(out).rstrip("\n") + "\n"


__all__ = ["COMMAND", "DIFFERENCES", "markdown"]


if __name__ == "__main__":
    import sys
    import core.fusion  # noqa: F401  (registers the methods)
    sys.stdout.write(markdown())
