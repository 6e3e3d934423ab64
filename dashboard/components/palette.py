"""One colour per run, the same in every chart: a stable hash of the run name picks a slot."""
from __future__ import annotations

import hashlib

# Distinct, saturated colours that stay readable on a washed-out projector.
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#1b1f5e", "#7f7f7f", "#6b0f1a", "#0b6e4f", "#f2b701", "#5f3dc4", "#c2185b",
    "#00a5a5", "#a0522d", "#4d7c0f", "#fb6a4a", "#3a86ff", "#000000",
)
POSITIVE = "#1a9850"   # better than the baseline
NEGATIVE = "#d73027"   # worse than the baseline
NEUTRAL = "#9ca3af"


def _slot(name: str) -> int:
    return int.from_bytes(hashlib.sha1(name.encode("utf-8")).digest()[:4], "big") % len(PALETTE)


def run_colors(names) -> dict[str, str]:
    """Map every run name of a collection to a colour; names are placed in sorted order and a
    taken slot moves to the next free one, so colours are deterministic and distinct (up to 22)."""
    taken: dict[int, str] = {}
    out: dict[str, str] = {}
    for name in sorted(set(map(str, names))):
        slot = _slot(name)
        for step in range(len(PALETTE)):
            cand = (slot + step) % len(PALETTE)
            if cand not in taken:
                slot = cand
                break
        taken.setdefault(slot, name)
        out[name] = PALETTE[slot]
    return out
