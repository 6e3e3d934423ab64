"""`python -m core evaluate QRELS RUN [RUN ...]` (or `--collection NAME [--stored RUN ...]`, with the collection's
imported measures too): trec_eval-compatible evaluation. `--format trec` lays the output out exactly as trec_eval's
(`%-22s\\t%s\\t%.4f`, counts without decimals), so `diff` against trec_eval's output works; csv and json give the
long (run, qid, measure, value) table."""
from __future__ import annotations

import json
import sys

from core.distributed.cluster import add_engine_arguments, dask_kwargs, use_dask
from core.engine.diversity import is_diversity
from core.engine.evaluate import KINDS, EvalOptions, EvalResult, evaluate_files
from core.errors import EvalError
from core.cli import stored
from core.measures import labelled


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel), or irds:ID: the qrels of an ir_datasets "
                                            "dataset (irds:msmarco-passage/trec-dl-2019/judged)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run file(s) in TREC format (gzip is fine)")
    stored.add_arguments(p)
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure or set: nDCG@10, P(rel=2)@10, map, ndcg_cut_10, official, all_trec "
                        "(repeatable; default official)")
    p.add_argument("-q", dest="per_query", action="store_true", help="also print per-topic values")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="average over all qrels topics; topics missing from a run count with nothing retrieved")
    p.add_argument("-l", dest="rel_level", type=int, default=1, metavar="LEVEL",
                   help="relevance level: grades >= LEVEL are relevant (default 1)")
    p.add_argument("-M", dest="max_depth", type=int, default=None, metavar="DEPTH",
                   help="evaluate only the top DEPTH documents of each ranking")
    p.add_argument("-J", dest="judged_only", action="store_true", help="drop unjudged documents before evaluating")
    p.add_argument("-N", dest="num_docs", type=int, default=None, metavar="SIZE",
                   help="number of documents in the collection (utility, AUC)")
    p.add_argument("--compat", type=int, choices=(9, 10), default=9,
                   help="trec_eval version to match: 9 (9.0.8, default) or 10 (10.0 interpolation rounding)")
    p.add_argument("-Z", dest="zscores", metavar="ZFILE", default=None,
                   help="print per-topic values as z-scores against ZFILE (lines: qid measure mean stddev)")
    p.add_argument("-R", dest="rel_format", choices=("qrels", "qrels_jg", "prefs", "qrels_prefs"), default="qrels",
                   help="qrels format: qrels (default), qrels_jg (column 2 is a judgment group; use -m qrels_jg), "
                        "prefs (qid jg jsg docno rel_level) or qrels_prefs (qrels read as preferences); "
                        "use -m all_prefs or -m prefs with the last two")
    p.add_argument("--qrels-kind", choices=("auto", "relevance", "diversity"), default="auto",
                   help="diversity: QRELS is subtopic qrels (qid subtopic docno rel, as ndeval reads) for the "
                        "diversity "
                        "measures (alpha_nDCG@k, ERR_IA@k, NRBP, ...; default: ndeval's set). auto (default): "
                        "diversity when every measure asked for is a diversity measure")
    p.add_argument("--format", choices=("trec", "csv", "json"), default="trec")
    add_engine_arguments(p)


def run(args) -> int:
    options = EvalOptions(rel_level=args.rel_level, complete=args.complete, max_depth=args.max_depth,
                          judged_only=args.judged_only, num_docs=args.num_docs, compat=args.compat)
    kind = args.rel_format if args.rel_format != "qrels" else \
        "diversity" if args.qrels_kind == "diversity" else "relevance"
    names = args.measures or list(KINDS[kind].default)
    imported = stored.imported(args, names) if args.collection is not None else []
    pairs = labelled([n for n in names if n not in imported], compat=args.compat) if len(imported) < len(names) else []
    measures = [m for _, m in pairs]
    if stored.check(args, [f for f in [args.qrels, *args.runs] if f]):
        if kind != "relevance" or use_dask(args) or any(is_diversity(m) for m in measures):
            raise EvalError("-R qrels_jg/prefs/qrels_prefs, diversity measures and --engine dask work on files only: "
                            "evaluate stored runs without them, or give QRELS and RUN files.")
        result = stored.evaluate(args, measures + imported, options)
    elif use_dask(args):
        if kind != "relevance" or any(is_diversity(m) for m in measures):
            raise EvalError(f"--engine dask evaluates relevance qrels only, not {kind}: leave out --engine dask (and "
                            "--scheduler) to evaluate these judgments in this process.")
        from core.distributed.driver import evaluate_distributed
        result = evaluate_distributed(args.qrels, args.runs, measures, options, **dask_kwargs(args))
    else:
        if kind == "relevance" and _diversity(args, pairs):
            kind = "diversity"
        result = evaluate_files(args.qrels, args.runs, measures, options, kind=kind)
    if KINDS[kind].trec and args.compat >= 10 and not args.complete:
        refuse_missing_topics(result, dict(zip(result.runs, args.runs)) if len(result.runs) == len(args.runs) else {})
    if args.zscores:
        from core.engine.zscores import read_zscores, to_zscores
        result = to_zscores(result, pairs, read_zscores(args.zscores))
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    out = sys.stdout
    if args.format == "trec":
        header = any(n.strip() in ("official", "all_trec", "set", "qrels_jg", "all_prefs", "prefs") for n in names)
        out.write(format_trec(result, pairs, per_query=args.per_query, header=header, z=bool(args.zscores),
                              imported=imported))
    elif args.format == "csv":
        table = result.per_query if args.per_query else result.summary.assign(qid="all")
        table[["run", "qid", "measure", "value"]].to_csv(out, index=False)
    else:
        payload = {"summary": result.summary.to_dict(orient="records"),
                   "missing_topics": result.missing_topics, "warnings": result.warnings}
        if args.per_query:
            payload["per_query"] = result.per_query.to_dict(orient="records")
        json.dump(payload, out, indent=1)
        out.write("\n")
    return 0


