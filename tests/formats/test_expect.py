"""core.formats.expect: the expect file of `check --expect` is flat YAML; it reads as PyYAML reads it, and every bad
line is named."""
from __future__ import annotations

import pytest
import yaml

from core.errors import UploadError
from core.formats.expect import parse_expect, read_expect

GOOD = """# BM25 on Robust04
tolerance: 0.0005   # how far a mean may be
AP: 0.2531
"nDCG@10": 0.4240
'P(rel=2)@10': 1e-1
map_cut_100: -0
R@1000: 0.7
"""


def test_a_flat_file_reads_as_yaml_reads_it():
    expect = parse_expect(GOOD, "e.yaml")
    loaded = yaml.safe_load(GOOD)
    assert expect.tolerance == loaded.pop("tolerance")
    assert expect.values == {k: float(v) for k, v in loaded.items()}
    assert list(expect.values) == ["AP", "nDCG@10", "P(rel=2)@10", "map_cut_100", "R@1000"]


def test_read_expect_names_the_file(tmp_path):
    path = tmp_path / "anserini.yaml"
    path.write_text(GOOD)
    assert read_expect(path).file == "anserini.yaml" and read_expect(path).values["AP"] == 0.2531


@pytest.mark.parametrize("text, words", [
    ("tolerance: 0.1\nAP: high\n", "e.yaml, line 2: the value of 'AP' is not a number."),
    ("tolerance: 0.1\nAP:\n  value: 0.2\n", "e.yaml, line 2: the value of 'AP' is not a number."),
    ("tolerance: 0.1\nAP: 0.2\n  nested: 1\n", "e.yaml, line 3: not a `name: value` line at the top level."),
    ("tolerance: 0.1\n- AP\n", "e.yaml, line 2: not a `name: value` line"),
    ("tolerance: 0.1\nAP: 0.2\nAP: 0.3\n", "e.yaml, line 3: the measure 'AP' is empty or given twice."),
    ("tolerance: -1\nAP: 0.2\n", "e.yaml, line 1: the tolerance is given twice or is negative."),
    ("tolerance: 0.1\ntolerance: 0.2\nAP: 0.2\n", "e.yaml, line 2: the tolerance is given twice"),
    ("AP: 0.2\n", "e.yaml: there is no `tolerance:` line. Add one, e.g. `tolerance: 0.0005`"),
    ("tolerance: 0.1\n", "e.yaml: no measure has an expected value."),
    ("tolerance: 0.1\nAP: nan\n", "the value of 'AP' is not a number"),
])
def test_every_bad_line_is_named(text, words):
    with pytest.raises(UploadError) as err:
        parse_expect(text, "e.yaml")
    assert words in str(err.value)


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_bytes(b"tolerance: 0.1\nAP: \xff\n")
    with pytest.raises(UploadError, match="e.yaml: the file is not UTF-8 text"):
        read_expect(path)
