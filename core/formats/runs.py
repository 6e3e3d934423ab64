"""Run files: TREC 6-column, MS MARCO 3-column TSV, CSV/TSV with a header, and Parquet.

The file's rank column is ignored (as trec_eval does); the canonical rank is computed by the store.
MS MARCO runs carry no score, so score = -rank, which preserves their order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.formats._fast import fast_run, unique
from core.formats._table import open_columns
from core.formats._checks import check_duplicates, check_ids, check_values, field_problem, quoter, to_number
from core.formats._text import FLOAT_RE, INT_RE, Lines, Problems, read_source, screened, source_name
from core.formats.metadata import parse_ir_metadata

TREC_FIELDS = "qid Q0 docno rank score tag"
MSMARCO_FIELDS = "qid docno rank"


@dataclass
class ParsedRun:
    table: pa.Table                       # qid (string), docno (string), score (double)
    tag: str | None = None
    metadata: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    format: str = "trec"

    @property
    def n_rows(self) -> int:
        return self.table.num_rows


def read_run(source, *, filename: str | None = None) -> ParsedRun:
    """Parse a run file (path, bytes or file object); raise UploadError listing what is wrong (a document
    repeated within a topic included: the fast path declines such a file and the tolerant parser names the lines)."""
    return _read(source, filename, True)[0]


def read_run_unchecked(path, *, filename: str | None = None) -> tuple[ParsedRun, Callable[[], None]]:
    """(the run, `confirm`): read_run of the file at `path`, except that a clean file's duplicate check is left to
    `confirm()`, which raises what read_run raises for a document repeated within a topic. Until it has returned,
    the run is provisional; the caller makes the check while it works on the run (stage 1's `confirmed`)."""
    run, unchecked = _read(path, filename, False)

    def confirm() -> None:
        if unchecked is not None and not unique(unchecked, ["qid", "docno"]):
            _tolerant(path, source_name(path, filename), None)     # names the repeated lines

    return run, confirm


def _read(source, filename: str | None, check: bool) -> tuple[ParsedRun, pa.Table | None]:
    """(the run, its table when the duplicate check is still to be made: `check` False and the fast path read it)."""
    file = source_name(source, filename)
    raw = read_source(source, file)
    text, controls = screened(raw, file)
    box = [text]
    del text
    if isinstance(source, (str, Path)):
        raw = None          # read again if the fast path declines, so its bytes are freed once parsed
    fast = fast_run(box, controls, check=check)
    if fast is not None:
        table, tags, fmt = fast
        return build_run(table, tags, None, {}, fmt), None if check else table
    del box
    return _tolerant(source, file, raw), None


def _tolerant(source, file: str, raw) -> ParsedRun:
    """The tolerant parser's reading of the run, which reports every problem."""
    if raw is None:
        raw = read_source(source, file)
    src = open_columns(raw, file, ("score", "rank"), "run")
    file, problems, lines, meta = src.file, src.problems, src.lines, parse_ir_metadata(src.comments)
    if src.values is not None:
        return _finish(file, src.values, src.lineno, problems, lines, src.fmt, meta)
    msmarco = is_msmarco(lines.tokens[0].as_py())
    values, lineno, extra = line_values(lines, msmarco, problems)
    run = _finish(file, values, lineno, problems, lines, "msmarco" if msmarco else "trec", meta)
    if len(extra):
        run.warnings.append(extra_fields_warning(len(extra), int(extra[0])))
    return run


def is_msmarco(first: list[str]) -> bool:
    """Whether a run whose first data line has the fields `first` is an MS MARCO run (qid, docno, rank)."""
    return len(first) == 3 and re.fullmatch(INT_RE, first[2]) is not None


def line_values(lines: Lines, msmarco: bool, problems: Problems) -> tuple[dict, np.ndarray, np.ndarray]:
    """(the run's columns from the lines with enough fields, their line numbers, the line numbers of TREC lines
    with more than 6 fields); lines with too few fields are reported to `problems`."""
    bad = (lines.nfields != 3) if msmarco else (lines.nfields < 6)    # trec_eval ignores extra TREC fields
    bl, counts = lines.lineno[bad], lines.nfields[bad]
    problems.add_many(bl, lambda i: field_problem(int(bl[i]), int(counts[i]), lines.quote(int(bl[i])), "run",
                                                  MSMARCO_FIELDS if msmarco else TREC_FIELDS,
                                                  _looks_like(lines.quote(int(bl[i])), int(counts[i]))))
    good = ~bad
    if msmarco:
        values = {"qid": lines.column(0, good), "docno": lines.column(1, good), "rank": lines.column(2, good)}
    else:
        values = {"qid": lines.column(0, good), "docno": lines.column(2, good),
                  "score": lines.column(4, good), "tag": lines.column(5, good)}
    extra = lines.lineno[lines.nfields > 6] if not msmarco else np.empty(0, np.int64)
    return values, lines.lineno[good], extra


def extra_fields_warning(n: int, first: int) -> str:
    return (f"{n} line{'s' if n != 1 else ''} (first: line {first}) {'have' if n != 1 else 'has'} more than 6 "
            "fields; the extra fields were ignored, as trec_eval does.")


def _looks_like(quote: str, count: int) -> tuple[str, str] | None:
    parts = quote.split()
    if count == 4 and re.fullmatch(INT_RE, parts[-1]) and re.fullmatch(INT_RE, parts[1]):  # qid iter docno rel
        return "a qrels file", "Upload it as qrels instead"
    return None


def _finish(file, values, lineno, problems: Problems, lines: Lines | None, fmt, meta) -> ParsedRun:
    table, mask = checked(values, lineno, problems, lines)
    # The hashed check (`unique`) says "no repeat" in a fraction of the exact grouping's time and memory (~1.5 s and
    # ~900 MB for 4.9M lines); only a run with a repeat pays for the grouping that names its lines. Plain
    # equivalent: check_duplicates alone (tests/formats/test_formats_fastpath.py compares the two).
    if not unique(table, ["qid", "docno"]):
        good = mask.to_numpy(zero_copy_only=False)
        check_duplicates(table, ["qid", "docno"], lineno[good], problems, REPEATED,
                         REPEATED_HINT, quoter(lines))
    problems.raise_if_any()
    return build_run(table, values.get("tag"), mask, meta, fmt)


REPEATED, REPEATED_HINT = "appears twice", "trec_eval refuses duplicate documents; remove one of the lines"


def checked(values, lineno, problems: Problems, lines: Lines | None) -> tuple[pa.Table, pa.Array]:
    """(qid, docno, score of the rows whose ids and score are usable; the mask of those rows), every other row
    reported to `problems`. No duplicate check."""
    quote = quoter(lines)
    ids_ok = check_ids(values, lineno, problems, "run", quote)
    scored, score = _scores(values, lineno, problems, quote)
    good = scored & ids_ok
    mask = pa.array(good)
    table = pa.table({"qid": values["qid"].filter(mask).cast(pa.string()),
                      "docno": values["docno"].filter(mask).cast(pa.string()),
                      "score": score.filter(pa.array(ids_ok[scored]))})
    return table, mask


def _scores(values, lineno, problems: Problems, quote) -> tuple[np.ndarray, pa.Array]:
    """(mask of rows with a usable score, their scores as doubles); MS MARCO runs score -rank."""
    if "score" not in values:
        good = check_values(values["rank"], lineno, INT_RE, problems, "rank '{}' is not a whole number",
                            "Use ranks 1, 2, 3, ... (the score is derived from the rank)", quote)
        return good, pc.negate(to_number(values["rank"].filter(pa.array(good)), pa.float64()))
    good = check_values(values["score"], lineno, FLOAT_RE, problems, "score '{}' is not a number",
                        "Use a decimal number such as 12.5, -3 or 1.2e-3", quote)
    score = to_number(values["score"].filter(pa.array(good)), pa.float64())
    inf = ~np.isfinite(score.to_numpy(zero_copy_only=False))
    il = lineno[good][inf]
    problems.add_many(il, lambda i: (int(il[i]), "score is too large to represent",
                                     "Use a score between -1e308 and 1e308", quote(il[i])))
    good[np.flatnonzero(good)[inf]] = False
    return good, score.filter(pa.array(~inf))


def build_run(table, tags, mask, meta, fmt) -> ParsedRun:
    """The ParsedRun of `table`. `tags`: column 6, every line's (`mask`: the good ones) or, from a reader that
    keeps only the distinct ones, any sequence of them that ends with the last line's. The run is named by the last
    line's tag, as trec_eval names it (get_trec_results.c keeps the run_id of the last line for its runid line)."""
    warnings, tag = [], None
    if isinstance(tags, list):
        tags = pa.chunked_array(tags, pa.string())
    if tags is not None:
        kept = tags if mask is None else tags.filter(mask)
        uniq = pc.unique(kept).to_pylist()
        tag = kept[len(kept) - 1].as_py() if len(kept) else None
        if len(uniq) > 1:
            shown = ", ".join(uniq[:5]) + (", ..." if len(uniq) > 5 else "")
            warnings.append(f"The run has {len(uniq)} different tags in column 6 ({shown}); using '{tag}', the "
                            "last line's, as trec_eval does.")
    if tag is None:
        tag = meta.get("tag") if isinstance(meta.get("tag"), str) else None
    return ParsedRun(table, tag, meta, warnings, fmt)
