"""The reference data in tests/reference: what a missing file says, that every file is gzip-compressed, and that the
README names every folder."""
from __future__ import annotations

import gzip

import pytest

from tests.cases import reference
from tests.cases.reference import REFERENCE, ROOT, reference_bytes, reference_file

HINT = "(tests/reference/README.md says where each file comes from)"


def test_a_missing_reference_file_fails_naming_its_path_in_the_repository():
    with pytest.raises(pytest.fail.Exception) as info:
        reference_file("trec_eval_test/no-such-file.gz")
    assert str(info.value) == f"reference file missing: tests/reference/trec_eval_test/no-such-file.gz {HINT}"


def test_a_file_that_is_gone_fails_the_test_and_does_not_skip_it(monkeypatch):
    monkeypatch.setattr(reference, "REFERENCE", ROOT / "tests" / "reference-moved")
    with pytest.raises(pytest.fail.Exception) as info:
        reference_bytes("trec_eval_test/qrels.test.gz")
    assert str(info.value) == f"reference file missing: tests/reference-moved/trec_eval_test/qrels.test.gz {HINT}"
    assert not isinstance(info.value, pytest.skip.Exception)


def test_a_folder_is_not_a_reference_file():
    with pytest.raises(pytest.fail.Exception) as info:
        reference_file("trectools_robust03/runs")
    assert str(info.value) == f"reference file missing: tests/reference/trectools_robust03/runs {HINT}"


def test_every_reference_file_is_gzip_compressed():
    files = sorted(p for p in REFERENCE.rglob("*") if p.is_file() and p.name != "README.md")
    assert len(files) > 100
    bad = []
    for path in files:
        with open(path, "rb") as raw:
            magic = raw.read(2)
        if magic != b"\x1f\x8b" or not path.name.endswith(".gz"):
            bad.append(str(path.relative_to(ROOT)))
            continue
        with gzip.open(path) as text:
            text.read(64)
    assert not bad, f"not gzip-compressed, or not named .gz: {bad}"


def test_the_readme_names_every_folder():
    readme = (REFERENCE / "README.md").read_text()
    folders = sorted(p.name for p in REFERENCE.iterdir() if p.is_dir())
    assert folders == ["anserini_tools", "crowdtruth_core17", "irds", "kappa_reference", "llmjudge", "trec_eval_test",
                       "treccast", "trectools_robust03"]
    assert [f for f in folders if f"| `{f}/" not in readme] == []
