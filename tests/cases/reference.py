"""The reference data under tests/reference/ (sources and licences in tests/reference/README.md). Every file there is
gzip-compressed; Rankboard's readers detect gzip by content, so a test passes the path as it is, and reads the text
itself with `reference_text` or `reference_bytes`.

    from tests.cases.reference import reference_file, reference_text

    qrels = reference_file("trec_eval_test/qrels.test.gz")

A file that is absent fails the test (never skips it), naming the path relative to the repository.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "reference"
DATA = ROOT / "data"                  # the sample collections the product ships (not reference data)

ROBUST = "trectools_robust03"
ROBUST_RUNS = ["InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "THUIRr0301", "UAmsT03RDesc",
               "UIUC03Rd1", "VTcdhgp1", "aplrob03a", "fub03IeOLKe3", "humR03dc", "oce03noXbmD", "pircRBa1",
               "rutcor03100", "uic0301", "uwmtCR0"]          # the 17 TREC 2003 Robust runs, in byte order
ROBUST_QRELS = f"{ROBUST}/robust03_qrels.txt.gz"


def reference_file(name: str) -> Path:
    """The path of tests/reference/`name`; fails the test when there is no such file."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.fail(f"reference file missing: {path.relative_to(ROOT)} (tests/reference/README.md says where "
                    "each file comes from)", pytrace=False)
    return path


def reference_bytes(name: str) -> bytes:
    """The content of tests/reference/`name`, gunzipped."""
    return gzip.decompress(reference_file(name).read_bytes())


def reference_text(name: str) -> str:
    return reference_bytes(name).decode("utf-8")


def robust_run(name: str) -> Path:
    """One of the 17 Robust 2003 runs, by its run tag (e.g. "MU03rob01")."""
    return reference_file(f"{ROBUST}/runs/input.{name}.gz")


def robust_runs() -> list[Path]:
    return [robust_run(name) for name in ROBUST_RUNS]
