"""A run's lineage and cost: the reserved metadata keys, declared once, and where their values come from.

Every run may carry `key=value` metadata (stored in the store's `run_meta` table). The keys in `META_KEYS` are
reserved: each says what it means, what type its value has (text, a number, an ISO 8601 timestamp), where it is
read in a run's ir_metadata header, and, for a cost, which direction is better. Any other key is free text. The
command line's `load --meta`, the `meta` command, the Data page, docs/formats.md and the Leaderboard's cost columns
all read this table.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone

from core.errors import OptionError, Problem, UploadError

KEY_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
TAKEN = ("run", "run_id", "uploaded_at")    # columns every run has in Store.lineage's frame: no key may take them
MAX_VALUE_CHARS = 1000


@dataclass(frozen=True)
class MetaKey:
    name: str
    kind: str                      # "text", "number" or "timestamp"
    meaning: str
    example: str
    header: tuple[str, ...] = ()   # dotted paths in an ir_metadata header, the first one present wins
    cost: bool = False             # shown beside effectiveness (Leaderboard cost columns, Cost tab)
    better: str | None = None      # "lower" or "higher": which direction of a numeric cost is better


META_KEYS: dict[str, MetaKey] = {k.name: k for k in (
    MetaKey("system", "text", "the system the run is a version of", "bm25-rm3",
            header=("system", "method.name")),
    MetaKey("version", "text", "the system's version: a commit, a tag or a number", "v1.2",
            header=("version", "implementation.source.commit", "implementation.source.version")),
    MetaKey("timestamp", "timestamp", "when the run was made (default: when it was loaded)",
            "2026-11-27T09:30:00", header=("timestamp", "date")),
    MetaKey("latency_ms", "number", "mean latency per query, in milliseconds", "12.5",
            header=("latency_ms", "cost.latency_ms"), cost=True, better="lower"),
    MetaKey("index_gb", "number", "size of the index, in gigabytes", "4.2",
            header=("index_gb", "cost.index_gb"), cost=True, better="lower"),
    MetaKey("cost_usd", "number", "money spent to produce the run, in US dollars", "3.10",
            header=("cost_usd", "cost.cost_usd"), cost=True, better="lower"),
    MetaKey("energy_kwh", "number", "energy used to produce the run, in kilowatt-hours", "0.8",
            header=("energy_kwh", "cost.energy_kwh"), cost=True, better="lower"),
    MetaKey("gpu", "text", "the GPU used, by model", "NVIDIA A100",
            header=("gpu", "cost.gpu", "platform.hardware.gpu.model"), cost=True),
)}
LINEAGE_KEYS = ("system", "version", "timestamp")
COST_KEYS = tuple(k.name for k in META_KEYS.values() if k.cost)
NUMERIC_COST_KEYS = tuple(k.name for k in META_KEYS.values() if k.cost and k.kind == "number")
FREE_SECTION = "meta"     # a header's `meta:` mapping holds free keys


def check_key(key: str) -> str:
    """A metadata key as given; raises OptionError when it is not a name."""
    if not KEY_PATTERN.match(key or ""):
        raise OptionError(f"'{key}' is not a metadata key: a key starts with a letter or '_' and holds only letters, "
                          "digits, '_', '.' and '-' (at most 64 characters). Rename it, e.g. latency_ms or "
                          "retriever.model.")
    if key in TAKEN:
        raise OptionError(f"'{key}' cannot be a metadata key: every run already has a column of that name "
                          f"({', '.join(TAKEN)}). Rename it, e.g. {key}_label.")
    return key


def check_value(key: str, value: str) -> str:
    """The value to store for `key` (a number or a timestamp normalised); raises OptionError naming the key, the value
    and the fix."""
    value = str(value).strip()
    spec = META_KEYS.get(key)
    if len(value) > MAX_VALUE_CHARS:
        raise OptionError(f"The value of {key} has {len(value)} characters, more than {MAX_VALUE_CHARS}. "
                          "Shorten it, or keep the long text elsewhere and store a link.")
    if spec is None or spec.kind == "text" or not value:
        return value
    if spec.kind == "number":
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise OptionError(f"{key} must be a number ({spec.meaning}), not '{value}'. "
                              f"Write it as a plain number, e.g. {key}={spec.example}.")
        return value
    return _timestamp(key, value, spec)


def _timestamp(key: str, value: str, spec: MetaKey) -> str:
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise OptionError(f"{key} must be an ISO 8601 date or time, not '{value}'. "
                          f"Write it as e.g. {key}={spec.example}.") from None
    if when.tzinfo is not None:              # stored in UTC without a zone, so that all timestamps compare
        when = when.astimezone(timezone.utc).replace(tzinfo=None)
    return when.isoformat()


def parse_pair(text: str, *, option: str = "--meta", example: str | None = None) -> tuple[str, str]:
    """`key=value` -> (key, checked value); an empty value (`key=`) removes the key. Raises OptionError, which
    names `option` (where the text came from) and gives `example` (default: `<option> latency_ms=12.5`)."""
    key, eq, value = str(text).partition("=")
    if not eq or not key.strip():
        example = example or f"{option} latency_ms=12.5"
        raise OptionError(f"{option} '{text}' is not key=value. Write it as KEY=VALUE, e.g. "
                          f"{example} (an empty value, latency_ms=, removes the key).")
    key = check_key(key.strip())
    return key, check_value(key, value)


def parse_pairs(texts, *, option: str = "--meta", example: str | None = None) -> dict[str, str]:
    """Several `key=value` texts -> {key: value}; a later one wins."""
    return dict(parse_pair(t, option=option, example=example) for t in texts or ())


def _at(metadata: dict, path: str):
    node = metadata
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) and node.strip() else None


def from_header(metadata: dict, file: str, *, lenient: bool = False) -> dict[str, str]:
    """The metadata a run's ir_metadata header gives (core.formats.metadata.parse_ir_metadata's dict): each reserved
    key from the first of its `header` paths present, and the free keys of a top-level `meta:` mapping. A value
    of the wrong type raises UploadError quoting the header line; `lenient` leaves such a value out instead (a
    store being upgraded keeps every run it has)."""
    found, paths = {}, {}
    for spec in META_KEYS.values():
        path = next((p for p in spec.header if _at(metadata, p) is not None), None)
        if path is not None:
            found[spec.name], paths[spec.name] = _at(metadata, path), path
    free = metadata.get(FREE_SECTION)
    if isinstance(free, dict):
        for key, value in free.items():
            if isinstance(value, str) and value.strip() and key not in found:
                found[key], paths[key] = value, f"{FREE_SECTION}.{key}"
    checked = {}
    for key, value in found.items():
        try:
            checked[key] = check_value(check_key(key), value)
        except OptionError as exc:
            if not lenient:
                raise _header_problem(metadata, file, key, paths[key], value) from exc
    return checked


def _header_problem(metadata: dict, file: str, key: str, path: str, value: str) -> UploadError:
    name = path.rsplit(".", 1)[-1]
    spec = META_KEYS.get(key)
    if spec is None and not KEY_PATTERN.match(key):
        what = (f"the ir_metadata header's {FREE_SECTION}: key '{key}' is not a metadata key",
                "Use only letters, digits, '_', '.' and '-' in it")
    elif spec is None and key in TAKEN:
        what = (f"the ir_metadata header's {FREE_SECTION}: key '{key}' names a column every run already has "
                f"({', '.join(TAKEN)})", f"Rename it, e.g. {key}_label")
    elif spec is None:
        what = f"the ir_metadata header's {path} is longer than {MAX_VALUE_CHARS} characters", "Shorten it"
    else:
        wanted = "a number" if spec.kind == "number" else "an ISO 8601 time"
        what = (f"the ir_metadata header's {path} is '{value}', not {wanted} ({spec.meaning})",
                f"Write it as e.g. {name}: {spec.example}")
    return UploadError(Problem(file, None, *what, quote=_line(metadata, name)))


def _line(metadata: dict, name: str) -> str | None:
    """The header line that sets `name` (to quote in a message)."""
    sets = re.compile(r"^#\s*" + re.escape(name) + r"\s*:")
    return next((line for line in str(metadata.get("header", "")).splitlines() if sets.match(line)), None)
