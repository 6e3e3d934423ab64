"""Turn benchmarks/work/results.json into the console lines and the `peers` section of benchmarks/RESULTS.md."""
from __future__ import annotations

LABEL = {"eval7": "evaluate, 7 measures, from files", "official": "`-m official`, from files",
         "all_trec": "`-m all_trec`, from files", "ingest": "ingest one run into the store",
         "reeval": "re-evaluate a stored run (7 measures, empty cache)",
         "compare": "compare 10 stored runs, 5 measures, 10,000-permutation randomisation test"}
NOTE = {
    "rankboard": "`evaluate_files` (Python API)", "rankboard-cli": "`python -m core evaluate` (output to /dev/null)",
    "pytrec_eval": "parse_qrel/parse_run + RelevanceEvaluator", "ir_measures": "read_trec_* + calc_aggregate",
    "ranx": "Qrels/Run.from_file + evaluate (warm numba cache)", "ranx (cold JIT)": "same, empty numba cache",
    "polars": "floor: read_csv of run + qrels, nothing else",
    "ranx (compare)": "ranx.compare(stat_test='fisher', n_permutations=10000): all 45 pairs of the 10 runs, not 9 against a baseline; timed at 500 topics only",
}


def line(task: str, tool: str, r: dict) -> None:
    if "error" in r:
        print(f"  {task:9s} {tool:16s} ERROR {r['error']}", flush=True)
        return
    extra = "".join(f"  {k}={v:.3f}" for k, v in r.items() if k in ("cached", "evaluate_stored", "compare"))
    print(f"  {task:9s} {tool:16s} wall {r['wall']:7.2f} s  op {r['op']:7.2f} s  peak {r['rss_mb']:7.0f} MB"
          f"  reps {r.get('walls')}{extra}", flush=True)


def _ok(r) -> bool:
    return isinstance(r, dict) and "error" not in r and "wall" in r


def _fmt(x, nd=2):
    return "n/a" if x is None else f"{x:.{nd}f}"


def size_table(s: dict) -> list[str]:
    tasks = s.get("tasks", {})
    e7 = tasks.get("eval7", {})
    rb = e7.get("rankboard")
    floor = e7.get("polars")
    out = [f"### {s['size']:,} topics ({s['run_lines']:,} run lines, {s['qrels_lines']:,} qrels lines)", "",
           f"Measured {s.get('when', '?')}; load average before {_load(s.get('load_before'))}, "
           f"after {_load(s.get('load_after'))}.", "",
           "| task | tool | wall s (median) | op s | peak MB | Rankboard / tool (wall) | tool / floor | reps (wall s) |",
           "|---|---|---|---|---|---|---|---|"]
    for task, res in tasks.items():
        rbt = res.get("rankboard")
        for tool, r in res.items():
            if not _ok(r):
                out.append(f"| {LABEL.get(task, task)} | {tool} | error: {str((r or {}).get('error'))[:80]} | | | | | |")
                continue
            ratio = (rbt["wall"] / r["wall"]) if _ok(rbt) and tool != "rankboard" else None
            fl = (r["wall"] / floor["wall"]) if _ok(floor) else None
            extra = []
            for k in ("cached", "evaluate_stored", "compare"):
                if k in r:
                    extra.append(f"{k} {r[k]:.2f} s")
            if r.get("when") and r["when"] != s.get("when"):
                extra.append(f"measured {r['when']}")
            name = tool + (f" ({'; '.join(extra)})" if extra else "")
            out.append(f"| {LABEL.get(task, task)} | {name} | {r['wall']:.2f} | {r['op']:.2f} | {r['rss_mb']:.0f} | "
                       f"{_fmt(ratio)} | {_fmt(fl)} | {', '.join(f'{w:.2f}' for w in r.get('walls', []))} |")
    out.append("")
    checks = s.get("checks", {})
    if checks:
        out += ["Agreement with pytrec-eval-terrier (per topic and per mean, tolerance 1e-9):", ""]
        for task, per_tool in checks.items():
            if "error" in per_tool:
                out.append(f"- {task}: {per_tool['error']}")
                continue
            for tool, c in per_tool.items():
                if "error" in c:
                    out.append(f"- {task}, {tool}: error {c['error'][:120]}")
                    continue
                verdict = "agrees" if c["per_query_agree"] and c["means_agree"] else "DIFFERS"
                diffs = [f"{m} on {v['topics_differing']}/{v['topics_compared']} topics (max {v['max_abs_diff']:.3g})"
                         for m, v in c["per_measure"].items() if v["topics_differing"]]
                gaps = [f"{m}: {v['only_in_reference']} topics only in pytrec_eval, {v['only_in_tool']} only in {tool}"
                        for m, v in c["per_measure"].items() if v["only_in_reference"] or v["only_in_tool"]]
                means = [f"{m} {v['reference']:.4f} vs {v['tool']:.4f}" for m, v in c["means"].items()
                         if v["abs_diff"] is not None and v["abs_diff"] > 1e-9]
                txt = f"- {task}, {tool}: {verdict}"
                if diffs:
                    txt += "; per-topic differences: " + "; ".join(diffs[:8])
                if gaps:
                    txt += "; " + "; ".join(gaps[:3])
                if means:
                    txt += "; means differ: " + "; ".join(means[:8])
                if c["measures_in_reference_only"]:
                    txt += f"; {len(c['measures_in_reference_only'])} pytrec_eval measures missing " \
                           f"(e.g. {', '.join(c['measures_in_reference_only'][:6])})"
                out.append(txt)
        out.append("")
    return out


