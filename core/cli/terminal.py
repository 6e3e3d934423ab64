"""What the command line prints to a terminal: stored names (run, collection, assessor names, file names) are
text from users, so control characters in them are shown escaped (`\x1b`, `\u202e`), never sent to the terminal,
where an escape sequence could move the cursor, recolour or hide text, or retitle the window. Output to a pipe or
a file is left exactly as it is (scripts read it).

Kept as they are: line feeds and tabs, and a carriage return that starts a write (the progress bars' own)."""
from __future__ import annotations

import re
import sys

# C0 and C1 controls (but tab and line feed), DEL, and the invisible format characters that reorder or hide text
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def escape(text: str) -> str:
    """`text` with every control character written as its Python escape (a leading carriage return kept)."""
    lead = "\r" if text.startswith("\r") else ""
    body = text[len(lead):]
    return lead + _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), body)


class Escaping:
    """A text stream that escapes control characters on their way to a terminal."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape(text))
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def protect() -> None:
    """Wrap stdout and stderr when they are terminals (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, Escaping) and _is_tty(stream):
            setattr(sys, name, Escaping(stream))


def _is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
