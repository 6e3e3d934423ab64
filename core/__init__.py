"""Rankboard core: the metrics layer over DuckDB. Never imports Streamlit.

One process-wide setting is made here, before pyarrow is loaded: its allocator (mimalloc) is asked not to back
its memory with transparent huge pages (`MIMALLOC_ALLOW_THP=0`), unless the environment already says otherwise.
Where the kernel's THP `defrag` setting is `madvise` and no huge page is free (as on the machine Rankboard is
benchmarked on), every first touch of a 2 MB region is a compaction plus the zeroing of a whole huge page:
`evaluate` of the 7 measures spent ~10% less CPU without them, and used 50-80 MB less memory
(benchmarks/PROFILE.md). Plain equivalent: mimalloc's default, huge pages allowed; values are the same either way
(tests/engine/test_hugepages.py). It takes effect only if pyarrow is not loaded yet: the command line, the dashboard
(Streamlit loads pyarrow only after app.py has imported core), a script that imports core first."""
import os

os.environ.setdefault("MIMALLOC_ALLOW_THP", "0")

__version__ = "0.1.0"