def _load(x):
    return "?" if not x else " ".join(f"{v:.2f}" for v in x)


def _get(sizes, size, task, tool):
    r = sizes.get(str(size), {}).get("tasks", {}).get(task, {}).get(tool)
    return r if _ok(r) else None


def targets(allres: dict) -> list[str]:
    sizes = allres.get("sizes", {})
    ref = 5000 if "5000" in sizes else (max(map(int, sizes)) if sizes else None)
    if ref is None:
        return []
    g = lambda task, tool, size=ref: _get(sizes, size, task, tool)  # noqa: E731
    rows = []

    def add(name, value, limit, ok, how):
        mark = "n/a (not measured)" if ok is None else ("**met**" if ok else "**missed**")
        rows.append(f"| {name} | {value} | {limit} | {mark} | {how} |")

    rb, pt, fl = g("eval7", "rankboard"), g("eval7", "pytrec_eval"), g("eval7", "polars")
    v = rb["wall"] / pt["wall"] if rb and pt else None
    add("evaluate (7) vs pytrec_eval", _fmt(v) + "x", "<= 0.4x", None if v is None else v <= 0.4, "wall, median")
    v = rb["wall"] / fl["wall"] if rb and fl else None
    add("evaluate (7) vs polars floor", _fmt(v) + "x", "<= 3x", None if v is None else v <= 3, "wall, median")
    v = (rb["rss_mb"], pt["rss_mb"]) if rb and pt else None
    add("evaluate (7) peak memory", f"{v[0]:.0f} MB vs {v[1]:.0f} MB" if v else "n/a", "<= pytrec_eval's",
        None if v is None else v[0] <= v[1], "max RSS of the process")
    at = g("all_trec", "rankboard")
    v = at["wall"] / pt["wall"] if at and pt else None
    add("`-m all_trec` vs pytrec_eval's 7 measures", _fmt(v) + "x", "<= 1x", None if v is None else v <= 1, "wall")
    ing = g("ingest", "rankboard")
    v = ing["wall"] / fl["wall"] if ing and fl else None
    add("ingest one run vs polars floor", _fmt(v) + "x", "<= 3x", None if v is None else v <= 3,
        f"wall (op alone: {_fmt(ing['op'] / fl['wall'] if ing and fl else None)}x)")
    re_ = g("reeval", "rankboard")
    v = re_["wall"] / pt["wall"] if re_ and pt else None
    add("re-evaluate a stored run vs pytrec_eval from files", _fmt(v) + "x", "<= 0.2x",
        None if v is None else v <= 0.2, f"wall (op alone: {_fmt(re_['op'] / pt['wall'] if re_ and pt else None)}x)")
    big = g("eval7", "rankboard", 50000)
    v = None
    if big and rb:
        per_big = big["wall"] / sizes["50000"]["run_lines"]
        per_ref = rb["wall"] / sizes[str(ref)]["run_lines"]
        v = per_big / per_ref
    add("linear: per-line cost 50,000 vs 5,000 topics", _fmt(v) + "x", "<= 1.5x", None if v is None else v <= 1.5,
        "wall per run line")
    add("50M-line run peak memory", f"{big['rss_mb'] / 1024:.2f} GB" if big else "n/a", "<= 3 GB",
        None if not big else big["rss_mb"] <= 3072, "max RSS")
    lb = allres.get("leaderboard")
    if lb and "cold_s" in lb:
        add(f"leaderboard cold ({lb.get('desc', '')})", f"{lb['cold_s']:.2f} s", "< 3 s", lb["cold_s"] < 3,
            "server time, see leaderboard_timing.py")
        add("leaderboard cached", f"{lb['cached_s']:.3f} s", "< 0.5 s", lb["cached_s"] < 0.5, "server time")
    else:
        add("leaderboard cold / cached", "n/a", "< 3 s / < 0.5 s", None, "run benchmarks/leaderboard_timing.py")
    head = [f"### Targets (at {ref:,} topics unless stated)", "",
            "| target | measured | limit | verdict | how |", "|---|---|---|---|---|"]
    return head + rows + [""]


