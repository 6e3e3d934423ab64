"""Bytes in, whitespace-split lines out, with the original line numbers kept.

Everything here is vectorised with pyarrow: the file is split into lines and fields in C,
and the only Python-level work is per *problem*, never per line.
"""
from __future__ import annotations

import gzip
import os
import re
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from isal import isal_zlib

from core.errors import MAX_PROBLEMS, Problem, UploadError

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Control characters that never occur in a text file (tab, LF, VT, FF, CR are fine).
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
FLOAT_RE = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$"
INT_RE = r"^[+-]?[0-9]{1,9}$"


def source_name(source, filename: str | None) -> str:
    if filename:
        return filename
    if isinstance(source, (str, Path)):
        return Path(source).name
    return getattr(source, "name", None) or "<upload>"


def file_error(path, exc: OSError, file: str | None = None) -> UploadError:
    """A file that cannot be opened, as an UploadError naming the path."""
    what = {FileNotFoundError: "no such file", IsADirectoryError: "this is a folder, not a file",
            PermissionError: "permission denied"}.get(type(exc), exc.strerror or type(exc).__name__)
    return UploadError(Problem(file or Path(path).name, None, f"cannot read {path}: {what}",
                               "Check the path and try again"))


def max_text_bytes() -> int:
    """The largest (decompressed) input accepted: $RANKBOARD_MAX_TEXT_MB megabytes, default 1024."""
    return int(float(os.environ.get("RANKBOARD_MAX_TEXT_MB", "1024")) * (1 << 20))


def max_line_bytes() -> int:
    """The longest line accepted: $RANKBOARD_MAX_LINE_MB megabytes, default 8 (a run line is ~50 bytes)."""
    return int(float(os.environ.get("RANKBOARD_MAX_LINE_MB", "8")) * (1 << 20))


def too_big(file: str, what: str) -> UploadError:
    limit = max_text_bytes()
    return UploadError(Problem(file, None, f"the file {what} more than the limit of {limit >> 20} MB of text",
                               "Split it into smaller files, or raise the limit: set RANKBOARD_MAX_TEXT_MB "
                               f"(now {limit >> 20}) to a larger number of megabytes, if the machine has the "
                               "memory for it"))


def read_source(source, file: str | None = None) -> bytes:
    """Path, bytes, or a file-like object (e.g. a Streamlit UploadedFile) -> raw bytes. An uncompressed file
    larger than the text limit is refused before it is read (a gzip file is checked as it expands)."""
    if isinstance(source, (bytes, bytearray)):
        return source                  # (a bytearray is not copied: nothing writes to it)
    if isinstance(source, memoryview):
        return bytes(source)
    if isinstance(source, (str, Path)):
        try:
            with open(source, "rb") as f:
                head = f.read(2)
                if head != GZIP_MAGIC and os.fstat(f.fileno()).st_size > max_text_bytes():
                    raise too_big(file or Path(source).name, "holds")
                f.seek(0)
                return f.read()        # one buffer of the file's size (head + f.read() would copy it all again)
        except OSError as exc:
            raise file_error(source, exc, file) from None
    if hasattr(source, "getvalue"):
        return bytes(source.getvalue())
    if hasattr(source, "read"):
        return bytes(source.read())
    raise TypeError(f"cannot read {type(source).__name__}; pass a path, bytes or a file object")


CHUNK = 4 << 20
# Gunzip with ISA-L (the isal package): the same bytes as the standard library's zlib, about a third faster
# (benchmarks/PROFILE.md). Plain equivalent: `zlib.decompressobj`; tests/formats/test_formats_fastpath.py compares them.
INFLATE = isal_zlib.decompressobj


def decompress(data: bytes, file: str) -> bytes | bytearray:
    """Gunzip when the gzip magic bytes are present, whatever the file is called; then check the text as it
    comes (screen): binary data and over-long lines are refused within the first megabytes, and a file that
    expands past the text limit (a gzip bomb) is refused when it gets there, so memory stays bounded."""
    return screened(data, file)[0]


