"""Profile one Rankboard job with py-spy and summarise where the time goes.

    python benchmarks/profile.py evaluate --size 500 [--task eval7]
    python benchmarks/profile.py ingest   --size 500
    python benchmarks/profile.py reeval   --size 500

Runs `py-spy record --format raw` on `benchmarks/tools.py rankboard JOB ...` (a fresh process,
the same job run.py times), then prints the share of samples per source line, inclusive
(the line or anything it calls) and self, for Rankboard's own frames (core/...). A DuckDB
query shows up as the Python line that executes it; see explain.py for the plan of that SQL.
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*):(?P<line>\d+)\)$")


def record(job: str, size: int, task: str, rate: int, work: Path) -> Path:
    d = work / f"t{size}"
    raw = work / f"profile-{job}-{task}-{size}.txt"
    args = ["rankboard", job, "--qrels", str(d / "qrels.txt"), "--run", str(d / "run00.txt"), "--task", task,
            "--out", str(work / "profile-out.json")]
    if job in ("ingest", "reeval", "compare"):
        import run as runner
        runner.WORK = work
        tpl = runner.template_store(d, [] if job == "ingest" else
                                    [d / "run00.txt"] if job == "reeval" else
                                    [d / f"run{r:02d}.txt" for r in range(runner.N_COMPARE_RUNS)],
                                    {"ingest": "qrels-only", "reeval": "one-run", "compare": "ten-runs"}[job])
        dest = work / "profile.duckdb"
        runner.fresh_copy(tpl, dest)()
        args += ["--store", str(dest)]
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    cmd = [spy, "record", "--format", "raw", "--rate", str(rate), "--subprocesses", "-o", str(raw), "--",
           sys.executable, str(HERE / "tools.py"), *args]
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return raw


def summarise(raw: Path, top: int = 25) -> str:
    incl, self_, total = collections.Counter(), collections.Counter(), 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        n = int(n)
        total += n
        frames = stack.split(";")
        seen = set()
        for f in frames:
            key = _key(f)
            if key and key not in seen:
                incl[key] += n
                seen.add(key)
        leaf = next((_key(f) for f in reversed(frames) if _key(f)), None)
        if leaf:
            self_[leaf] += n
    out = [f"{total} samples ({raw.name})", "", "| share (incl.) | self | Rankboard frame |", "|---|---|---|"]
    for key, n in incl.most_common(top):
        out.append(f"| {100 * n / total:5.1f}% | {100 * self_[key] / total:5.1f}% | `{key}` |")
    return "\n".join(out)


def _key(frame: str):
    m = FRAME.match(frame.strip())
    if not m:
        return None
    f = m["file"]
    if f.startswith(str(ROOT) + "/"):
        f = f[len(str(ROOT)) + 1:]
    if not (f.startswith("core/") or f.startswith("benchmarks/tools.py")):
        return None
    return f"{f}:{m['line']} {m['func']}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("job", choices=["evaluate", "ingest", "reeval", "compare"])
    ap.add_argument("--size", type=int, default=500)
    ap.add_argument("--task", default="eval7")
    ap.add_argument("--rate", type=int, default=200)
    ap.add_argument("--work", type=Path, default=HERE / "work")
    args = ap.parse_args(argv)
    raw = record(args.job, args.size, args.task, args.rate, args.work)
    print(summarise(raw))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
