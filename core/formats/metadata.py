"""The ir_metadata header of a run (https://www.ir-metadata.org): '#'-prefixed YAML lines.

We keep the raw header text and read its nested `key: value` mappings and `- item` lists
with a small indentation parser (no YAML dependency). Anything we cannot read stays in `header`.
"""
from __future__ import annotations

import re

from core.formats._text import UTF8_BOM

_KEY = re.compile(r"^(\s*)([^:#\s][^:]*):\s*(.*)$")   # greedy, so linear time; the name is stripped
_ITEM = re.compile(r"^(\s*)-\s+(.*)$")


def _scalar(text: str):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_ir_metadata(comments: list[str]) -> dict:
    """'#' comment lines -> {'header': raw text, <nested keys>...}; {} when there are none."""
    if not comments:
        return {}
    body = [re.sub(r"^#\s?", "", c) for c in comments]
    body = [b for b in body if b.strip() not in ("ir_metadata.start", "ir_metadata.end", "---", "...")]
    result: dict = {"header": "\n".join(comments)}
    stack: list[tuple[int, dict | list]] = [(-1, result)]
    for i, line in enumerate(body):
        if not line.strip():
            continue
        item, key = _ITEM.match(line), _KEY.match(line)
        indent = len((item or key).group(1)) if (item or key) else 0
        while len(stack) > 1 and indent <= stack[-1][0]:
            stack.pop()
        parent = stack[-1][1]
        if item and isinstance(parent, list):
            parent.append(_scalar(item.group(2)))
        elif key and isinstance(parent, dict):
            name, value = key.group(2).strip(), key.group(3)
            if name == "header":
                continue
            if value.strip():
                parent[name] = _scalar(value)
            else:
                child: dict | list = [] if _next_is_item(body, i) else {}
                parent[name] = child
                stack.append((indent, child))
    return result


def _next_is_item(body: list[str], i: int) -> bool:
    nxt = next((line for line in body[i + 1:] if line.strip()), "")
    return _ITEM.match(nxt) is not None


def leading_header(head: bytes) -> tuple[int, dict] | None:
    """(length in bytes, ir_metadata) of the '#' comment lines (and blank lines among them) that open a run, as
    the whole-file parser reads them (parse_ir_metadata); (0, {}) when the run opens with a data line; None
    when the header is not UTF-8 or runs past `head`. A '#' line further down makes the pieces decline the run,
    which is then read whole."""
    pos, comments = (3 if head.startswith(UTF8_BOM) else 0), []      # after a UTF-8 byte order mark
    while (end := head.find(b"\n", pos)) >= 0:
        line = head[pos:end].strip()           # the whole-file parser trims the same ASCII blanks (and the CR)
        if line and not line.startswith(b"#"):
            break
        if line:
            comments.append(line)
        pos = end + 1
    else:
        return None if comments else (0, {})
    if not comments:
        return 0, {}
    try:
        return pos, parse_ir_metadata([c.decode("utf-8") for c in comments])
    except UnicodeDecodeError:
        return None
