"""`python -m core load` / `list`, wired as core/cli/ wires them (top-level --store)."""
from __future__ import annotations

import pytest

from core.cli import load as cli_load
from core.errors import RankboardError
from core.store.store import Store
from tests.fixtures_store import assert_derived, cli, pairs, snapshot




@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text("301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n")
    (tmp_path / "q2.txt").write_text("301 0 d1 0\n301 0 d2 1\n302 0 d3 2\n")
    (tmp_path / "a.run").write_text("301 Q0 d1 1 2.0 sysA\n301 Q0 d2 2 1.0 sysA\n302 Q0 d3 1 1.0 sysA\n")
    (tmp_path / "b.run").write_text("301 Q0 d2 1 2.0 sysB\n302 Q0 d3 1 1.0 sysB\n")
    (tmp_path / "bad.run").write_text("301 Q0 d2 1 2.0 sysC\n301 Q0 d3 x 1.0\n")
    (tmp_path / "t.tsv").write_text("301\tfirst topic\n302\tsecond topic\n")
    (tmp_path / "docs.jsonl").write_text('{"docno": "d1", "text": "hello"}\n')
    return tmp_path


def test_load_then_list(files, capsys):
    store = str(files / "s.duckdb")
    rc = cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q.txt"), "--assessor", "NIST",
             "--qrels", str(files / "q2.txt"), "--run", str(files / "a.run"), "--name", "A",
             "--run", str(files / "b.run"), "--topics", str(files / "t.tsv"), "--docs", str(files / "docs.jsonl"))
    out, err = capsys.readouterr()
    assert rc == 0
    assert "[2/6] qrels q.txt as 'NIST': 3 rows" in err and "[6/6] run b.run as 'sysB': 2 rows" in err
    assert "Loaded 6 file(s) into collection 'toy'" in out
    assert cli("--store", store, "list", "--collection", "toy") == 0
    out = capsys.readouterr().out.splitlines()
    # a store created by a command-line load holds only what was loaded (no sample collection)
    assert "toy (id 1): 2 topics, 2 qrels sets, 2 runs, 1 documents" in out
    assert any(line.split()[:3] == ["qrels", "1", "NIST"] and line.endswith("(default)") for line in out)
    assert any(line.split()[:3] == ["run", "1", "A"] for line in out)
    with Store.open(store) as s:
        assert list(s.runs("toy").name) == ["A", "sysB"]
        assert list(s.qrels_sets("toy").assessor) == ["NIST", "q2.txt"]


def test_a_rejected_file_rolls_back_the_whole_load(files, capsys):
    store = str(files / "s.duckdb")
    assert cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q.txt")) == 0
    with Store.open(store) as s:
        before = snapshot(s)
    rc = cli("--store", store, "load", "--collection", "toy", "--run", str(files / "a.run"),
             "--run", str(files / "bad.run"))
    out = capsys.readouterr().out
    assert rc == 2
    assert ("error: bad.run, line 2: found 5 fields but a run line needs 6 (qid Q0 docno rank score tag). "
            "Separate the fields with spaces or tabs and remove extra fields.\n    '301 Q0 d3 x 1.0'") in out
    with Store.open(store) as s:
        assert snapshot(s) == before


def test_on_conflict_and_argument_errors(files, capsys):
    store = str(files / "s.duckdb")
    args = ["--store", store, "load", "--collection", "toy", "--run", str(files / "a.run")]
    assert cli(*args) == 0
    assert cli(*args) == 2
    assert "a run named 'sysA' already exists in collection 'toy'" in capsys.readouterr().out
    assert cli(*args, "--on-conflict", "rename") == 0
    assert cli(*args, "--on-conflict", "replace") == 0
    with Store.open(store) as s:
        assert sorted(s.runs("toy").name) == ["sysA", "sysA-2"]
    with pytest.raises(SystemExit):
        cli("--store", store, "load", "--assessor", "X", "--qrels", str(files / "q.txt"))
    assert "--assessor must follow the --qrels it names" in capsys.readouterr().err
    assert cli("--store", store, "load") == 2