def render(allres: dict) -> str:
    """The `peers` section (benchmarks/sections.py): machine, targets, notes, commands, tools, one table per size
    and the leaderboard timing. The heading names the newest measurement's date and the commit measured."""
    import sections
    m = allres.get("machine", {})
    whens = [s.get("when", "") for s in allres.get("sizes", {}).values() if s.get("when")]
    out = [sections.heading("Rankboard against its peers, by collection size", max(whens, default="?"),
                            m.get("git", "?")), "",
           "Written by `benchmarks/run.py`. Each figure is the median of the repetitions listed; every repetition is",
           "a fresh process. *wall* = the whole process timed from outside (interpreter start and imports included,",
           "as a user waits at a shell); *op* = the operation alone, timed inside; *peak MB* = that process's max RSS.",
           "Ratios use wall times.", "",
           f"Machine: {m.get('nproc')} CPUs ({m.get('cpu')}), memory {m.get('memory')}, Python {m.get('python')}, "
           f"{m.get('os')}; " + ", ".join(f"{k} {v}" for k, v in m.get("versions", {}).items()) + ".", ""]
    out += targets(allres)
    out += ["### Notes", "",
            "- The machine is shared: the load average of each size says whether other work ran at the same time;",
            "  every tool ran under the same conditions, one process at a time.",
            "- ranx differs from trec_eval on most topics for AP and on many for bpref: it breaks score ties",
            "  differently (every topic has ties) and treats the -1 grades differently. ranx and ir_measures also",
            "  average over every qrels topic (missing topics count 0, trec_eval's -c): their means differ.",
            "- In the Python API Rankboard's `-m all_trec` holds `Rprec_mult_1.00` once, as `Rprec` (the same",
            "  measure; the command line prints both lines, as trec_eval does), and has no `num_q`/`relstring` in",
            "  the per-measure summary; hence \"DIFFERS\" on all_trec. Every value it reports matches pytrec_eval.",
            "- At 50,000 topics only Rankboard and the floor run (see that size).",
            ""]
    out += ["### Commands", ""]
    cmds = {s.get("command") for s in allres.get("sizes", {}).values() if s.get("command")}
    out += ["```", "make bench   # = pip install -r benchmarks/requirements.txt && python benchmarks/run.py",
            *sorted(cmds), (allres.get("leaderboard") or {}).get("command", "python benchmarks/leaderboard_timing.py"),
            "```", ""]
    out += ["### Tools", ""] + [f"- **{k}**: {v}" for k, v in NOTE.items()] + [""]
    for size in sorted(allres.get("sizes", {}), key=int):
        out += size_table(allres["sizes"][size])
        if int(size) > 5000:
            out += ["Peers are not run at this size: they need 8.8 GB (pytrec-eval-terrier), 8.9 GB (ir_measures) and",
                    "16.4 GB (ranx), over run.py's 8 GB per-process cap.", ""]
    out += leaderboard_table(allres)
    return "\n".join(out) + "\n"


def leaderboard_table(allres: dict) -> list[str]:
    """The newest leaderboard timing of each collection and harness (benchmarks/leaderboard_timing.py)."""
    newest = {}
    for x in [allres.get("leaderboard") or {}] + list(allres.get("leaderboard_other", [])):
        if "cold_s" not in x:
            continue
        key = (x["desc"].split(", ")[0], x.get("harness"))
        if key not in newest or str(x.get("when")) > str(newest[key].get("when")):
            newest[key] = x
    if not newest:
        return []
    out = ["### Leaderboard timing", "",
           "| collection | harness | cold s | cached s | core: evaluate_stored s | core: compare s | measured | load |",
           "|---|---|---|---|---|---|---|---|"]
    for (label, harness), x in newest.items():
        cs = (x.get("core_first_sample") or {}).get("cold", {})
        out.append(f"| {label} | {harness} | {x['cold_s']:.2f} | {x['cached_s']:.3f} | "
                   f"{cs.get('evaluate_stored', float('nan')):.2f} | {cs.get('compare', float('nan')):.2f} | "
                   f"{x.get('when')}, git {x.get('git', '?')} | {_load(x.get('load'))} |")
    return out + ["", "cold = first render with an empty `st.cache_data` and an empty results table (modules already",
                  "imported, as on a running server); cached = the next rerun. The core columns split the cold time",
                  "of the same work done without Streamlit (`evaluate_stored` of 10 runs x 5 measures, then",
                  "`compare(test='t')`).", ""]