def refuse_missing_topics(result: EvalResult, files: dict[str, str]) -> None:
    """trec_eval 10.0 goes through the qrels topics and, without -c, stops at the first one a run lacks: `trec_eval:
    result qid '<qid>' not found in qrels`, exit status 4 (9.0.8 skipped such a topic: 10.0's loop over the qrels
    topics has no skip). So --compat 10 refuses such a run too, naming it (its file, from `files`: run -> path) and
    the topics, and says what to do."""
    lacking = {run: sorted(qids) for run, qids in result.missing_topics.items() if qids}
    if not lacking:
        return
    what = "; ".join((f"{files[run]} (run {run})" if run in files else f"run {run}")
                     + (" lacks topic " if len(q) == 1 else f" lacks {len(q)} topics: ") + ", ".join(q[:20])
                     + (f" ...and {len(q) - 20} more" if len(q) > 20 else "") for run, q in lacking.items())
    first = next(iter(lacking.values()))[0]
    raise EvalError(f"qrels topics missing from the run: {what}. trec_eval 10.0 stops at the first one (\"result qid "
                    f"'{first}' not found in qrels\", exit status 4), so --compat 10 refuses the run too. Add -c to "
                    "count those topics as retrieving nothing, or use --compat 9 to skip them as trec_eval 9.0.8 "
                    "does.")


def _diversity(args, pairs) -> bool:
    """Is QRELS subtopic qrels? --qrels-kind says so, or (auto) every measure asked for is a diversity measure."""
    kinds = [is_diversity(m) for _, m in pairs]
    if args.qrels_kind != "auto":
        return args.qrels_kind == "diversity"
    if any(kinds) and not all(kinds):
        div = ", ".join(label for (label, _), d in zip(pairs, kinds) if d)
        other = ", ".join(label for (label, _), d in zip(pairs, kinds) if not d)
        raise EvalError(f"{div} {'needs' if sum(kinds) == 1 else 'need'} subtopic qrels (qid subtopic docno rel) and "
                        f"{other} ordinary qrels: evaluate them in two calls, the diversity measures with "
                        f"--qrels-kind diversity.")
    if all(kinds) and args.rel_format == "qrels":
        print(f"note: reading {args.qrels} as subtopic qrels (qid subtopic docno rel) for the diversity measures",
              file=sys.stderr)
        return True
    return False


def _column(label: str, m, qids, values, z: bool = False) -> list[str]:
    head = f"{label:<22s}\t" if not z or m.family.agg == "text" else f"Z{label:<22s}\t"
    if m.family.agg == "text":
        return [f"{head}{q}\t'{v}'\n" for q, v in zip(qids, values)]
    if m.family.ints and not z:
        return [f"{head}{q}\t{int(round(v))}\n" for q, v in zip(qids, values)]
    return [f"{head}{q}\t{v:.4f}\n" for q, v in zip(qids, values)]


def _per_query_lines(result: EvalResult, pairs, run: str, z: bool = False, imported=()) -> list[str]:
    pq = result.per_query[result.per_query["run"] == run]
    tx = result.text[result.text["run"] == run] if result.text is not None and len(result.text) else None
    values = pq.pivot(index="qid", columns="measure", values="value") if len(pq) else None
    texts = tx.pivot(index="qid", columns="measure", values="text") if tx is not None else None
    qids = sorted(set(values.index if values is not None else []) | set(texts.index if texts is not None else []))
    computed = set(pq.loc[~pq["measure"].isin(list(imported)), "qid"]) | set(texts.index if texts is not None else [])
    columns = []
    for label, m in pairs:
        if m.family.summary_only:
            continue
        table = texts if m.family.agg == "text" else values
        lines = _column(label, m, qids, table[m.name].reindex(qids).to_numpy(), z)
        columns.append([line if q in computed else "" for q, line in zip(qids, lines)])    # not an imported topic
    for name in imported:           # an imported measure: its topics may differ from the computed ones'
        got = values[name].reindex(qids).to_numpy() if values is not None and name in values else [None] * len(qids)
        columns.append([f"{name:<22s}\t{q}\t{v:.4f}\n" if v == v and v is not None else ""
                        for q, v in zip(qids, got)])
    return ["".join(row) for row in zip(*columns)]


def format_trec(result: EvalResult, pairs, per_query: bool = False, header: bool = True, z: bool = False,
                imported=()) -> str:
    """trec_eval's layout, one block per run (in the order given): per-topic lines (-q), then "all".
    `header`: the runid and num_q lines, which trec_eval prints for the official and all_trec sets.
    `z` (-Z): every numeric measure is printed as "Z<name>" with four decimals, num_q too."""
    lines: list[str] = []
    sm = result.summary.set_index(["run", "measure"])["value"]
    for run in result.runs:
        if per_query:
            lines += _per_query_lines(result, pairs, run, z, imported)
        if header:
            lines.append(f"{'runid':<22s}\tall\t{run}\n")
            lines.append(f"Z{'num_q':<22s}\tall\t{float(result.num_q.get(run, 0)):.4f}\n" if z else
                         f"{'num_q':<22s}\tall\t{result.num_q.get(run, 0)}\n")
        for label, m in pairs:
            if m.family.agg != "text":
                lines += _column(label, m, ["all"], [sm[(run, m.name)]], z)
        lines += [f"{name:<22s}\tall\t{sm[(run, name)]:.4f}\n" for name in imported if (run, name) in sm.index]
    return "".join(lines)