def test_progress_bar_for_large_files(files, capsys, monkeypatch):
    monkeypatch.setattr(cli_load, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr(cli_load, "CHUNK", 16)
    assert cli("--store", str(files / "s.duckdb"), "load", "--collection", "x", "--run", str(files / "a.run")) == 0
    err = capsys.readouterr().err
    assert "reading a.run [" in err and "] 100%" in err and err.count("\r") > 2


def test_each_pass_over_a_large_file_has_its_own_bar(files, capsys, monkeypatch):
    """A gzip run the column reader declines (a comment line further down) is read, measured (a gzip bomb is
    refused before a parser reads it) and parsed by the tolerant parser's pieces: three passes, three bars."""
    import gzip

    import core.formats.pieces as pieces

    monkeypatch.setattr(cli_load, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setenv("RANKBOARD_STREAM_MIN_MB", "0")
    monkeypatch.setattr(pieces, "PIECE_BYTES", 300)           # topics of ~450 bytes: pieces of whole topics
    monkeypatch.setattr(pieces, "TOLERANT_BYTES", 64)
    lines = [b"%d Q0 d%d %d %d.5 sysB\n" % (1 + d // 20, d, d, 50 - d) for d in range(40)]
    path = files / "noted.run.gz"
    path.write_bytes(gzip.compress(b"".join(lines[:20]) + b"# a note\n" + b"".join(lines[20:])))
    assert cli("--store", str(files / "s.duckdb"), "load", "--collection", "x", "--run", str(path)) == 0
    bars = [ln.split("\r")[-1] for ln in capsys.readouterr().err.split("\n") if "%" in ln]
    assert [b.split()[0] for b in bars] == ["reading", "measuring", "parsing"]
    assert all(b.endswith("[##############################] 100%") for b in bars[1:])


@pytest.mark.parametrize("progress", [False, True])
def test_a_missing_file_is_a_readable_error_and_loads_nothing(files, capsys, monkeypatch, progress):
    if progress:
        monkeypatch.setattr(cli_load, "PROGRESS_MIN_BYTES", 0)
    store = str(files / "s.duckdb")
    assert cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q.txt")) == 0
    with Store.open(store) as s:
        before = snapshot(s)
    capsys.readouterr()
    missing = files / "nope.run"
    rc = cli("--store", store, "load", "--collection", "toy", "--run", str(files / "a.run"), "--run", str(missing))
    assert rc == 2
    assert capsys.readouterr().out == f"error: nope.run: cannot read {missing}: no such file. Check the path and try again.\n"
    with Store.open(store) as s:
        assert snapshot(s) == before


def test_the_parsers_report_a_missing_path_or_a_folder(files):
    from core.formats import read_qrels, read_run
    with pytest.raises(RankboardError) as info:
        read_run(files / "nope.run")
    assert str(info.value) == f"nope.run: cannot read {files / 'nope.run'}: no such file. Check the path and try again."
    with pytest.raises(RankboardError) as info:
        read_qrels(files, filename="q.txt")
    assert str(info.value) == f"q.txt: cannot read {files}: this is a folder, not a file. Check the path and try again."


def test_a_load_keeps_what_stored_evaluation_reads(files, capsys):
    """Qrels and runs in one load, then a qrels set on its own: every run has judged rows under every set."""
    store = str(files / "s.duckdb")
    assert cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q.txt"),
               "--run", str(files / "a.run"), "--run", str(files / "b.run")) == 0
    assert cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q2.txt")) == 0
    with Store.open(store, load_sample=False) as s:
        runs, sets = list(s.runs("toy").run_id), list(s.qrels_sets("toy").qrels_id)
        assert len(runs) == len(sets) == 2
        assert {p for p in pairs(assert_derived(s)) if p[0] in runs} == {(r, q) for r in runs for q in sets}


def test_load_into_a_collection_by_id(files, capsys):
    """`--collection 1` means collection id 1 when no collection is named '1' (it used to create one)."""
    store = str(files / "s.duckdb")
    assert cli("--store", store, "load", "--collection", "toy", "--qrels", str(files / "q.txt")) == 0
    assert cli("--store", store, "load", "--collection", "1", "--run", str(files / "a.run")) == 0
    with Store.open(store) as s:
        assert "1" not in set(s.collections()["name"])
        assert list(s.runs("toy").name) == ["sysA"]
    capsys.readouterr()
