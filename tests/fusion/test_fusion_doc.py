"""docs/fusion.md is generated from the fusion registry: it must equal core.fusion.reference.markdown()."""
from __future__ import annotations

import difflib
from pathlib import Path

from core.fusion import METHODS, NORMS, reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "fusion.md"


def test_fusion_doc_is_generated_from_the_registry():
    expected = reference.markdown()
    actual = DOC.read_text() if DOC.exists() else ""
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                                 "docs/fusion.md", "reference.markdown()"))[:40])
        raise AssertionError(f"docs/fusion.md is out of date. Regenerate it: {reference.COMMAND}\n{diff}")


def test_the_reference_names_every_method_and_normalisation():
    text = reference.markdown()
    for method in METHODS:
        assert f"\n### {method.name}\n" in text and method.reference in text
    for norm in NORMS:
        assert f"| `{norm.name}` |" in text
