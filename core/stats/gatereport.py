"""The frozen `Gate` value that `core.stats.gate.gate` returns, and its formats: text for a terminal, a Markdown table
for a pull request, JSON records, and a JUnit XML report (one test case per measure) for CI systems."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass

from core.stats.comparison import TEST_NAMES, aligned, fmt

GATE_FIELDS = ("measure", "n_queries", "baseline_mean", "new_mean", "delta", "ci_low", "ci_high", "p_value",
               "p_corrected", "max_drop", "expected", "verdict", "reasons")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")   # characters XML 1.0 cannot hold


@dataclass(frozen=True)
class GateRow:
    measure: str
    n_queries: int              # topics paired between the new run and the baseline
    baseline_mean: float | None
    new_mean: float | None
    delta: float | None         # mean of (new - baseline) over the paired topics
    ci_low: float | None        # 95% CI of delta (t interval under the t-test, else a seeded bootstrap)
    ci_high: float | None
    p_value: float | None
    p_corrected: float | None
    max_drop: float             # a significant drop must be larger than this to fail
    expected: float | None      # the expect file's value, if any
    verdict: str                # "OK" or "FAIL"
    reasons: tuple[str, ...]    # why it failed (empty when OK)


@dataclass(frozen=True)
class Gate:
    rows: tuple[GateRow, ...]
    new: str
    baseline: str
    test: str
    correction: str
    alpha: float
    tolerance: float | None     # the expect file's tolerance, if one was given
    ci_method: str
    missing_note: str

    @property
    def failed(self) -> list[str]:
        return [r.measure for r in self.rows if r.verdict == "FAIL"]

    @property
    def passed(self) -> bool:
        return not self.failed

    def legend(self) -> str:
        corr = "no correction" if self.correction == "none" else f"{self.correction} correction"
        return (f"{self.new} against {self.baseline}: {TEST_NAMES[self.test]}, {corr} over {len(self.rows)} "
                f"measure(s), alpha {self.alpha:g}; 95% CI of the delta: {self.ci_method}. A measure fails when "
                f"the new run is significantly worse and drops more than its max drop"
                + (f", or when its mean is more than {self.tolerance:g} from the expected value." if self.tolerance
                   is not None else "."))

    def summary(self) -> str:
        if self.passed:
            return f"OK: all {len(self.rows)} measure(s) pass."
        return f"FAIL: {', '.join(self.failed)}."

    def to_records(self) -> list[dict]:
        return [{**asdict(r), "reasons": list(r.reasons)} for r in self.rows]

    def to_json(self) -> str:
        return json.dumps({"new": self.new, "baseline": self.baseline, "test": self.test,
                           "correction": self.correction, "alpha": self.alpha, "tolerance": self.tolerance,
                           "passed": self.passed, "failed": self.failed, "rows": self.to_records()}, indent=1)

    def _cells(self, r: GateRow, digits: int = 4) -> list[str]:
        ci = "-" if r.ci_low is None else f"[{fmt(r.ci_low, digits)}, {fmt(r.ci_high, digits)}]"
        return [r.measure, fmt(r.baseline_mean, digits), fmt(r.new_mean, digits), _signed(r.delta, digits), ci,
                fmt(r.p_value, digits), fmt(r.p_corrected, digits), r.verdict]

    HEADER = ("measure", "baseline", "new", "delta", "95% CI", "p", "p corrected", "verdict")

    def to_text(self) -> str:
        lines = aligned(list(self.HEADER), 1, [self._cells(r) for r in self.rows])
        lines += [f"  {r.measure}: {why}" for r in self.rows for why in r.reasons]
        return "\n".join(lines + [self.legend(), self.missing_note, self.summary()]) + "\n"

    def to_markdown(self) -> str:
        head = "| " + " | ".join(self.HEADER) + " |"
        rule = "|" + "|".join(["---"] + ["---:"] * (len(self.HEADER) - 2) + [":---:"]) + "|"
        body = []
        for r in self.rows:
            cells = self._cells(r)
            cells[0] = _md(cells[0])
            cells[-1] = "✅ OK" if r.verdict == "OK" else "❌ **FAIL**"
            body.append("| " + " | ".join(cells) + " |")
        notes = [f"- {_md(r.measure)}: {_md(why)}" for r in self.rows for why in r.reasons]
        return "\n".join([f"**{_md(self.summary())}**", "", head, rule, *body, "", *notes,
                          *([""] if notes else []), _md(self.legend())]) + "\n"

    def to_junit(self) -> str:
        """JUnit XML: one testsuite, one testcase per measure; a FAIL is a <failure> with its reasons."""
        suite = ET.Element("testsuite", name=_xml(f"rankboard check {self.new}"), tests=str(len(self.rows)),
                           failures=str(len(self.failed)), errors="0", skipped="0")
        for r in self.rows:
            case = ET.SubElement(suite, "testcase", classname=_xml(f"rankboard.check.{self.new}"),
                                 name=_xml(r.measure), time="0")
            detail = " ".join(f"{h}={c}" for h, c in zip(self.HEADER[1:-1], self._cells(r)[1:-1]))
            if r.verdict == "FAIL":
                failure = ET.SubElement(case, "failure", message=_xml("; ".join(r.reasons)), type="regression")
                failure.text = _xml(detail)
            else:
                ET.SubElement(case, "system-out").text = _xml(detail)
        root = ET.Element("testsuites", tests=str(len(self.rows)), failures=str(len(self.failed)))
        root.append(suite)
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _signed(v, digits: int) -> str:
    return "-" if v is None else f"{v:+.{digits}f}"


def _md(text: str) -> str:
    """Text in a Markdown table cell: pipes, backslashes and markup characters escaped, no line breaks."""
    text = re.sub(r"([\\`*_{}\[\]<>|#])", r"\\\1", str(text))
    return text.replace("\n", " ").replace("\r", " ")


def _xml(text: str) -> str:
    """Text XML 1.0 can hold: its forbidden control characters written as \\xNN (ElementTree escapes the rest)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


__all__ = ["Gate", "GateRow", "GATE_FIELDS"]
