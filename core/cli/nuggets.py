"""`python -m core nuggets NUGGETS ASSIGNMENTS`: nuggetizer's four scores of RAG answers (core/measures/nuggets.py)
for each run of ASSIGNMENTS, from files. `--format trec` lays them out as trec_eval does, so the output loads back
with `load --scores`; csv and json give the long (run, qid, measure, value) table, at full precision."""
from __future__ import annotations

import json
import sys

from core.measures import NUGGET_SCORES, NuggetResult, score_nugget_files


def add_arguments(p) -> None:
    p.add_argument("nuggets", metavar="NUGGETS", help="nuggetizer's nuggets file (JSON Lines: qid, nuggets)")
    p.add_argument("assignments", metavar="ASSIGNMENTS",
                   help="nuggetizer's assignments file (JSON Lines: qid, run_id, nuggets with their assignment)")
    p.add_argument("-q", dest="per_query", action="store_true", help="also print each topic's scores")
    p.add_argument("--format", choices=("trec", "csv", "json"), default="trec")


def run(args) -> int:
    _, result = score_nugget_files(args.nuggets, args.assignments)
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    out = sys.stdout
    if args.format == "trec":
        out.write(format_trec(result, per_query=args.per_query))
    elif args.format == "csv":
        table = result.per_query if args.per_query else result.summary.assign(qid="all")
        table[["run", "qid", "measure", "value"]].to_csv(out, index=False)
    else:
        payload = {"summary": result.summary.to_dict(orient="records"), "warnings": result.warnings}
        if args.per_query:
            payload["per_query"] = result.per_query.to_dict(orient="records")
        json.dump(payload, out, indent=1)
        out.write("\n")
    return 0


def format_trec(result: NuggetResult, per_query: bool = False) -> str:
    """trec_eval's layout, run after run: per-topic lines (with -q), then runid, num_q and the "all" lines."""
    names = [s.name for s in NUGGET_SCORES]
    lines: list[str] = []
    means = result.summary.set_index(["run", "measure"])["value"]
    for run, rows in result.per_query.groupby("run", sort=False):
        if per_query:
            lines += [f"{m:<22s}\t{q}\t{v:.4f}\n" for m, q, v in zip(rows["measure"], rows["qid"], rows["value"])]
        lines.append(f"{'runid':<22s}\tall\t{run}\n")
        lines.append(f"{'num_q':<22s}\tall\t{len(result.topics)}\n")
        lines += [f"{m:<22s}\tall\t{means[(run, m)]:.4f}\n" for m in names]
    return "".join(lines)
