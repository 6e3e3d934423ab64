"""The only errors the rest of Rankboard catches.

Every message follows `<file>, line <n>: <what is wrong>. <what to do>` and quotes the line,
so that a user can fix the file without opening a debugger.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_PROBLEMS = 20


class RankboardError(Exception):
    """Base class: pages and the CLI catch this and show its text as-is."""


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    message: str
    hint: str = ""
    quote: str | None = None
    unit: str = "line"                  # "row" for Parquet files, which have rows, not lines

    def __str__(self) -> str:
        where = f"{self.file}, {self.unit} {self.line}" if self.line is not None else self.file
        text = f"{where}: {self.message.rstrip('.')}."
        if self.hint:
            text += f" {self.hint.rstrip('.')}."
        if self.quote is not None:
            quoted = self.quote if len(self.quote) <= 200 else self.quote[:200] + "..."
            text += f"\n    {quoted!r}"
        return text


class UploadError(RankboardError):
    """One or more problems in an uploaded file. Nothing was written to the store."""

    def __init__(self, problems: list[Problem] | Problem, total: int | None = None):
        if isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        super().__init__(self.render())

    def __reduce__(self):
        """Pickled with its problems (a Dask task's error reaches the driver as the same exception and text)."""
        return (type(self), (self.problems, self.total))

    def render(self) -> str:
        shown = self.problems[:MAX_PROBLEMS]
        lines = [str(p) for p in shown]
        more = self.total - len(shown)
        if more > 0:
            lines.append(f"...and {more} more")
        return "\n".join(lines)


class EvalError(RankboardError):
    """Bad evaluation request: unknown run, bad option value, and so on."""


class OptionError(EvalError, ValueError):
    """A bad option value (e.g. on_conflict='merge'); also a ValueError for callers that catch that."""


class UnknownMeasureError(EvalError):
    """A measure name the registry does not know; the message suggests close names."""


class StoreError(RankboardError):
    """The store file itself cannot be used. `public` is what a dashboard visitor is shown: it names no path,
    process or interpreter (the full message goes to the server's log)."""

    public = "Rankboard cannot open its store right now. The details are in the server's log."


class StoreBusyError(StoreError):
    """The store stayed in use by another process for longer than the wait allowed."""

    public = ("The store is busy: another process (a command-line load, a pipeline) has been using it for "
              "a while. Try again in a moment.")


class StoreDamagedError(StoreError):
    """The store file is damaged (truncated, overwritten, not a DuckDB file)."""

    public = ("This store file is damaged, so Rankboard cannot read it. Nothing was changed. Ask whoever runs "
              "this dashboard to restore the last good copy or to start a new store (the server's log says how).")


class ServerFault(StoreError):
    """The machine, not the data: a read-only store, a full disk, a spool folder that is missing, full or not
    writable (core/store/faults.py words them). The message names the folder and what to do; `public` says the
    same without a path, for a dashboard visitor."""

    public = ("The server ran into a problem with its disk, so nothing was stored. Ask whoever runs this dashboard "
              "to look at the server's log.")

    def __init__(self, message: str, public: str | None = None):
        super().__init__(message)
        if public is not None:
            self.public = public

    def __reduce__(self):
        return (type(self), (str(self), self.public))


class StoreReadOnlyError(ServerFault):
    """The store can be read but not written: its file or folder is not writable, or its disk is read-only."""

    public = ("The store is read-only: nothing can be changed from this dashboard. Whoever runs it can make the "
              "store file and its folder writable, then restart the dashboard.")
