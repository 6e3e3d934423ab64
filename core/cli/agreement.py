"""`python -m core agreement QRELS_A QRELS_B [QRELS_C ...]`: inter-assessor agreement of every pair of files on the
(qid, docno) pairs both judged; with three or more assessors, Fleiss' kappa and Krippendorff's alpha over all of
them. `--groups` reads one qrels_jg file's judgment groups as the assessors."""
from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

from core.agreement.qrels import LEVELS, agreement, kappa_by_threshold, multi_agreement, reading
from core.errors import EvalError
from core.formats.qrels import read_qrels


def add_arguments(parser) -> None:
    parser.add_argument("qrels", nargs="+", metavar="QRELS",
                        help="qrels files, one per assessor (or one qrels_jg file with --groups)")
    parser.add_argument("-l", "--level", type=int, default=None, metavar="LEVEL",
                        help="binary agreement: a grade >= LEVEL counts as relevant (default: raw grades)")
    parser.add_argument("--weights", choices=("none", "linear", "quadratic"), default="none",
                        help="weighted kappa with weights from grade values (default: none)")
    parser.add_argument("--groups", action="store_true",
                        help="split a single qrels_jg file by its judgment-group column")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def load_assessors(paths, groups: bool) -> tuple[list[str], list]:
    """Read the qrels files (or one file's judgment groups): names and tables."""
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        raise EvalError(f"{missing[0]}: no such file. Check the path.")
    if len(paths) < 2 and not groups:
        raise EvalError("Agreement needs at least two assessors: give two or more qrels files, "
                        "or one qrels_jg file with --groups.")
    if groups:
        if len(paths) != 1:
            raise EvalError("--groups takes exactly one qrels_jg file.")
        by_group = read_qrels(paths[0], filename=Path(paths[0]).name, judgment_groups=True).by_group()
        names, tables = [f"jg{g}" for g in by_group], [t.to_pandas() for t in by_group.values()]
    else:
        names = [Path(p).name for p in paths]
        tables = [read_qrels(p, filename=Path(p).name).table.to_pandas() for p in paths]
    if len(tables) < 2:
        raise EvalError("Agreement needs at least two assessors: give two or more qrels files, "
                        "or one qrels_jg file with --groups.")
    names = [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]
    return names, tables


def run(args) -> int:
    names, tables = load_assessors(args.qrels, args.groups)
    weights = None if args.weights == "none" else args.weights
    pairs = [agreement(tables[i], tables[j], rel_level=args.level, weights=weights, names=(names[i], names[j]))
             for i, j in combinations(range(len(tables)), 2)]
    multi = multi_agreement(tables, names=names, rel_level=args.level) if len(tables) >= 3 else None
    if args.format == "json":
        print(json.dumps(json_pairs(pairs, multi), indent=2))
    else:
        print("\n\n".join(format_pair(p) for p in pairs))
        if multi is not None:
            print("\n" + format_multi(multi))
    return 0


def json_pairs(pairs, multi=None) -> list[dict]:
    """One object per pair: `PairAgreement.to_dict()` (cohen_kappa, pooled_kappa, p_observed, p_expected,
    n_common, only_a, only_b, confusion, ...), with the pair's own Krippendorff's alpha by level under
    `pair_krippendorff_alpha`. With three or more assessors every object also carries the values shared
    by all of them: `fleiss_kappa`, `krippendorff_alpha` (nominal) and `all_assessors` (the full summary).
    So `krippendorff_alpha` always means "over all the files", never one pair."""
    out = []
    for p in pairs:
        obj = p.to_dict()
        obj["pair_krippendorff_alpha"] = obj.pop("krippendorff_alpha")
        if multi is not None:
            summary = multi.to_dict()
            obj.update(fleiss_kappa=summary["fleiss_kappa"], krippendorff_alpha=summary["krippendorff_alpha"],
                       all_assessors=summary)
        out.append(obj)
    return out


def _f(value) -> str:
    return "undefined" if value is None or value != value else f"{value:.4f}"


def format_pair(p) -> str:
    scale = "raw grades" if p.rel_level is None else f"binary, relevant = grade >= {p.rel_level}"
    lines = [f"{p.names[0]} vs {p.names[1]} ({scale})",
             f"  judged by both {p.n_common}, only {p.names[0]} {p.only_a}, only {p.names[1]} {p.only_b}"]
    if p.n_common == 0:
        return "\n".join(lines + ["  no (topic, document) pair was judged by both, so there is nothing to compare: "
                                   "check that the two files judge the same topics"])
    lines += [f"  observed agreement      {_f(p.p_observed)}",
             f"  Cohen's kappa           {_f(p.cohen_kappa)}   chance {_f(p.p_expected)}   {reading(p.cohen_kappa)}",
             f"  Scott's pi (pooled)     {_f(p.pooled_kappa)}   chance {_f(p.p_expected_pooled)}"]
    if p.weights:
        lines.append(f"  weighted kappa ({p.weights}) {_f(p.weighted_kappa)}   (weights from grade values)")
    lines.append("  Krippendorff's alpha    " + "   ".join(f"{lv} {_f(p.alpha[lv])}" for lv in LEVELS))
    by_level = kappa_by_threshold(p)
    if p.rel_level is None and len(by_level) > 1:
        lines.append("  binary Cohen's kappa    " + "   ".join(
            f">={r.rel_level} {_f(r.cohen_kappa)}" for r in by_level.itertuples()))
    lines.append(f"  confusion (rows {p.names[0]}, columns {p.names[1]}):")
    lines += ["    " + row for row in p.confusion.to_string().splitlines()]
    flagged = p.per_topic[p.per_topic["undefined"]]["qid"].tolist() if len(p.per_topic) else []
    if flagged:
        lines.append(f"  topics where kappa is undefined (one shared label): {', '.join(flagged)}")
    return "\n".join(lines)


def format_multi(m) -> str:
    return "\n".join([
        f"All {len(m.names)} assessors ({', '.join(m.names)})",
        f"  Fleiss' kappa           {_f(m.fleiss_kappa)}   on {m.n_items_all} pairs judged by all   "
        f"{reading(m.fleiss_kappa)}",
        "  Krippendorff's alpha    " + "   ".join(f"{lv} {_f(m.alpha[lv])}" for lv in LEVELS)
        + f"   on {m.n_items_pairable} pairs judged by two or more",
    ])
