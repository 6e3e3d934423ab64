"""`python -m core load --dataset ID` and `irds:ID` in place of a qrels file (`evaluate`, `compare`, `check`), on the
datasets of tests/cases/irds.py (registered with ir_datasets' own registry, over files in tests/reference/)."""
from __future__ import annotations

import pytest

from core.cli import main
from core.formats import read_qrels
from core.store.store import Store
from tests.cases import irds
from tests.cases.reference import reference_file
from tests.fixtures_store import assert_derived, snapshot

RUN = "trec_eval_test/results.test.gz"


@pytest.fixture(scope="module")
def home():
    return irds.register()


@pytest.fixture
def store(tmp_path, home):
    return str(tmp_path / "s.duckdb")


def _out(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_load_dataset_stores_its_qrels_and_topics(store, capsys):
    assert main(["--store", store, "load", "--collection", "c", "--dataset", "rankboard-test/trec",
                 "--run", str(reference_file(RUN))]) == 0
    out, err = capsys.readouterr()
    assert "[1/2] dataset irds:rankboard-test/trec: 3681 qrels, 3 topics in " in err
    assert "[2/2] run results.test.gz as 'STANDARD': 1500 rows in " in err
    assert "Loaded irds:rankboard-test/trec and 1 file(s) into collection 'c' of " in out
    with Store.open(store) as s:
        sets = s.qrels_sets("c")
        assert list(sets.assessor) == ["rankboard-test/trec"] and list(sets.filename) == ["irds:rankboard-test/trec"]
        stored = s.qrels(int(sets.qrels_id[0]))
        want = read_qrels(reference_file(irds.QRELS)).table.to_pandas()
        key = ["qid", "docno"]
        assert stored[["qid", "docno", "rel"]].sort_values(key).to_numpy().tolist() == \
            want.sort_values(key).to_numpy().tolist()
        assert s.topics("c")[["qid", "text"]].to_dict("records") == [
            {"qid": "301", "text": "International Organized Crime"},
            {"qid": "302", "text": "Poliomyelitis and Post-Polio"},
            {"qid": "303", "text": "Hubble Telescope Achievements"}]
        assert_derived(s)
    stored_eval = _out(capsys, "--store", store, "evaluate", "--collection", "c", "-m", "map", "-m", "P_10")
    assert stored_eval == _out(capsys, "evaluate", "irds:rankboard-test/trec", str(reference_file(RUN)),
                               "-m", "map", "-m", "P_10")


def test_docs_limit_loads_the_first_documents(store, capsys):
    assert main(["--store", store, "load", "--collection", "c", "--dataset", "rankboard-test/trec", "--docs",
                 "--docs-limit", "2"]) == 0
    err = capsys.readouterr().err
    assert "reading the documents of irds:rankboard-test/trec: 2 of 2" in err
    assert "[1/1] dataset irds:rankboard-test/trec: 3681 qrels, 3 topics, 2 documents in " in err
    with Store.open(store) as s:
        docs = s.document_text("c", ["CR93E-1282", "CR93E-3103", "CR93E-10071"])
    assert docs == {"CR93E-1282": "International crime syndicates smuggle cocaine across borders.\n",
                    "CR93E-3103": "Police of several countries act together against organized crime.\n"}


def test_a_dataset_without_qrels_loads_its_queries_with_a_warning(store, capsys):
    assert main(["--store", store, "load", "--collection", "c", "--dataset", "rankboard-test/queries-only"]) == 0
    err = capsys.readouterr().err
    assert "[1/1] dataset irds:rankboard-test/queries-only: 3 topics in " in err
    assert "  warning: The dataset has no qrels; only its other parts were loaded.\n" in err


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-q", "-m", "ndcg_cut_10", "--format", "csv"]])
def test_evaluate_irds_equals_evaluate_on_the_files(home, capsys, flags):
    run = str(reference_file(RUN))
    from_file = _out(capsys, "evaluate", str(reference_file(irds.QRELS)), run, *flags)
    assert _out(capsys, "evaluate", "irds:rankboard-test/trec", run, *flags) == from_file
    assert from_file.count("\n") > 3


def test_compare_and_check_take_a_dataset_id_as_the_qrels(home, tmp_path, capsys):
    run = reference_file(RUN)
    other = tmp_path / "other.run"            # the same run with every score halved above rank 5: another run
    lines = [line.split() for line in __import__("gzip").open(run, "rt")]
    other.write_text("".join(f"{q} Q0 {d} {r} {float(s) / (2 if int(r) > 5 else 1)} OTHER\n"
                             for q, _, d, r, s, _ in lines))
    for command, tail in (("compare", ["--baseline", "STANDARD", "-m", "map"]), ("check", ["--against", str(run)])):
        argv = [str(other)] + ([str(run)] if command == "compare" else []) + tail
        assert _out(capsys, command, "irds:rankboard-test/trec", *argv) == \
            _out(capsys, command, str(reference_file(irds.QRELS)), *argv)


def test_a_failed_load_changes_nothing(store, capsys):
    assert main(["--store", store, "load", "--collection", "c", "--dataset", "rankboard-test/trec/tsv"]) == 0
    with Store.open(store) as s:
        before = snapshot(s)
    capsys.readouterr()
    err = _error(capsys, "--store", store, "load", "--collection", "c", "--run", str(reference_file(RUN)),
                 "--dataset", "rankboard-test/offline")
    assert err.endswith("error: irds:rankboard-test/offline: the dataset's qrels are not on this machine and "
                        "ir_datasets could not get them (ConnectionError). Download http://127.0.0.1:9/qrels.txt on a "
                        "machine with network access and save it as "
                        f"{irds.register()}/rankboard-test/offline/qrels (ir_datasets' folder is {irds.register()}, "
                        "set by IR_DATASETS_HOME), then try again.\n")
    assert _error(capsys, "--store", store, "load", "--collection", "c", "--dataset", "rankboard-test/trec/tsv",
                  "--topics", str(reference_file(irds.TOPICS))) == (
        "error: irds:rankboard-test/trec/tsv: the collection already holds this dataset's qrels (its qrels set "
        "'rankboard-test/trec/tsv'). Load the dataset into another collection.\n")
    with Store.open(store) as s:
        assert snapshot(s) == before


def test_what_cannot_be_loaded_is_an_error(store, capsys):
    assert _error(capsys, "--store", store, "load", "--dataset", "rankboard-test/docs-only") == (
        "error: irds:rankboard-test/docs-only: the dataset has no qrels and no queries. Load its documents (--docs, or "
        "the documents box on the Data page), or choose a dataset with qrels or queries.\n")
    assert _error(capsys, "--store", store, "load", "--dataset", "rankboard-test/trec/tvs").startswith(
        "error: irds:rankboard-test/trec/tvs: ir_datasets has no dataset with this id. Did you mean "
        "rankboard-test/trec/tsv, ")
    assert _error(capsys, "evaluate", "irds:rankboard-test/queries-only", str(reference_file(RUN))) == (
        "error: irds:rankboard-test/queries-only: the dataset has no qrels. Choose a dataset with qrels "
        "(https://ir-datasets.com lists what each dataset provides).\n")


def test_docs_options_need_a_dataset(store, capsys):
    assert _error(capsys, "--store", store, "load", "--docs") == (
        "error: --docs without a FILE loads the documents of --dataset ID: give --dataset, or a FILE after --docs.\n")
    assert _error(capsys, "--store", store, "load", "--dataset", "rankboard-test/trec", "--docs-limit", "3") == (
        "error: --docs-limit N limits the documents of --dataset ID: add --dataset ID --docs.\n")
    with pytest.raises(SystemExit):
        main(["--store", store, "load", "--dataset", "rankboard-test/trec", "--docs", "--docs-limit", "0"])
    assert "--docs-limit: must be a whole number of documents, 1 or more, not '0'" in capsys.readouterr().err
