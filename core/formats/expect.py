"""Expected scores for the regression gate (`python -m core check --expect FILE`), as Anserini's regressions keep
them: one `measure: value` line per measure and one `tolerance: value` line. The file is flat YAML (a mapping of
names to numbers), read here without a YAML library:

    # BM25 on Robust04, expected means
    tolerance: 0.0005
    AP: 0.2531
    "nDCG@10": 0.4240

Blank lines and `#` comments are skipped; a name may be quoted with ' or ". Anything else (nesting, lists, a value
that is not a number, a name given twice) is a problem of the file, reported as `<file>, line <n>: ...`."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from core.errors import Problem, UploadError

TOLERANCE = "tolerance"
_LINE = re.compile(r"""^(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<plain>[^\s#"'][^:#]*?))\s*:\s*(?P<value>[^#]*?)\s*(?:#.*)?$""")
_HINT = "Write one `measure: value` line per measure and one `tolerance: value` line, e.g. `AP: 0.2531`"


@dataclass(frozen=True)
class Expectations:
    values: dict[str, float]      # measure name as written -> expected mean
    tolerance: float              # a mean further than this from its expected value fails
    file: str


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_expect(text: str, file: str) -> Expectations:
    """Expectations from the text of an expect file; an UploadError naming every bad line."""
    values, tolerance, problems = {}, None, []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line) if not raw[:1].isspace() else None
        if match is None:
            problems.append(Problem(file, n, "not a `name: value` line at the top level", _HINT, raw))
            continue
        name = next(g for g in (match["dq"], match["sq"], match["plain"]) if g is not None).strip()
        value = _number(match["value"])
        if value is None:
            problems.append(Problem(file, n, f"the value of {name!r} is not a number", _HINT, raw))
        elif name == TOLERANCE:
            if tolerance is not None or value < 0:
                problems.append(Problem(file, n, "the tolerance is given twice or is negative",
                                        "Give one `tolerance:` line with a number of 0 or more", raw))
            tolerance = value
        elif not name or name in values:
            problems.append(Problem(file, n, f"the measure {name!r} is empty or given twice", "Give each once", raw))
        else:
            values[name] = value
    if not problems and tolerance is None:
        problems.append(Problem(file, None, "there is no `tolerance:` line",
                                "Add one, e.g. `tolerance: 0.0005` (how far a mean may be from its expected value)"))
    if not problems and not values:
        problems.append(Problem(file, None, "no measure has an expected value", _HINT))
    if problems:
        raise UploadError(problems)
    return Expectations(values, float(tolerance), file)


def read_expect(path) -> Expectations:
    """Expectations from an expect file (UTF-8 text)."""
    file = Path(str(path)).name
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UploadError(Problem(file, None, "the file is not UTF-8 text", _HINT)) from None
    return parse_expect(text, file)


__all__ = ["Expectations", "parse_expect", "read_expect", "TOLERANCE"]
