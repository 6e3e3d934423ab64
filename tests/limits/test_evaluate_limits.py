"""`evaluate` reads run files through the one large-file reader (core.formats.pieces), which applies the text limit
and the line limit on every path: a gzip bomb and a file of one enormous line are refused within the first
megabytes past the limit, in bounded memory, with the words `load` uses. Each command runs in a subprocess whose
address space is capped (resource.setrlimit), and its peak resident memory is measured."""
from __future__ import annotations

import time

import pytest

from tests.cases.limits import bomb, capped_cli

pytestmark = pytest.mark.slow

LINE = b"301 Q0 FBIS3-10082 1 12.5 bomb\n"
QRELS = b"301 0 FBIS3-10082 1\n"


def core(*args):
    """(exit status, stderr without the peak line, seconds, peak RSS in MB) of `python -m core ARGS` under the cap."""
    start = time.monotonic()
    out = capped_cli(*args)
    return out.returncode, out.stderr, time.monotonic() - start, out.peak_mb


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(QRELS)
    return path


def _refused_like_load(tmp_path, qrels, run, message: str):
    status, err, seconds, peak = core("evaluate", qrels, run)
    assert status == 2 and err.rstrip().endswith(f"error: {message}"), err[-2000:]
    assert "Traceback" not in err
    assert peak < 1024, f"peak resident memory {peak} MB"
    status, err, _, _ = core("--store", tmp_path / "s.duckdb", "load", "--collection", "c", "--run", run)
    assert status == 2 and err.rstrip().endswith(f"error: {message}"), err[-2000:]
    return seconds


def test_a_gzip_bomb_is_refused_at_the_text_limit(tmp_path, qrels):
    run = tmp_path / "bomb.run.gz"
    bomb(run, 2, LINE)                                  # 2 GB of valid run lines in a few MB
    assert run.stat().st_size < 30 << 20
    seconds = _refused_like_load(tmp_path, qrels, run, (
        "bomb.run.gz: the file expands to more than the limit of 1024 MB of text. Split it into smaller files, or "
        "raise the limit: set RANKBOARD_MAX_TEXT_MB (now 1024) to a larger number of megabytes, if the machine has "
        "the memory for it."))
    assert seconds < 60                                 # (the target is 10 s on a quiet machine; a test
                                                        # never asserts on speed beyond catching a hang)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_line_of_a_gigabyte_is_refused_after_the_line_limit(tmp_path, qrels, gz):
    run = tmp_path / ("line.run.gz" if gz else "line.run")
    if gz:
        bomb(run, 1, b"y" * 4096)                       # one 1 GB line without a newline
    else:
        with open(run, "wb") as f:                      # a good line, then 900 MB without a newline
            f.write(LINE)
            for _ in range(225):
                f.write(b"y" * (4 << 20))
    line = 1 if gz else 2
    _refused_like_load(tmp_path, qrels, run, (
        f"{run.name}, line {line}: the line is longer than 8 MB (this may not be a run, qrels or topics file, or its "
        "lines are not separated by newlines). Check that this is the right file; if its lines really are this "
        "long, raise RANKBOARD_MAX_LINE_MB (now 8).\n    '" + "y" * 80 + "...'"))
