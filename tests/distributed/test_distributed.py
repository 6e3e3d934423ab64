"""The Dask engine against the local engine, on a real local cluster of 2 workers x 1 thread.

One cluster serves the whole test session (starting one costs seconds); the module runs on one xdist worker.
Every comparison is exact: the same per-topic values, summary, texts, warnings and trec_eval output.
"""
from __future__ import annotations

import gzip
import subprocess
import sys
import zipfile

import pandas as pd
import pyarrow as pa
import pytest

from core.cli import main
from core.distributed.driver import evaluate_distributed
from core.errors import UploadError
from core.engine.evaluate import EvalOptions, evaluate_files, evaluate_frames
from core.distributed.kernel import evaluate_rows
from tests.cases.reference import DATA, ROBUST, ROBUST_QRELS, ROOT, reference_file, reference_text, robust_run
from tests.cases.limits import lower_sizes

pytestmark = pytest.mark.xdist_group("dask")

QRELS = DATA / "qrels.robust03.txt.gz"
SAMPLE = sorted((DATA / "runs").glob("input.*.gz"))
ROBUST_NAMES = ("NLPR03vb10", "humR03dc", "uic0301", "SABIR03BASE")


@pytest.fixture(scope="module")
def robust():
    """The Robust 2003 qrels and four of its runs (one shallow, one at depth 100, one with 99,969 lines)."""
    return reference_file(ROBUST_QRELS), [robust_run(name) for name in ROBUST_NAMES]


@pytest.fixture(scope="session")
def dask_client():
    distributed = pytest.importorskip("distributed")   # requirements-test.txt installs it: CI runs these
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def odd_runs(tmp_path_factory):
    """A run with 30 of its topics removed, one that shares no topic with the qrels, and a Parquet copy."""
    out = tmp_path_factory.mktemp("runs")
    lines = gzip.decompress(SAMPLE[0].read_bytes()).decode().splitlines(keepends=True)
    topics = sorted({ln.split()[0] for ln in lines})
    partial = out / "partial.txt"
    partial.write_text("".join(ln for ln in lines if ln.split()[0] not in topics[::3]))
    stray = out / "stray.txt"
    stray.write_text("".join(ln.replace(ln.split()[0], "x" + ln.split()[0], 1) for ln in lines[:50]))
    assert main(["convert", str(SAMPLE[1]), "--out", str(out)]) == 0
    return partial, stray, out / "input.UIUC03Rd1.parquet"


