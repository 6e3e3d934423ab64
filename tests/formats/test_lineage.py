"""core/formats/lineage.py: the reserved metadata keys, `key=value` texts with exact messages, and how a run's
ir_metadata header maps to lineage and cost."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import OptionError, UploadError
from core.formats import read_run
from core.formats.lineage import (COST_KEYS, META_KEYS, NUMERIC_COST_KEYS, check_value, from_header, parse_pair,
                                  parse_pairs)


def test_the_registry_declares_each_reserved_key_once_with_its_type_and_direction():
    assert list(META_KEYS) == ["system", "version", "timestamp", "latency_ms", "index_gb", "cost_usd", "energy_kwh",
                               "gpu"]
    assert COST_KEYS == ("latency_ms", "index_gb", "cost_usd", "energy_kwh", "gpu")
    assert NUMERIC_COST_KEYS == ("latency_ms", "index_gb", "cost_usd", "energy_kwh")
    for key in NUMERIC_COST_KEYS:
        assert META_KEYS[key].better == "lower"
        check_value(key, META_KEYS[key].example)         # each example is a valid value
    assert META_KEYS["gpu"].better is None and META_KEYS["gpu"].kind == "text"


@pytest.mark.parametrize("text, want", [
    ("latency_ms=12.5", ("latency_ms", "12.5")),
    ("latency_ms= 3 ", ("latency_ms", "3")),
    ("gpu=", ("gpu", "")),                                     # an empty value removes the key
    ("note=a=b", ("note", "a=b")),                             # the first '=' splits
    ("timestamp=2026-11-27T10:00:00+01:00", ("timestamp", "2026-11-27T09:00:00")),   # in UTC, without a zone
    ("timestamp=2026-11-27", ("timestamp", "2026-11-27T00:00:00")),
    ("retriever.model=splade-v3", ("retriever.model", "splade-v3")),
])
def test_pairs_are_split_and_checked(text, want):
    assert parse_pair(text) == want


@pytest.mark.parametrize("text, message", [
    ("latency", "--meta 'latency' is not key=value. Write it as KEY=VALUE, e.g. --meta latency_ms=12.5 "
                "(an empty value, latency_ms=, removes the key)."),
    ("=3", "--meta '=3' is not key=value. Write it as KEY=VALUE, e.g. --meta latency_ms=12.5 "
           "(an empty value, latency_ms=, removes the key)."),
    ("latency_ms=fast", "latency_ms must be a number (mean latency per query, in milliseconds), not 'fast'. "
                        "Write it as a plain number, e.g. latency_ms=12.5."),
    ("cost_usd=nan", "cost_usd must be a number (money spent to produce the run, in US dollars), not 'nan'. "
                     "Write it as a plain number, e.g. cost_usd=3.10."),
    ("timestamp=yesterday", "timestamp must be an ISO 8601 date or time, not 'yesterday'. "
                            "Write it as e.g. timestamp=2026-11-27T09:30:00."),
    ("my key=1", "'my key' is not a metadata key: a key starts with a letter or '_' and holds only letters, digits, "
                 "'_', '.' and '-' (at most 64 characters). Rename it, e.g. latency_ms or retriever.model."),
    ("run=bm25", "'run' cannot be a metadata key: every run already has a column of that name (run, run_id, "
                 "uploaded_at). Rename it, e.g. run_label."),
    ("run_id=7", "'run_id' cannot be a metadata key: every run already has a column of that name (run, run_id, "
                 "uploaded_at). Rename it, e.g. run_id_label."),
])
def test_bad_pairs_say_what_is_wrong_and_how_to_fix_it(text, message):
    with pytest.raises(OptionError) as err:
        parse_pair(text)
    assert str(err.value) == message


def test_a_later_pair_wins():
    assert parse_pairs(["version=1", "version=2", "gpu=A100"]) == {"version": "2", "gpu": "A100"}


HEADER = b"""# ir_metadata.start
# tag: bm25-run
# method:
#   name: bm25
# implementation:
#   source:
#     repository: https://example.org/bm25
#     commit: 4f2a9c1
# platform:
#   hardware:
#     gpu:
#       model: NVIDIA A100
# cost:
#   latency_ms: 12.5
#   energy_kwh: 0.25
# meta:
#   k1: 0.9
#   stemmer: porter
# ir_metadata.end
1 Q0 d1 1 2.0 bm25-run
"""


def test_the_usual_ir_metadata_fields_map_to_lineage_and_cost():
    run = read_run(HEADER, filename="bm25.run")
    assert from_header(run.metadata, "bm25.run") == {
        "system": "bm25", "version": "4f2a9c1", "latency_ms": "12.5", "energy_kwh": "0.25", "gpu": "NVIDIA A100",
        "k1": "0.9", "stemmer": "porter"}


def test_a_top_level_key_wins_over_a_nested_one():
    text = HEADER.replace(b"# tag: bm25-run\n", b"# system: bm25-prf\n# version: v7\n# latency_ms: 40\n")
    got = from_header(read_run(text, filename="r").metadata, "r")
    assert (got["system"], got["version"], got["latency_ms"]) == ("bm25-prf", "v7", "40")


def test_a_header_without_lineage_gives_nothing():
    assert from_header(read_run(b"# just a comment\n1 Q0 d1 1 2.0 t\n", filename="r").metadata, "r") == {}
    assert from_header({}, "r") == {}


def test_a_bad_header_value_names_the_file_the_field_and_quotes_the_line():
    text = HEADER.replace(b"latency_ms: 12.5", b"latency_ms: fast")
    meta = read_run(text, filename="bm25.run").metadata
    with pytest.raises(UploadError) as err:
        from_header(meta, "bm25.run")
    assert str(err.value) == ("bm25.run: the ir_metadata header's cost.latency_ms is 'fast', not a number (mean "
                              "latency per query, in milliseconds). Write it as e.g. latency_ms: 12.5.\n"
                              "    '#   latency_ms: fast'")
    assert "latency_ms" not in from_header(meta, "bm25.run", lenient=True)      # an upgrade skips it
    assert from_header(meta, "bm25.run", lenient=True)["system"] == "bm25"


def test_a_bad_free_key_in_the_header_is_refused():
    meta = read_run(HEADER.replace(b"#   k1: 0.9", b"#   k 1: 0.9"), filename="r").metadata
    with pytest.raises(UploadError) as err:
        from_header(meta, "r")
    assert str(err.value) == ("r: the ir_metadata header's meta: key 'k 1' is not a metadata key. Use only letters, "
                              "digits, '_', '.' and '-' in it.\n    '#   k 1: 0.9'")


def test_a_free_key_that_names_a_column_of_every_run_is_refused():
    meta = read_run(HEADER.replace(b"#   k1: 0.9", b"#   uploaded_at: yesterday"), filename="r").metadata
    with pytest.raises(UploadError) as err:
        from_header(meta, "r")
    assert str(err.value) == ("r: the ir_metadata header's meta: key 'uploaded_at' names a column every run already "
                              "has (run, run_id, uploaded_at). Rename it, e.g. uploaded_at_label.\n"
                              "    '#   uploaded_at: yesterday'")
    assert "uploaded_at" not in from_header(meta, "r", lenient=True)         # a store's upgrade skips it


def test_docs_formats_lists_every_key_as_the_registry_declares_it():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text()
    kinds = {"text": "text", "number": "number", "timestamp": "ISO 8601"}
    for spec in META_KEYS.values():
        paths = ", ".join(f"`{p}`" for p in spec.header)
        row = f"| `{spec.name}` | {kinds[spec.kind]} | {spec.meaning} | {paths} | {spec.better or ''} |"
        assert row.replace("|  |", "| |") in doc, row


@settings(max_examples=100, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.datetimes(timezones=st.none() | st.timezones()))
def test_numbers_and_timestamps_round_trip(number, when):
    assert parse_pair(f"cost_usd={number!r}") == ("cost_usd", repr(number))
    key, stored = parse_pair(f"timestamp={when.isoformat()}")
    assert parse_pair(f"timestamp={stored}") == (key, stored)             # stored once, stored the same again
    assert datetime.fromisoformat(stored) == (when if when.tzinfo is None else
                                              when.astimezone(timezone.utc).replace(tzinfo=None))
