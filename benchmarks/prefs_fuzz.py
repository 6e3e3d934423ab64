"""Differential check of the preference measures against a trec_eval binary (not part of the test suite, which
has no trec_eval; tests/prefs_oracle.py is its stand-in there). Random prefs files (EC and PA judgment groups,
levels 0/1/1.5/2/3, with --negative also -1), random runs with tied scores, -c and -c -M3:

    python benchmarks/prefs_fuzz.py --trec-eval /path/to/trec_eval --cases 150 [--negative]

Prints each case whose output differs; cases where trec_eval fails (contradicting preferences) must fail in
Rankboard too. Result on 2026-11-24 (trec_eval 10.0 built from source): 150 cases x 2 option sets, no difference
with levels >= 0; with --negative one case (seed 8) differs in prefs_avgjg_Rnonrel, where trec_eval reads past the
end of its lowest-level array (core.measures.DIFFERENCES). After the pair-free counting (core/engine/prefs/levels.py):
60 cases x 2 option sets, no difference.
"""
from __future__ import annotations

import argparse
import difflib
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def generate(seed: int, negative: bool = False) -> tuple[str, str]:
    r = random.Random(seed)
    docs = [f"D{i:02d}" for i in range(r.randint(2, 9))]
    lines, run = [], []
    for q in range(r.randint(1, 4)):
        for jg in range(r.randint(1, 3)):
            for jsg in range(r.choice([1, 1, 2, 3])):
                for d in r.sample(docs, r.randint(1, len(docs))):
                    lines.append(f"q{q} j{jg} s{jsg} {d} {r.choice([0, 0, 1, 2, 3, 1.5] + ([-1] if negative else []))}")
        ret = r.sample(docs + ["X1", "X2"], r.randint(0, len(docs))) or ([docs[0]] if q == 0 else [])
        run += [f"q{q} Q0 {d} {i} {r.choice([1, 2, 3, 2.5])} R" for i, d in enumerate(ret)]
    r.shuffle(lines)
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trec-eval", required=True)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--negative", action="store_true")
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        p, r = Path(tmp) / "prefs", Path(tmp) / "run"
        for seed in range(args.cases):
            prefs, run = generate(seed, args.negative)
            p.write_text(prefs)
            r.write_text(run)
            for opts in (["-c"], ["-c", "-M", "3"]):
                cmd = ["-q", "-m", "all_prefs", "-R", "prefs", *opts, str(p), str(r)]
                te = subprocess.run([args.trec_eval, *cmd], capture_output=True, text=True)
                me = subprocess.run([sys.executable, "-m", "core", "evaluate", *cmd], capture_output=True, text=True,
                                    cwd=ROOT)
                if te.returncode != 0 or te.stderr:
                    if me.returncode == 0:
                        bad += 1
                        print(f"seed {seed} {opts}: trec_eval failed, Rankboard did not: {te.stderr.strip()[:200]}")
                elif te.stdout != me.stdout:
                    bad += 1
                    print(f"seed {seed} {opts}:")
                    print("".join(list(difflib.unified_diff(te.stdout.splitlines(True), me.stdout.splitlines(True)))[:20]))
    print(f"{bad} case(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
