"""What the tests of large and hostile inputs share: the command line in a subprocess whose address space is capped
(resource.setrlimit) and whose peak resident memory is reported, a gzip bomb, and lowering the large-file reader's
sizes (core.formats.pieces) so small files take its paths."""
from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys

from tests.cases.reference import ROOT

CAP_GB = 3          # address space of a capped command (imports of numpy, pyarrow, DuckDB take about 1.2 GB)
_CAPPED = """
import re, resource, runpy, sys
if {cap}:
    resource.setrlimit(resource.RLIMIT_AS, ({cap} << 30, {cap} << 30))
sys.argv = ['core'] + sys.argv[1:]
sys.path.insert(0, {root!r})
try:
    runpy.run_module('core', run_name='__main__')
finally:
    # VmHWM, not ru_maxrss: Linux carries the forking parent's (the test worker's) maximum into ru_maxrss across exec
    peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
    print(f"peak RSS: {{peak >> 10}} MB", file=sys.stderr)
"""


def capped_cli(*args, env=None, cap_gb: int = CAP_GB) -> subprocess.CompletedProcess:
    """`python -m core ARGS` under an address-space cap of `cap_gb` GB (0: none), with `env` added to the
    environment. The result's `peak_mb` is the command's peak resident memory (its stderr without that line)."""
    code = _CAPPED.format(cap=cap_gb, root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env={**os.environ, **(env or {})})
    out.peak_mb = int(re.search(r"peak RSS: (\d+) MB", out.stderr).group(1))
    out.stderr = re.sub(r"peak RSS: \d+ MB\n?", "", out.stderr)
    return out


def bomb(path, gigabytes: float, piece: bytes) -> None:
    """A small gzip file (concatenated members) that expands to `gigabytes` of `piece` repeated."""
    block = gzip.compress(piece * ((64 << 20) // len(piece)), 9)
    with open(path, "wb") as f:
        for _ in range(int(gigabytes * 16)):
            f.write(block)


def lower_sizes(monkeypatch, **sizes) -> None:
    """Lower the large-file reader's sizes (core.formats.pieces): PIECES_MIN (bytes, through $RANKBOARD_STREAM_MIN_MB),
    PIECE_BYTES, TOLERANT_BYTES, WHOLE_MAX_BYTES, BIG_QRELS_BYTES."""
    from core.formats import pieces
    for name, value in sizes.items():
        if name == "PIECES_MIN":
            monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", repr(value / (1 << 20)))
        else:
            monkeypatch.setattr(pieces, name, value)
