"""A stage-1 provider wrapped to log, for tests that check which provider served which file."""
from __future__ import annotations


def logged(provider, calls: list):
    """`provider`, appending (its name, whether it served) to `calls` on every call."""
    def run(src, options):
        got = provider(src, options)
        calls.append((provider.__name__, got is not None))
        return got
    run.__name__ = provider.__name__
    return run
