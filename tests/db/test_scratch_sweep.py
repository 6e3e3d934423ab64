"""core/db/scratch.py: the scratch folders are named after their process, so one left behind by a process killed
with -9 is removed by the next."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

from core.db.scratch import sweep
from core.store.store import ROOT


def test_a_killed_process_leaves_a_folder_that_the_next_one_removes(tmp_path):
    code = ("from core.db.scratch import shared_cursor; import tempfile, time, sys; c = shared_cursor(); "
            "c.execute('SELECT 1').fetchall(); print([p for p in __import__('os').listdir(tempfile.gettempdir()) "
            "if p.startswith('rankboard-')][0], flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        name = proc.stdout.readline().strip()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert name.startswith(f"rankboard-{proc.pid}-") and (tmp_path / name).is_dir()
    alive = tmp_path / f"rankboard-{os.getpid()}-mine"          # this process's own
    parent = tmp_path / f"rankboard-{os.getppid()}-parent"      # a live process's
    unrelated = tmp_path / "rankboard-k2j4h5g6"                  # no process named: never touched
    spill = tmp_path / f"rankboard-{proc.pid}-spill-x1y2"      # another of the killed process's folders
    for folder in (alive, parent, unrelated, spill):
        folder.mkdir()
    assert sweep(str(tmp_path)) == 2
    assert not (tmp_path / name).exists() and not spill.exists()
    assert alive.is_dir() and parent.is_dir() and unrelated.is_dir()


def test_the_next_scratch_folder_sweeps_first(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f"rankboard-{gone.stdout.strip()}-abcdefgh"
    dead.mkdir()
    (dead / "duckdb_temp_block").write_bytes(b"x" * 10)
    code = "from core.db.scratch import temp_directory\nwith temp_directory() as t: print(t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=dict(os.environ, TMPDIR=str(tmp_path))).stdout.strip()
    assert not dead.exists() and not os.path.exists(out) and os.path.basename(out).startswith("rankboard-")
