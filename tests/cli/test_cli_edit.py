"""The command line's rename, delete and evaluate of stored runs (everything the API does, from a
terminal, on a store the dashboard may be serving): exact messages, exit 2 without a traceback for a name
that does not exist, nothing asked interactively, and a delete or rename while another process loads."""
from __future__ import annotations

import subprocess
import sys

import pytest

from core.service.evaluate import evaluate_stored
from core.store.store import ROOT, Store
from tests.fixtures_store import assert_derived, fresh_store, snapshot

QRELS = b"1 0 d1 1\n1 0 d2 0\n1 0 d4 2\n2 0 d3 1\n2 0 d5 1\n"
RUN = b"1 Q0 d1 1 2.0 sys\n1 Q0 d2 2 1.0 sys\n1 Q0 d4 3 0.5 sys\n2 Q0 d5 1 1.0 sys\n2 Q0 d3 2 0.9 sys\n"


def cli(store, *args, timeout=120):
    return subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def store(tmp_path):
    """A store with collection 'c': qrels by 'nist' and 'other', runs 'a' (id 1) and 'b' (id 2)."""
    with fresh_store(tmp_path, "edit.duckdb") as s:
        s.add_qrels("c", QRELS, filename="q.txt", assessor="nist")
        s.add_qrels("c", QRELS.replace(b"d4 2", b"d4 0"), filename="q2.txt", assessor="other")
        s.add_run("c", RUN, filename="a.run", name="a")
        s.add_run("c", RUN.replace(b"2.0 sys", b"0.1 sys"), filename="b.run", name="b")
        s.set_note("c", "1", "look at d4")
    return tmp_path / "edit.duckdb"


def runs(path) -> list[str]:
    with Store.open(path, load_sample=False) as s:
        return sorted(s.runs("c")["name"]) if "c" in set(s.collections()["name"]) else []


def test_rename_a_run_and_a_collection(store):
    done = cli(store, "rename", "--collection", "c", "--run", "a", "a2")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Renamed run 'a' to 'a2' in collection 'c'.\n", "")
    assert runs(store) == ["a2", "b"]
    by_id = cli(store, "rename", "--collection", "c", "--run", "2", "b2")     # the id `list` prints
    assert by_id.stdout == "Renamed run 'b' to 'b2' in collection 'c'.\n"
    coll = cli(store, "rename", "--collection", "c", "c-2026")
    assert (coll.returncode, coll.stdout) == (0, "Renamed collection 'c' to 'c-2026'.\n")
    with Store.open(store, load_sample=False) as s:
        assert list(s.collections()["name"]) == ["c-2026"]
        assert sorted(s.runs("c-2026")["name"]) == ["a2", "b2"]
        assert s.get_note("c-2026", "1") == "look at d4"


@pytest.mark.parametrize("args, message", [
    (("rename", "--collection", "c", "--run", "zz", "x"),
     "error: Collection 'c' has no run 'zz'. Its runs: 'a', 'b'. Run `python -m core list --collection c` to see them.\n"),
    (("rename", "--collection", "nope", "x"),
     "error: Unknown collection 'nope'. Run `python -m core list` to see the collections.\n"),
    (("rename", "--collection", "c", "--run", "a", "b"),
     "error: A run named 'b' already exists in this collection; choose another name.\n"),
    (("delete", "--collection", "c", "--run", "a", "--run", "zz", "--yes"),
     "error: Collection 'c' has no run 'zz'. Its runs: 'a', 'b'. Run `python -m core list --collection c` to see them.\n"),
    (("delete", "--collection", "nope", "--yes"),
     "error: Unknown collection 'nope'. Run `python -m core list` to see the collections.\n"),
    (("delete", "--collection", "c", "--run", "a"),
     "error: This would delete run 'a' (5 rows) from collection 'c'. Nothing was deleted.\n\nAdd --yes to delete it.\n"),
    (("delete", "--collection", "c"),
     "error: This would delete collection 'c' (2 runs, 2 qrels sets, 0 topics, 0 documents, 1 notes). Nothing was "
     "deleted.\n\nAdd --yes to delete it.\n"),
    (("evaluate", "--collection", "c", "--stored", "zz"),
     "error: Collection 'c' has no run 'zz'. Its runs: 'a', 'b'. Run `python -m core list --collection c` to see them.\n"),
    (("evaluate", "--collection", "c", "--assessor", "nobody"),
     "error: Collection 'c' has no qrels set by assessor 'nobody'. Its qrels sets: 'nist', 'other'.\n"),
    (("evaluate", "--collection", "nope"),
     "error: Unknown collection 'nope'. Run `python -m core list` to see the collections.\n"),
    (("evaluate",), "error: Give a QRELS file and RUN files, or --collection NAME to evaluate stored runs.\n"),
    (("evaluate", "--collection", "c", "-R", "prefs"),
     "error: -R qrels_jg/prefs/qrels_prefs, diversity measures and --engine dask work on files only: evaluate stored "
     "runs without them, or give QRELS and RUN files.\n"),
    (("evaluate", "--collection", "c", "-m", "alpha_nDCG@10"),
     "error: -R qrels_jg/prefs/qrels_prefs, diversity measures and --engine dask work on files only: evaluate stored "
     "runs without them, or give QRELS and RUN files.\n"),
    (("evaluate", "q.txt", "a.run", "--collection", "c"),
     "error: Give either QRELS and RUN files or --collection NAME, not both.\n"),
])
def test_a_refused_command_says_why_changes_nothing_and_exits_2(store, args, message):
    with Store.open(store, load_sample=False) as s:
        before = snapshot(s)
    done = cli(store, *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    with Store.open(store, load_sample=False) as s:
        assert snapshot(s) == before


def test_delete_runs_and_a_collection(store):
    done = cli(store, "delete", "--collection", "c", "--run", "a", "--run", "1", "--yes")   # 'a' once, by name and id
    assert (done.returncode, done.stdout) == (0, "Deleted run 'a' (5 rows) from collection 'c'.\n")
    assert runs(store) == ["b"]
    gone = cli(store, "delete", "--collection", "c", "--yes")
    assert gone.stdout == "Deleted collection 'c' (1 runs, 2 qrels sets, 0 topics, 0 documents, 1 notes).\n"
    with Store.open(store, load_sample=False) as s:
        left = {t: rows for t, rows in snapshot(s).items() if t not in ("meta",) and rows}
    assert left == {}, f"rows left behind: {left}"


def test_evaluate_stored_runs_gives_the_files_numbers(store, tmp_path):
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "a.run").write_bytes(RUN)
    files = cli(store, "evaluate", str(tmp_path / "q.txt"), str(tmp_path / "a.run"), "-m", "AP", "-m", "P@2", "-q")
    stored = cli(store, "evaluate", "--collection", "c", "--stored", "a", "-m", "AP", "-m", "P@2", "-q")
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout == files.stdout
    both = cli(store, "evaluate", "--collection", "c", "-m", "AP", "--format", "csv")
    assert both.stdout.splitlines() == ["run,qid,measure,value", "a,all,AP,0.9166666666666666",
                                        "b,all,AP,0.7916666666666666"]
    other = cli(store, "evaluate", "--collection", "c", "--stored", "a", "--assessor", "other", "-m", "AP")
    assert other.stdout == "AP                    \tall\t1.0000\n"    # d4 is not relevant to them