def screened(data: bytes, file: str) -> tuple[bytes | bytearray, bytes | None]:
    """(decompress's text, the text's `control_bytes` when it was not gzip-compressed, else None): screen finds
    them on its way, and the fast parsers' `_delimiter` reads them instead of passing over the text again."""
    if not data.startswith(GZIP_MAGIC):
        if len(data) > max_text_bytes():
            raise too_big(file, "holds")
        return data, screen(data, file)
    out, limit, rest = bytearray(), max_text_bytes(), bytes(data)
    try:
        while rest:
            z = INFLATE(wbits=31)                     # one gzip member; concatenated members follow in unused_data
            while True:
                piece = z.decompress(rest, CHUNK)
                rest = z.unconsumed_tail
                start = len(out)
                out += piece
                if len(out) > limit:
                    raise too_big(file, "expands to")
                screen(out, file, start)
                if z.eof or not piece and not rest:
                    break
            if not z.eof:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            rest = z.unused_data
            if rest and not rest.startswith(GZIP_MAGIC):
                break                                 # trailing garbage after the last member: ignored, as gzip does
    except (OSError, EOFError, zlib.error, isal_zlib.error) as exc:
        raise UploadError(Problem(file, None, f"the file looks gzip-compressed but cannot be "
                                  f"decompressed ({exc})", "Upload the complete file, or an uncompressed copy"))
    return out, None    # the bytearray itself (bytes(out) would hold the text twice at the peak); nothing writes to it


_NOT_CONTROL = bytes(b for b in range(256) if b >= 0x20 and b != 0x7f)
_BLANK_CONTROLS = b"\t\n\x0b\x0c\r"     # the control bytes that are not binary: _BINARY is every other one


def control_bytes(data) -> bytes:
    """The control bytes (and DEL) of `data`, in order: one `translate` pass."""
    return data.translate(None, _NOT_CONTROL)


def first_binary(data, controls: bytes) -> int:
    """binary_at(data), told from the control bytes of `data` (control_bytes): `data` is searched only when one
    of them is binary. The text is passed over once for both screen and _delimiter; plain equivalent:
    `binary_at(data)`, a second `translate` pass (0.16 s for a 246 MB run); tests/formats/test_formats_fastpath.py
    compares them."""
    return _BINARY.search(data).start() if controls.translate(None, _BLANK_CONTROLS) else -1


_TEXT_BYTES = bytes(b for b in range(256) if not _BINARY.match(bytes([b])))


def binary_at(data, start: int = 0) -> int:
    """The offset of the first binary byte (see _BINARY) in data[start:], or -1. Plain equivalent:
    `_BINARY.search(data, start)`. One `translate` pass that deletes every text byte is several times faster than
    the regex on a clean file (benchmarks/PROFILE.md); the regex runs only to find a byte that is there."""
    if not (data[start:] if start else data).translate(None, _TEXT_BYTES):
        return -1
    return _BINARY.search(data, start).start()


def screen(data, file: str, start: int = 0) -> bytes | None:
    """Refuse binary data and lines longer than max_line_bytes() in data[start:] (a line may begin before
    `start`), so a wrong or hostile file is refused after its first megabytes, not after it has been parsed.
    Cheap: one regex over the new bytes and one memrchr per window of the line limit. Parquet (binary by
    design) and UTF-16 text (refused with its own message by `decode`) are left alone. Returns the
    `control_bytes` of `data` when it looked at all of it (start 0), else None."""
    if bytes(data[:4]) == PARQUET_MAGIC or bytes(data[:2]) in UTF16_BOMS:
        return None
    controls = None if start else control_bytes(data)
    p = binary_at(data, start) if start else first_binary(data, controls)
    if p >= 0:
        first, last = data.rfind(b"\n", 0, p) + 1, data.find(b"\n", p, p + 200)
        line = bytes(data[first:min(last if last >= 0 else p + 200, first + 200)])
        raise UploadError(Problem(file, data.count(b"\n", 0, p) + 1, f"the file contains binary data "
                                  f"(byte 0x{data[p]:02x}), not text", "Upload a plain-text or gzip-compressed file",
                                  line.decode("utf-8", "replace")))
    longest, end = max_line_bytes(), len(data)
    pos = data.rfind(b"\n", 0, start) + 1 if start else 0
    while end - pos > longest:
        nl = data.rfind(b"\n", pos, pos + longest + 1)     # the last line end within reach of this line's start
        if nl < 0:
            raise too_long_line(file, data.count(b"\n", 0, pos) + 1, bytes(data[pos:pos + 80]))
        pos = nl + 1
    return controls


