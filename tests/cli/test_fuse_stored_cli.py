"""`python -m core fuse --collection NAME --stored RUN RUN ...`: the stored runs fused as the same files are, the
fused run written or stored with its provenance, --tune on the collection's qrels, and exact one-line errors that
leave the store unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.formats import read_run
from core.fusion import fuse
from core.store.store import Store
from tests.fixtures_store import SAMPLE_COLLECTION as C, assert_derived, sample_store, snapshot

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def store(tmp_path):
    sample_store(tmp_path).close()
    return tmp_path / "sample.duckdb"


def fuse_cli(store, *argv):
    return main(["--store", str(store), "fuse", "--collection", C, *argv])


def file_frames(*names):
    return [read_run(DATA / "runs" / f"input.{n}.gz").table.to_pandas() for n in names]


def test_stored_runs_fuse_as_their_files_do(store, capsys):
    assert fuse_cli(store, "--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--depth", "20") == 0
    out = capsys.readouterr().out
    got = read_run(out.encode(), filename="fused.run")
    expected = fuse(file_frames("aplrob03a", "UIUC03Rd1"), "rrf", depth=20).table
    table = got.table.to_pandas()
    assert table["docno"].tolist() == expected["docno"].tolist()
    assert (table["score"].to_numpy() == expected["score"].to_numpy()).all()
    fusion = got.metadata["method"]["fusion"]
    assert (fusion["method"], fusion["norm"], fusion["params"], fusion["runs"]) == (
        "rrf", "min-max", {"k": "60"}, ["aplrob03a", "UIUC03Rd1"])
    assert got.tag == "rrf"


def test_store_as_adds_a_run_with_its_provenance(store, capsys):
    expected = fuse(file_frames("aplrob03a", "pircRBa1"), "wsum", weights=[0.3, 0.7]).table
    assert fuse_cli(store, "--stored", "aplrob03a", "1", "--method", "wsum", "--weights", "0.3,0.7",
                    "--store-as", "wsum-two") == 0
    assert capsys.readouterr().out == (f"Stored run 'wsum-two' in collection 'robust03-sample': {len(expected):,} "
                                       f"lines, wsum of aplrob03a, pircRBa1.\n")
    with Store.open(store, load_sample=False) as s:
        runs = s.runs(C).set_index("name")
        meta = json.loads(runs.loc["wsum-two", "metadata"])
        assert meta["method"]["fusion"] == {"method": "wsum", "norm": "min-max", "weights": ["0.3", "0.7"],
                                            "runs": ["aplrob03a", "pircRBa1"]}
        assert runs.loc["wsum-two", "tag"] == "wsum-two"
        rows = s.run_rows(int(runs.loc["wsum-two", "run_id"]))
        assert rows["docno"].tolist() == expected["docno"].tolist()
        assert_derived(s)


def test_tune_uses_the_collections_default_qrels(store, capsys):
    out = Path(store).parent / "tuned.run"
    assert fuse_cli(store, "--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--tune", "--folds", "2",
                    "-o", str(out)) == 0
    report = capsys.readouterr().out
    assert report.startswith("rrf: 10 configurations, 2-fold cross-validation over topics, maximising nDCG@10\n")
    tune = read_run(out).metadata["method"]["fusion"]["tune"]
    assert (tune["qrels"], tune["folds"]) == ("NIST", "2")


def test_train_uses_the_assessors_qrels(store, capsys):
    assert fuse_cli(store, "--stored", "aplrob03a", "UIUC03Rd1", "--method", "mapfuse", "--train", "--assessor",
                    "simulated-B", "--depth", "5") == 0
    got = read_run(capsys.readouterr().out.encode(), filename="f.run")
    assert got.metadata["method"]["fusion"]["train"] == {"qrels": "simulated-B"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--stored", "aplrob03a", "nope", "--method", "rrf"],
     "Collection 'robust03-sample' has no run 'nope'. Its runs: 'pircRBa1', 'aplrob03a', 'UIUC03Rd1', 'MU03rob01', "
     "'humR03dc'. Run `python -m core list --collection robust03-sample` to see them."),
    (["--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--store-as", "humR03dc"],
     "Collection 'robust03-sample' already has a run named 'humR03dc'. Choose another name, or delete that run "
     "first."),
    (["--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--store-as", "two words"],
     "'two words': a run's name is one word, without spaces. Give e.g. rrf-fused."),
    (["--stored", "aplrob03a", "--method", "rrf"],
     "fusion needs at least two runs. Give two or more stored runs after --stored."),
    (["--stored", "aplrob03a", "aplrob03a", "--method", "rrf"],
     "the same run is named twice. Give each stored run once."),
    (["--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--tune", "q.txt"],
     "--tune q.txt: with --collection, --tune takes no QRELS file; it uses the collection's qrels (choose a set "
     "with --assessor NAME)."),
    (["--stored", "aplrob03a", "UIUC03Rd1", "--method", "rrf", "--tune", "--assessor", "ghost"],
     "Collection 'robust03-sample' has no qrels set by assessor 'ghost'. Its qrels sets: 'NIST', 'simulated-B'."),
    (["--method", "rrf"], "--collection robust03-sample: name the runs to fuse with --stored RUN RUN ..."),
    (["a.run", "--stored", "x", "y", "--method", "rrf"],
     "Give either RUN files or --collection NAME --stored RUN RUN ..., not both."),
])
def test_errors_name_the_problem_and_change_nothing(store, capsys, argv, message):
    with Store.open(store, load_sample=False) as s:
        before = snapshot(s)
    assert fuse_cli(store, *argv) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    with Store.open(store, load_sample=False) as s:
        assert snapshot(s) == before


def test_an_unknown_collection_is_named(store, capsys):
    assert main(["--store", str(store), "fuse", "--collection", "nope", "--stored", "a", "b", "--method",
                 "rrf"]) == 2
    assert capsys.readouterr().err == ("error: Unknown collection 'nope'. Run `python -m core list` to see the "
                                       "collections.\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["--stored", "a", "b"], "--stored needs --collection NAME (the runs of a collection in the store)."),
    (["a.run", "b.run", "--store-as", "x"],
     "--store-as needs --collection NAME (the runs of a collection in the store)."),
    (["a.run", "b.run", "--tune"], "--tune needs QRELS with run files. Give --tune QRELS, or fuse stored runs with "
                                   "--collection NAME."),
])
def test_stored_options_need_a_collection(capsys, argv, message):
    assert main(["fuse", *argv, "--method", "rrf"]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