def same(a, b):
    """Equal results: the same rows in the same order, values bit for bit (string dtypes may differ: the local
    engine's object or str columns depend on how its parts were concatenated)."""
    pd.testing.assert_frame_equal(a.per_query, b.per_query, check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(a.summary, b.summary, check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(a.text, b.text, check_dtype=False)
    assert (a.warnings, a.missing_topics, a.num_q, a.runs) == (b.warnings, b.missing_topics, b.num_q, b.runs)
    assert [m.name for m in a.measures] == [m.name for m in b.measures]


@pytest.mark.parametrize("options, split", [
    (EvalOptions(), "run"), (EvalOptions(complete=True), "topic"), (EvalOptions(max_depth=100), "topic"),
    (EvalOptions(rel_level=2, complete=True, max_depth=20, judged_only=True), "run")],
    ids=["plain-run", "c-topic", "M100-topic", "l2-c-M20-J-run"])
def test_sample_with_missing_topics_equals_local(dask_client, odd_runs, options, split):
    runs = [*SAMPLE[:2], *odd_runs]      # text, gzip, missing topics, no topic in common, Parquet
    ms = ["all_trec", "nDCG@10", "P(rel=2)@5", "relstring_10"]
    local = evaluate_files(QRELS, runs, ms, options)
    assert local.missing_topics and any("no topic in common" in w for w in local.warnings) != options.complete
    same(local, evaluate_distributed(QRELS, runs, ms, options, scheduler=dask_client, split=split, per_bucket=17))


@pytest.mark.parametrize("split", ["run", "topic"])
def test_robust03_equals_local(dask_client, robust, split):
    qrels, runs = robust
    options = EvalOptions(complete=True, rel_level=2)
    local = evaluate_files(qrels, runs, ["all_trec"], options)
    same(local, evaluate_distributed(qrels, runs, ["all_trec"], options, scheduler=dask_client,
                                     split=split, per_bucket=30))


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("n_runs", [1, len(ROBUST_NAMES)], ids=["one run", "several runs"])
def test_cli_all_trec_output_is_the_local_output(dask_client, robust, capsys, n_runs):
    qrels, runs = robust[0], robust[1][:n_runs]
    code, local, _ = cli(capsys, "evaluate", "-q", "-m", "all_trec", qrels, *runs)
    assert code == 0
    address = dask_client.scheduler.address
    for extra in ([], ["--split", "topic", "--bucket-topics", "40"]):
        code, out, err = cli(capsys, "evaluate", "--engine", "dask", "--scheduler", address, *extra,
                             "-q", "-m", "all_trec", qrels, *runs)
        assert code == 0 and out == local
        assert f"of {len(runs) + (3 if extra else 0)} tasks done" in err   # (readers +) tasks
    if len(runs) == 1:      # and that output is trec_eval's
        golden = reference_text(f"{ROBUST}/reference_trec_eval_9.0.8/input.{ROBUST_NAMES[0]}.all_trec.q.txt.gz")
        assert local == golden


def test_cli_compare_and_csv_equal_local(dask_client, capsys, odd_runs):
    runs = [*SAMPLE[:3], odd_runs[0]]
    args = ["compare", QRELS, *runs, "--baseline", SAMPLE[0].name, "-m", "AP", "-m", "nDCG@10", "-c", "--format", "csv"]
    code, local, local_err = cli(capsys, *args)
    assert code == 0
    code, out, err = cli(capsys, *args, "--scheduler", dask_client.scheduler.address)
    assert code == 0 and out == local and local_err in err
    csv = ["evaluate", QRELS, *runs, "-q", "-M", "50", "--format", "csv"]
    assert cli(capsys, *csv)[1] == cli(capsys, *csv, "--scheduler", dask_client.scheduler.address)[1]


def test_kernel_takes_runs_in_any_order(odd_runs):
    """evaluate_rows over the rows of two runs, shuffled, gives the local per-query values (no cluster)."""
    from core.formats import read_qrels, read_run

    qrels = read_qrels(QRELS).table
    parts = [read_run(p).table.append_column("run", pa.array([n] * read_run(p).n_rows, pa.string()))
             for p, n in ((SAMPLE[0], "a"), (odd_runs[0], "b"))]
    rows = pa.concat_tables(parts)
    rows = rows.take(pa.array(pd.Series(range(rows.num_rows)).sample(frac=1, random_state=1).to_numpy()))
    got = evaluate_rows(rows, qrels, ["AP", "P@10"]).to_pandas()
    want = evaluate_frames(qrels.to_pandas(), rows.to_pandas(), ["AP", "P@10"]).per_query
    key = ["run", "measure", "qid"]
    got = got.sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    assert got["text"].isna().all()
    pd.testing.assert_frame_equal(got[list(want.columns)], want, check_dtype=False, check_exact=True)


def test_a_bad_run_raises_the_parsers_error_from_the_worker(dask_client, tmp_path):
    bad = tmp_path / "bad.txt"
    line = "301 Q0 FBIS3-1 1 2.5 tag\n"
    bad.write_text(line + "301 Q0 FBIS3-2 2 oops tag\n" + line)
    with pytest.raises(UploadError) as local:
        evaluate_files(QRELS, [bad], ["AP"])
    with pytest.raises(UploadError) as remote:
        evaluate_distributed(QRELS, [SAMPLE[0], bad], ["AP"], scheduler=dask_client)
    assert str(remote.value) == str(local.value) and "bad.txt, line 2" in str(remote.value)


def test_unreachable_scheduler_is_a_clear_error(capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr("core.distributed.cluster.CONNECT_TIMEOUT", 1.0)
    code, out, err = cli(capsys, "evaluate", QRELS, SAMPLE[0], "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and out == ""
    assert err.startswith("error: Cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 1 s")
    assert "leave out --scheduler to start a local cluster" in err


def test_without_dask_core_imports_and_the_engine_says_how_to_install(tmp_path):
    """dask and distributed hidden: core (and the CLI) import, and --engine dask explains what is missing."""
    code = ("import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
            "import core.distributed.driver, core.distributed.kernel, core.cli.evaluate, core.cli.compare, core.service.evaluate\n"
            f"sys.exit(core.cli.main(['evaluate', {str(QRELS)!r}, {str(SAMPLE[0])!r}, '--engine', 'dask']))")
    done = subprocess.run([sys.executable, "-c", "import core.cli\n" + code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: The Dask engine needs the packages dask and distributed, which are not "
                                  "installed")
    assert "pip install -r requirements-dist.txt" in done.stderr


def test_core_runs_the_kernel_from_a_zip(tmp_path):
    """Shipped as a zip (as to a worker without Rankboard installed), core finds its SQL (importlib.resources)."""
    archive = tmp_path / "core.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in (ROOT / "core").rglob("*"):
            if path.suffix in (".py", ".sql"):
                z.write(path, path.relative_to(ROOT))
    code = (f"import sys; sys.path.insert(0, {str(archive)!r})\n"
            "import core.engine.evaluate, pandas as pd\n"
            "assert core.engine.evaluate.__file__.startswith(sys.path[0]), core.engine.evaluate.__file__\n"
            "q = pd.DataFrame({'qid': ['1', '1'], 'docno': ['a', 'b'], 'rel': [1, 0]})\n"
            "r = pd.DataFrame({'qid': ['1', '1'], 'docno': ['a', 'b'], 'score': [2.0, 1.0]})\n"
            "print(core.engine.evaluate.evaluate_frames(q, r, ['AP']).summary['value'].iloc[0])")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1.0"


def test_segcum_floats_equals_a_cumsum_per_group_and_ignores_other_groups():
    """The float segmented cumsum is each group's own np.cumsum (so a topic's bits do not depend on the topics
    evaluated with it, which split="topic" needs); checked against the plain per-group loop."""
    import numpy as np

    from core.measures.context import segcum_floats

    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 40, size=300)
    x = rng.random(lengths.sum()) / np.log2(rng.integers(2, 1000, size=lengths.sum()))
    bounds = np.r_[0, np.cumsum(lengths)]
    starts = np.repeat(bounds[:-1], lengths)
    plain = np.concatenate([np.cumsum(x[a:b]) for a, b in zip(bounds[:-1], bounds[1:])])
    assert np.array_equal(segcum_floats(x, starts), plain)
    tail = slice(bounds[150], None)                       # the same groups without the first 150
    assert np.array_equal(segcum_floats(x[tail], starts[tail] - bounds[150]), plain[tail])


def test_dashboard_hands_stored_runs_to_the_cluster(dask_client, tmp_path, monkeypatch):
    """RANKBOARD_DASK_SCHEDULER: the leaderboard's evaluate_stored computes on the cluster, with the same values."""
    from core.service.evaluate import evaluate_stored
    from tests.fixtures_store import SAMPLE_COLLECTION, sample_store

    ms = ["AP", "nDCG@10", "ndcg_rel", "relstring@5"]
    with sample_store(tmp_path) as store:
        runs = store.runs(SAMPLE_COLLECTION)["run_id"].tolist()
        local = evaluate_stored(store, SAMPLE_COLLECTION, runs, ms, options=EvalOptions(max_depth=30))
    calls = []
    monkeypatch.setenv("RANKBOARD_DASK_SCHEDULER", dask_client.scheduler.address)
    monkeypatch.setattr("core.distributed.cluster.wait", lambda client, futures, progress=None: calls.append(len(futures)))
    (tmp_path / "again").mkdir()
    with sample_store(tmp_path / "again") as store:
        remote = evaluate_stored(store, SAMPLE_COLLECTION, runs, ms, options=EvalOptions(max_depth=30))
    assert calls == [len(runs)]                          # one task per run, on the cluster
    same(local, remote)


@pytest.mark.parametrize("split", ["run", "topic"])
def test_c_with_a_blank_run_file_equals_local(dask_client, tmp_path, split):
    """Under -c a blank run file is a run that retrieved nothing (every topic scores 0), on a worker as locally."""
    blank = tmp_path / "blank.txt"
    blank.write_text(" \n")
    runs, options = [blank, SAMPLE[0]], EvalOptions(complete=True)
    same(evaluate_distributed(QRELS, runs, ["AP", "P@10"], options, scheduler=dask_client, split=split),
         evaluate_files(QRELS, runs, ["AP", "P@10"], options))


def sample_run(tmp_path, comment: bool, extra: bool = False):
    """The first sample run as a plain file; with `comment`, a '#' line in the middle (the tolerant parser reads
    it); with `extra`, a 7th field on one line (a warning)."""
    lines = gzip.decompress(SAMPLE[0].read_bytes()).decode().splitlines(keepends=True)
    if comment:
        lines.insert(len(lines) // 2, "# a note in the middle\n")
    if extra:
        lines[7] = lines[7].rstrip("\n") + " extra\n"
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    return path


def in_pieces_only(monkeypatch, **sizes):
    """Lower the large-file reader's sizes (core.formats.pieces: `sizes`) and make any call of the whole-file parser fail."""
    from core.engine.stage1 import files

    def whole(*args, **kw):
        raise AssertionError("the whole-file parser was called")
    monkeypatch.setattr(files, "read_run", whole)
    monkeypatch.setattr("core.formats.read_run", whole)
    lower_sizes(monkeypatch, **sizes)


@pytest.mark.parametrize("comment", [False, True], ids=["clean", "comment-line"])
def test_a_workers_large_run_is_read_a_piece_at_a_time(tmp_path, monkeypatch, comment):
    """run_task (in this process, as a worker runs it) reads a run file through stage 1's file providers: with the
    size thresholds lowered, a clean run goes in pieces and one with a comment line below the top to the tolerant
    parser's pieces; the whole-file parser is never called, and the values are the old whole-file path's."""
    from core.distributed import tasks as dask_tasks
    from core.formats import read_qrels

    path = sample_run(tmp_path, comment)
    qrels = read_qrels(QRELS).table
    measures = ["AP", "nDCG@10", "P@10"]
    table, tag, _ = dask_tasks.read_rows(path)
    want = evaluate_rows(dask_tasks.with_run(table, "0"), qrels, measures, EvalOptions())
    in_pieces_only(monkeypatch, PIECES_MIN=1 << 10, WHOLE_MAX_BYTES=2 << 10, PIECE_BYTES=1 << 16)
    got_tag, _, got = dask_tasks.run_task(path, "0", qrels, measures, EvalOptions())
    assert got_tag == (tag or "run.txt")
    keys = [("run", "ascending"), ("qid", "ascending"), ("measure", "ascending")]
    assert got.sort_by(keys).equals(want.sort_by(keys))


@pytest.mark.parametrize("comment", [False, True], ids=["clean", "comment-line"])
def test_a_topic_split_reader_reads_a_large_run_a_piece_at_a_time(tmp_path, monkeypatch, comment):
    """bucket_task (split by topic, in this process) reads a run file of WHOLE_MAX_BYTES or more in pieces (clean, or
    the tolerant parser's): the whole-file parser is never called, and the tag, warnings and every bucket's rows
    are those of the whole-file read."""
    from core.distributed import tasks as dask_tasks
    from core.formats import read_qrels

    path = sample_run(tmp_path, comment, extra=comment)
    topics = pa.array(sorted(set(read_qrels(QRELS).table["qid"].to_pylist())), pa.string())
    want = dask_tasks.bucket_task(path, "0", topics, 40)
    in_pieces_only(monkeypatch, WHOLE_MAX_BYTES=1 << 10, PIECE_BYTES=1 << 16, TOLERANT_BYTES=1 << 16)
    got = dask_tasks.bucket_task(path, "0", topics, 40)
    assert got[0] == want[0] and got[1] == want[1] and (not comment or got[1])
    assert len(got[2]) == len(want[2]) > 1
    for a, b in zip(got[2], want[2]):
        assert a.equals(b)


def test_kernel_on_no_rows_gives_no_values():
    """A piece with no rows (every line of its topics filtered out) gives an empty table, not an error."""
    from core.formats import read_qrels, read_run

    qrels = read_qrels(QRELS).table
    table = read_run(SAMPLE[0]).table
    rows = table.append_column("run", pa.array(["a"] * table.num_rows, pa.string())).slice(0, 0)
    got = evaluate_rows(rows, qrels, ["AP", "P@10"])
    assert got.num_rows == 0 and "measure" in got.column_names
