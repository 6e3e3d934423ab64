"""What goes wrong with a dataset of ir_datasets, in words: an unknown id (with the close ids), a dataset without the
part asked for, and files that are not on this machine (ir_datasets could not download them, or they must be
downloaded by hand), with what to download and where to put it. Every error is an UploadError about `irds:ID`.
"""
from __future__ import annotations

import difflib
import os
from contextlib import contextmanager

from core.errors import Problem, RankboardError, UploadError

SITE = "https://ir-datasets.com"


def _name(did: str) -> str:
    return f"irds:{did}"


def unknown(did: str, ids: list[str]) -> UploadError:
    close = difflib.get_close_matches(did, ids, n=3, cutoff=0.6)
    tail = did.rstrip("/").rsplit("/", 1)[-1]
    close += [i for i in sorted(ids) if tail and tail in i and i not in close][:3 - len(close)]
    hint = (f"Did you mean {', '.join(close)}? " if close else "") + f"The ids are listed at {SITE}"
    return UploadError(Problem(_name(did), None, "ir_datasets has no dataset with this id", hint))


def lacks(did: str, part: str, children: list[str]) -> UploadError:
    hint = (f"These datasets under it have {part}: {', '.join(children)}" if children
            else f"Choose a dataset with {part} ({SITE} lists what each dataset provides)")
    return UploadError(Problem(_name(did), None, f"the dataset has no {part}", hint))


def nothing_to_load(did: str, has_docs: bool) -> UploadError:
    hint = ("Load its documents (--docs, or the documents box on the Data page), or choose a dataset with qrels or "
            "queries" if has_docs else f"Choose a dataset with qrels or queries ({SITE} lists what each provides)")
    return UploadError(Problem(_name(did), None, "the dataset has no qrels and no queries", hint))


def judged_twice(did: str, qid: str, docno: str, n: int) -> UploadError:
    more = f" (and {n - 1} more pairs)" if n > 1 else ""
    return UploadError(Problem(_name(did), None, f"topic {qid} judges document {docno} more than once{more}",
                               "Rankboard keeps one judgment per topic and document: choose a dataset whose qrels "
                               "judge each pair once"))


def no_text_field(cls: str, fields: list[str]) -> RankboardError:
    return RankboardError(f"ir_datasets' {cls} records ({', '.join(fields)}) have no text field, so Rankboard cannot "
                          "tell which field holds the text. Load this part from a file instead.")


def home() -> str:
    """ir_datasets' folder: IR_DATASETS_HOME, else ~/.ir_datasets."""
    return os.environ.get("IR_DATASETS_HOME") or os.path.join(os.path.expanduser("~"), ".ir_datasets")


@contextmanager
def fetching(did: str, part: str):
    """Reading a part of the dataset: an error from ir_datasets (its files could not be downloaded, or must be
    downloaded by hand) becomes an UploadError that says what to download and where to put it."""
    try:
        yield
    except RankboardError:
        raise
    except Exception as exc:            # noqa: BLE001 - ir_datasets raises what requests, gzip or its parsers raise
        raise unavailable(did, part, exc) from None


def unavailable(did: str, part: str, exc: BaseException) -> UploadError:
    where = _download_of(exc)
    what = f"the dataset's {part} are not on this machine and ir_datasets could not get them ({_short(exc)})"
    urls, path, instructions = where or (None, None, None)
    if where is None:
        hint = (f"Check that ir_datasets can reach the internet, or that its files are under its folder {home()} "
                "(set IR_DATASETS_HOME to move it), then try again")
    elif not urls:
        hint = (f"ir_datasets cannot download them itself. Put the file it needs at {path} (its folder is "
                f"{home()}, set by IR_DATASETS_HOME), then try again" + (f". Its instructions: {instructions}"
                                                                         if instructions else ""))
    else:
        source = urls[0] + (f" (or its mirror {urls[1]})" if len(urls) > 1 else "")
        hint = (f"Download {source} on a machine with network access and save it as {path} (ir_datasets' folder "
                f"is {home()}, set by IR_DATASETS_HOME), then try again")
    return UploadError(Problem(_name(did), None, what, hint))


def _download_of(exc: BaseException):
    """(the URLs, the path ir_datasets reads the file from, its manual instructions) of the download that failed:
    the ir_datasets `Download` (or `LocalDownload`) whose `path()` raised, found in the traceback; None when there
    is none."""
    from ir_datasets.util.download import Download, LocalDownload
    found, tb = None, exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, (Download, LocalDownload)) and not isinstance(found, Download):
            found = owner
        tb = tb.tb_next
    if found is None:
        return None
    mirrors = found.mirrors if isinstance(found, Download) else [found]
    urls = [m.url for m in mirrors if isinstance(getattr(m, "url", None), str)]
    local = [m for m in mirrors if isinstance(m, LocalDownload)]
    cache = getattr(found, "_cache_path", None)
    path = str(cache) if cache else (str(local[0].path(force=False)) if local else None)
    if path is None:
        return None
    instructions = next((getattr(m, "_message", None) for m in local if not urls), None)
    return urls, path, instructions


def _short(exc: BaseException) -> str:
    """The error's kind, and the operating system's words when it has them (a network error's text is a page)."""
    if isinstance(exc, RuntimeError) and len(exc.args) == 2 and isinstance(exc.args[1], list) and exc.args[1]:
        exc = exc.args[1][-1][1]                  # 'All download sources failed': the last source's error
    words = getattr(exc, "strerror", None)
    return type(exc).__name__ + (f": {words}" if words else "")
