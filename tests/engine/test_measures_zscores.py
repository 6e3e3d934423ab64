"""trec_eval -Z: z-scores against a reference file, checked byte for byte against trec_eval 10.0's own test output
(tests/reference/trec_eval_test/: zscores_file and out.test.aqZ, copied from trec_eval's test/ directory)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from core.errors import UploadError
from core.engine.zscores import read_zscores
from tests.cases.reference import reference_bytes, reference_file, reference_text

TE = "trec_eval_test"


def _qrels_and_run() -> list[str]:
    return [str(reference_file(f"{TE}/qrels.test.gz")), str(reference_file(f"{TE}/results.test.gz"))]


def test_zscores_golden(tmp_path):
    zscores = tmp_path / "zscores_file"            # -Z reads plain text only: the reference copy is gzip-compressed
    zscores.write_bytes(reference_bytes(f"{TE}/zscores_file.gz"))
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "-m", "all_trec", "--compat", "10",
                          "-Z", str(zscores), *_qrels_and_run()], capture_output=True, text=True, check=True).stdout
    assert out == reference_text(f"{TE}/out.test.aqZ.gz")


def test_zero_stddev_and_missing_entries(tmp_path):
    z = tmp_path / "z"
    z.write_text("301 num_rel 474 0\n302 num_rel 1 0\n301 map 0.5 0.25\n")
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "-m", "map", "-m", "num_rel", "-Z", str(z),
                          *_qrels_and_run()], capture_output=True, text=True, check=True).stdout
    lines = {tuple(line.split()[:2]): line.split()[2] for line in out.splitlines()}
    assert lines[("Znum_rel", "301")] == "0.0000"            # equal to the mean, stddev 0
    assert lines[("Znum_rel", "302")] == "-1000000.0000"     # differs from the mean, stddev 0
    assert lines[("Zmap", "303")] == "-1000000.0000"         # not in the file
    assert float(lines[("Zmap", "301")]) == pytest.approx((float(_plain_map_301()) - 0.5) / 0.25, abs=1e-4)


def _plain_map_301() -> str:
    out = subprocess.run([sys.executable, "-m", "core", "evaluate", "-q", "-m", "map", *_qrels_and_run()],
                         capture_output=True, text=True, check=True).stdout
    return next(line.split()[2] for line in out.splitlines() if line.split()[:2] == ["map", "301"])


def test_bad_zscore_file_names_the_line(tmp_path):
    z = tmp_path / "z.txt"
    z.write_text("301 map 0.1 0.2\n301 P_10 high 0.2\n")
    with pytest.raises(UploadError) as e:
        read_zscores(z)
    assert str(e.value).startswith("z.txt, line 2: a z-score line needs 4 fields (qid measure mean stddev) with "
                                   "numbers for mean and stddev, found 4 field(s). Fix the line or remove it")
