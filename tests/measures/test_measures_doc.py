"""docs/measures.md is generated from the measure registry: it must equal core.measures.reference.markdown()."""
from __future__ import annotations

import difflib
from pathlib import Path

from core.measures import REGISTRY, reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "measures.md"


def test_measures_doc_is_generated_from_the_registry():
    expected = reference.markdown()
    actual = DOC.read_text() if DOC.exists() else ""
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                                 "docs/measures.md", "reference.markdown()"))[:40])
        raise AssertionError(f"docs/measures.md is out of date. Regenerate it: {reference.COMMAND}\n{diff}")


def test_the_reference_names_every_family_and_difference():
    text = reference.markdown()
    for family in REGISTRY:
        assert f"\n### {family.name}\n" in text
    assert "## Sets" in text and "`all_trec`" in text and "## Where a number differs" in text
