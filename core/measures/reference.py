"""The measure reference (docs/measures.md), generated from the registry so it cannot drift from the code.

    python -m core.measures.reference > docs/measures.md

`markdown()` renders every family of `REGISTRY` (name, aliases, trec_eval names and default cutoffs, parameters,
cutoff, formula, reference, source), the nickname sets (`official`, `all_trec`, ...), the ranx spellings and the
deliberate differences from the peers (`DIFFERENCES`). tests/measures/test_measures_doc.py fails when
docs/measures.md differs from it.
"""
from __future__ import annotations

from core.measures.base import REGISTRY, Family
from core.measures.parse import ALL_TREC_9, ALL_TREC_10, OFFICIAL, QRELS_JG, RANX, SET
from core.measures.prefs import ALL_PREFS, PREFS_OFFICIAL
from core.measures.sources import DIFFERENCES, sources

COMMAND = "python -m core.measures.reference > docs/measures.md"
CUTOFF = {"none": "no", "optional": "optional", "required": "required"}
AGG = {"mean": "mean over topics", "sum": "sum over topics", "gm": "geometric mean over topics (floored at 1e-5)",
       "text": "per topic only (text)"}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(items) -> str:
    return ", ".join(f"`{i}`" for i in items)


def _example(family: Family) -> str:
    return f"{family.name}@10" if family.cutoff == "required" else family.name


def _params(family: Family) -> str:
    parts = [f"`{p.name}={p.default!r}`" + (" (required)" if p.required else "") for p in family.params]
    if family.rel_param:
        parts.append("`rel=<level>`")
    return ", ".join(parts)


def _trec(family: Family) -> str:
    names = _code(family.trec)
    if family.trec_defaults:
        names += " (cutoffs " + ", ".join(map(str, family.trec_defaults)) + ")"
    return names


def _anchor(name: str) -> str:
    """GitHub's heading anchor for `### name`."""
    return "".join(c for c in name.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")


def _overview() -> list[str]:
    out = ["| measure | source | description | trec_eval names | aliases | cutoff | parameters |",
           "|---|---|---|---|---|---|---|"]
    for f in REGISTRY:
        out.append(f"| [`{f.name}`](#{_anchor(f.name)}) | {', '.join(sources(f))} | {_cell(f.description)} | "
                   f"{_cell(_trec(f))} | {_code(f.aliases)} | {CUTOFF.get(f.cutoff, f.cutoff)} | {_cell(_params(f))} |")
    return out


def _sets() -> list[str]:
    rows = [("official", "the default of `evaluate`: trec_eval's default measures", OFFICIAL),
            ("all_trec", "trec_eval 9.0.8's `-m all_trec` (the default, `--compat 9`)", ALL_TREC_9),
            ("all_trec", "trec_eval 10.0's `-m all_trec` (`--compat 10`)", ALL_TREC_10),
            ("set", "trec_eval's set measures", SET),
            ("qrels_jg", "judgment-group measures (with `-R qrels_jg`)", QRELS_JG),
            ("all_prefs", "every preference measure (with `-R prefs` or `-R qrels_prefs`)", ALL_PREFS),
            ("prefs", "trec_eval's default preference measures (with `-R prefs` or `-R qrels_prefs`)", PREFS_OFFICIAL)]
    out = ["| set | what | measures |", "|---|---|---|"]
    out += [f"| `{name}` | {what} | {_code(names)} |" for name, what, names in rows]
    return out


def _ranx() -> list[str]:
    out = ["| ranx name | without `@k` | with `@k` |", "|---|---|---|"]
    for name, (bare, cut) in RANX.items():
        out.append(f"| `{name}` | {f'`{bare}`' if bare else 'not accepted'} | "
                   f"{f'`{cut}`' if cut else 'not accepted'} |")
    out.append("| `rbp.95`, `rbp@95` | `RBP(gain='grade',p=0.95)` | |")
    return out


def _family(f: Family) -> list[str]:
    out = [f"### {f.name}", "", f.description, ""]
    if f.formula:
        out += ["```math", f.formula, "```", ""]
    out += [f"- Write it as: {_code([_example(f), *f.aliases])}"]
    if f.trec:
        out.append(f"- trec_eval: {_trec(f)}")
    out.append(f"- Cutoff: {CUTOFF.get(f.cutoff, f.cutoff)}" + (f" ({f.cutoff_type.__name__})" if f.cutoff != "none" else ""))
    if f.rel_param:
        out.append("- `rel=<level>`: relevant at grade >= level, for this measure alone (overrides `-l`)")
    out.append(f"- Aggregated as the {AGG.get(f.agg, f.agg)}" + ("; trec_eval prints it in the summary only"
                                                                  if f.summary_only else ""))
    out.append(f"- Source: {', '.join(sources(f))}")
    out.append(f"- Reference: {f.reference}")
    out.append("")
    if f.params:
        out += ["| parameter | type | default | choices | meaning |", "|---|---|---|---|---|"]
        out += [f"| `{p.name}` | {p.type.__name__} | `{p.default!r}`{' (required)' if p.required else ''} | "
                f"{_cell(', '.join(map(repr, p.choices)))} | {_cell(p.help)} |" for p in f.params]
        out.append("")
    return out


def markdown() -> str:
    """docs/measures.md."""
    out = ["# Measures", "",
           f"Generated from the measure registry (`core/measures/`) by `{COMMAND}`; "
           "`tests/measures/test_measures_doc.py` fails when this file differs. Do not edit it by hand.", "",
           f"Rankboard computes {len(REGISTRY)} measure families. A measure is written the way ir_measures writes it, "
           "`Family(param=value,...)@cutoff` (`nDCG@10`, `P(rel=2)@10`, `nDCG(dcg='exp-log2')@10`, "
           "`SetF(beta=0.25)`); trec_eval's names (`map`, `ndcg_cut_10`, `P_10`, `P.5,10`, `set_F.0.25`) and ranx's "
           "(`ndcg_burges@10`, `hits@5-l2`) are accepted too. Each name gives its tool's number: an ir_measures name "
           "ir_measures' value, a trec_eval name trec_eval's. Where the textbook differs, the textbook form has a "
           "name of its own (`SetFbeta`, `JudgedK@k`, `F@k`). An unknown name is refused with a \"Did you mean "
           "...?\". Every family with a `judged_only` parameter takes ir_measures' `judged_only=True` (trec_eval's "
           "`-J` for that measure alone).", "",
           "Source: the tool whose number the measure gives (trec_eval, ir_measures, ranx), or textbook. "
           "\"ir_measures (ndeval)\" is ndeval through pyndeval, as ir_measures runs it; \"trec_eval (-R prefs)\" "
           "needs preference judgments.", "",
           "## Families", ""]
    out += _overview() + ["", "## Sets", "",
                          "A set name given to `-m` expands to its measures, in trec_eval's order.", ""]
    out += _sets() + ["", "## ranx names", "",
                      "ranx's metric names map onto these measures; a suffix `-lN` sets the relevance level "
                      "(`rel=N`) of measures that take one.", ""]
    out += _ranx() + ["", "## Where a number differs from a peer's, on purpose", ""]
    out += [f"- {d}" for d in DIFFERENCES] + ["", "## Each family", ""]
    for f in REGISTRY:
        out += _family(f)
    return "\n".join(out).rstrip("\n") + "\n"


__all__ = ["COMMAND", "markdown"]


if __name__ == "__main__":
    import sys
    sys.stdout.write(markdown())