def too_long_line(file: str, line: int, start: bytes) -> UploadError:
    """Line `line` (which begins with `start`) is longer than the line limit."""
    longest = max_line_bytes()
    return UploadError(Problem(file, line, f"the line is longer than {longest >> 20} MB (this may not be a run, qrels "
                               "or topics file, or its lines are not separated by newlines)",
                               "Check that this is the right file; if its lines really are this long, raise "
                               f"RANKBOARD_MAX_LINE_MB (now {longest >> 20})",
                               start[:80].decode("utf-8", "replace") + "..."))


def line_of(data: bytes, pos: int) -> tuple[int, bytes]:
    """1-based line number of byte offset `pos`, and that line's bytes."""
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return data.count(b"\n", 0, pos) + 1, data[start:end if end >= 0 else len(data)]


_NONSPACE = re.compile(rb"\S")


def empty_file(file: str) -> UploadError:
    return UploadError(Problem(file, None, "the file is empty", "Choose a file with at least one line of data"))


def decode(data: bytes, file: str) -> pa.Array:
    """Reject empty, UTF-16 and non-UTF-8 input (binary data was refused by `screen` as the text was read), naming
    the line; return the text as a one-element arrow string array (no Python str copy of a large file)."""
    if data.startswith(UTF16_BOMS):
        raise UploadError(Problem(file, 1, "the file is UTF-16 text (it starts with a UTF-16 byte order mark), "
                                  "not UTF-8", "Save the file as UTF-8 and upload it again"))
    start = 3 if data.startswith(UTF8_BOM) else 0
    if _NONSPACE.search(data, start) is None:
        raise empty_file(file)
    return utf8_text(data, file, start)


def utf8_text(data: bytes, file: str, start: int = 0) -> pa.Array:
    """data[start:] as a one-element arrow string array; the error names the line of the first byte that is not
    UTF-8."""
    offsets = pa.py_buffer(np.array([start, len(data)], np.int64))
    raw = pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)])
    try:
        return raw.cast(pa.large_string())
    except pa.ArrowInvalid:
        try:  # error path only: find the offending byte
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            n, line = line_of(data, exc.start)
            raise UploadError(Problem(file, n, f"the text is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                                      "Save the file as UTF-8 and upload it again",
                                      line.decode("utf-8", "replace"))) from None
        raise


@dataclass
class Lines:
    """The data lines of a text file: tokens per line plus the 1-based line numbers."""
    file: str
    raw: pa.Array                 # every physical line, trailing '\r' removed (for quoting)
    lineno: np.ndarray            # line number of each data line
    tokens: pa.ListArray          # whitespace-split fields of each data line
    nfields: np.ndarray
    comments: list[str] = field(default_factory=list)   # '#' lines (ir_metadata header)

    def quote(self, lineno: int) -> str:
        return self.raw[lineno - 1].as_py()

    def column(self, i: int, mask: np.ndarray | None = None) -> pa.Array:
        toks = self.tokens if mask is None else self.tokens.filter(pa.array(mask))
        return pc.list_element(toks, i)


