"""The dashboard server's one process-wide numpy setting: no transparent-huge-page advice.

numpy asks Linux to back every array of 4 MB or more with transparent huge pages (madvise). Where the kernel's
THP `defrag` setting is `madvise` (a common default) and no huge page is free, each such allocation then stalls
in a synchronous compaction instead of taking ordinary pages (numpy/numpy#31590). On the machine Rankboard is
benchmarked on (AnonHugePages stays at 0 kB), the cold Leaderboard at 50 runs x 5,000 topics took 3.65 s median
with the advice and 3.24 s without, over 5 alternations (benchmarks/PROFILE.md). So the server turns it off,
unless NUMPY_MADVISE_HUGEPAGE (numpy's own switch, read when numpy is imported) says otherwise.
Plain equivalent: numpy's default, the advice on; values are the same either way (tests/engine/test_hugepages.py).
"""
from __future__ import annotations

import os

import numpy as np


def without_hugepage_advice() -> bool:
    """Turn numpy's huge-page advice off for this process unless NUMPY_MADVISE_HUGEPAGE is set; True when off."""
    toggle = getattr(getattr(np, "_core", None), "multiarray", None)
    if toggle is None or not hasattr(toggle, "_set_madvise_hugepage"):
        return False                # another numpy: leave it as it is
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        toggle._set_madvise_hugepage(False)
    return not toggle._get_madvise_hugepage()