HOLD = """
import sys
sys.path.insert(0, sys.argv[1])
from core.store.store import Store
s = Store.open(sys.argv[2], load_sample=False)
with s.session():
    print('open', flush=True)
    sys.stdin.readline()
"""


def test_deletes_and_renames_while_other_processes_load_lose_nothing(store, tmp_path):
    with Store.open(store, load_sample=False) as s:
        want_b = evaluate_stored(s, "c", [2], ["AP", "P@2"]).per_query.drop(columns="run")
    files = []
    for i in range(3):
        files.append(tmp_path / f"new{i}.run")
        files[-1].write_bytes(RUN.replace(b"sys", f"new{i}".encode()) + f"3 Q0 d9 1 1.0 new{i}\n".encode())
    # a holder keeps the store while every command starts, so they all queue for it and run in turn
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(ROOT), str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "open"
    commands = [("load", "--collection", "c", "--run", str(f)) for f in files]
    commands[1:1] = [("delete", "--collection", "c", "--run", "a", "--yes"),
                     ("rename", "--collection", "c", "--run", "b", "b-renamed")]
    procs = [subprocess.Popen([sys.executable, "-m", "core", "--store", str(store), *c], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c in commands]
    try:
        for p in procs:      # each says it waits for the store
            waited = ""
            while "waiting for the store" not in waited:
                line = p.stderr.readline()
                assert line, f"{p.args} ended without waiting: {p.communicate()}"
                waited += line
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=60)
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), outs
    assert "Deleted run 'a' (5 rows) from collection 'c'.\n" in [o for o, _ in outs]
    assert "Renamed run 'b' to 'b-renamed' in collection 'c'.\n" in [o for o, _ in outs]
    assert runs(store) == ["b-renamed", "new0", "new1", "new2"]
    with Store.open(store, load_sample=False) as s:
        assert_derived(s)
        got = evaluate_stored(s, "c", [2], ["AP", "P@2"]).per_query.drop(columns="run")
        assert got.reset_index(drop=True).equals(want_b.reset_index(drop=True))
        assert sorted(s.runs("c")["n_rows"]) == [5, 6, 6, 6]


def test_compare_stored_runs_gives_the_files_numbers(store, tmp_path):
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "a.run").write_bytes(RUN)
    (tmp_path / "b.run").write_bytes(RUN.replace(b"2.0 sys", b"0.1 sys"))
    common = ("-m", "AP", "-m", "P@2", "--test", "randomization", "--resamples", "200", "--format", "csv")
    files = cli(store, "compare", str(tmp_path / "q.txt"), str(tmp_path / "a.run"), str(tmp_path / "b.run"),
                "--baseline", "a.run", *common)
    stored = cli(store, "compare", "--collection", "c", "--baseline", "a", *common)
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout == files.stdout.replace("a.run", "a").replace("b.run", "b")
    unknown = cli(store, "compare", "--collection", "c", "--baseline", "zz", "-m", "AP")
    assert (unknown.returncode, unknown.stderr) == (
        2, "error: The baseline 'zz' is not one of the runs. Pass a run tag or file name: a, b.\n")