def split_lines(text: str | pa.Array, file: str, *, sep: str | None = None,
                max_splits: int | None = None, empty_ok: bool = False) -> Lines:
    """Split into lines, drop blank and '#' lines, split the rest on whitespace (or `sep`). `empty_ok`: a text
    without data lines (a piece of a file) gives empty Lines instead of the error."""
    if isinstance(text, str):
        text = pa.array([text], pa.large_string())
    raw = pc.split_pattern(text, "\n").flatten()
    if pc.any(pc.match_substring(text, "\r")).as_py():     # a copy of every line only when some end in CR
        raw = pc.replace_substring_regex(raw, r"\r$", "")
    trimmed = pc.ascii_trim_whitespace(raw)
    blank = pc.equal(trimmed, "")
    comment = pc.starts_with(trimmed, "#")
    data = pc.invert(pc.or_(blank, comment))
    comments = trimmed.filter(comment).to_pylist()
    lineno = np.flatnonzero(data.to_numpy(zero_copy_only=False)) + 1
    body = trimmed.filter(data)
    del trimmed                  # before the tokens: the largest arrays of the parse are not all held at once
    if body.nbytes < 1 << 31:    # 32-bit offsets for the tokens (one per field: 30M for a 5M-line run)
        body = body.cast(pa.string())
    if sep is None:
        tokens = pc.ascii_split_whitespace(body)
    else:
        tokens = pc.split_pattern(body, sep, max_splits=max_splits)
    nfields = pc.list_value_length(tokens).to_numpy(zero_copy_only=False)
    if len(lineno) == 0 and not empty_ok:
        raise no_data_lines(file)
    return Lines(file, raw, lineno, tokens, nfields, comments)


def no_data_lines(file: str) -> UploadError:
    return UploadError(Problem(file, None, "the file has no data lines, only blank or '#' comment lines",
                               "Choose a file with at least one line of data"))


class Problems:
    """Collects problems from vectorised checks; keeps the first few, counts them all."""

    def __init__(self, file: str, unit: str = "line"):
        self.file, self.unit, self.items, self.total = file, unit, [], 0

    def add(self, line: int | None, message: str, hint: str, quote: str | None = None) -> None:
        self.total += 1
        self.items.append(Problem(self.file, line, message, hint, quote, self.unit))

    def add_many(self, lines: np.ndarray, make) -> None:
        """`make(i)` builds (line, message, hint, quote) for the i-th flagged row; only the first few are built."""
        self.total += len(lines)
        self.items.extend(Problem(self.file, *make(i), unit=self.unit) for i in range(min(len(lines), MAX_PROBLEMS)))

    def merge(self, items: list[Problem], total: int, offset: int = 0) -> None:
        """Add `items`, the first of `total` problems of a piece that follows line `offset`; keep MAX_PROBLEMS."""
        moved = [replace(p, line=p.line + offset) if p.line is not None else p for p in items]
        self.items = sorted(self.items + moved, key=_by_line)[:MAX_PROBLEMS]
        self.total += total

    def raise_if_any(self) -> None:
        if self.total:
            raise UploadError(sorted(self.items, key=_by_line)[:MAX_PROBLEMS], total=self.total)


def _by_line(p: Problem) -> tuple[bool, int]:
    return p.line is None, p.line or 0


def text_lines(source, filename: str | None) -> tuple[str, pa.Array | None, bytes]:
    """(file name, the text as a one-element arrow array (None for Parquet), decompressed bytes)."""
    file = source_name(source, filename)
    data = decompress(read_source(source, file), file)
    return file, (decode(data, file) if not data.startswith(PARQUET_MAGIC) else None), data


EMPTY_PROBE_BYTES = 1 << 16      # an empty file (after gzip) is tiny: only files this small are probed


def is_empty_file(path) -> bool:
    """True when `path` is a file holding nothing but white space (gzip-compressed or not)."""
    if not isinstance(path, (str, Path)):
        return False
    try:
        p = Path(path)
        if p.stat().st_size > EMPTY_PROBE_BYTES:
            return False
        data = p.read_bytes()
        if data.startswith(GZIP_MAGIC):
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    return not data.strip()
