"""Reaching a Dask cluster for core.distributed.driver: an existing scheduler, or a local cluster of one worker per core.

dask and distributed are optional (requirements-dist.txt) and imported here only when a cluster is asked for, so
`core` imports without them.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from core.errors import EvalError

CONNECT_TIMEOUT = float(os.environ.get("RANKBOARD_DASK_TIMEOUT", "10"))     # seconds to reach a scheduler


def require_dask():
    """The `distributed` module, or a clear error saying how to install it."""
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError as exc:
        raise EvalError(f"The Dask engine needs the packages dask and distributed, which are not installed "
                        f"({exc.msg}). Install them with `pip install -r requirements-dist.txt`, "
                        "or leave out --engine dask to evaluate in this process.") from None
    return distributed


@contextmanager
def client_for(scheduler=None, workers: int | None = None):
    """A distributed.Client: `scheduler` is a Client (used as it is), an address such as tcp://host:8786 or a
    scheduler file (*.json), or None for a local cluster of `workers` processes (default: one per core) of one
    thread each, closed on exit."""
    distributed = require_dask()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler:
        with connect(distributed, str(scheduler)) as client:
            yield client
        return
    cluster = distributed.LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                       processes=True, dashboard_address=None, silence_logs=40)
    with cluster, distributed.Client(cluster) as client:
        yield client


def connect(distributed, address: str):
    kwargs = {"scheduler_file": address} if address.endswith(".json") else {"address": address}
    try:
        return distributed.Client(timeout=CONNECT_TIMEOUT, **kwargs)
    except (OSError, TimeoutError, ValueError) as exc:
        raise EvalError(f"Cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT:g} s ({exc}). "
                        "Check that `dask scheduler` runs there and the port is open, or leave out --scheduler "
                        "to start a local cluster.") from None


def wait(client, futures, progress=None) -> None:
    """Block until every future is done (the first error is raised by the caller's gather), telling
    `progress(done, total)` as tasks finish."""
    from distributed import as_completed

    tell = progress or (lambda done, total: None)
    tell(0, len(futures))
    for done, _ in enumerate(as_completed(futures), 1):
        tell(done, len(futures))


def stderr_progress(done: int, total: int) -> None:
    """"dask: N of M tasks done" on stderr: rewritten in place on a terminal, else a line per tenth of the tasks."""
    if sys.stderr.isatty():
        print(f"\rdask: {done} of {total} tasks done", end="\n" if done == total else "", file=sys.stderr, flush=True)
    elif done == total or (done and done * 10 // total != (done - 1) * 10 // total):
        print(f"dask: {done} of {total} tasks done", file=sys.stderr, flush=True)


def add_engine_arguments(p) -> None:
    """--engine, --scheduler, --workers, --split and --bucket-topics, shared by `evaluate` and `compare`."""
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: this process (default); dask: a Dask cluster (pip install -r requirements-dist.txt)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="Dask scheduler address (tcp://host:8786) or scheduler file (*.json); implies --engine dask. "
                        "Without it, --engine dask starts a local cluster of one worker per core")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="workers of the local cluster (default: one per core)")
    p.add_argument("--split", choices=("run", "topic"), default="run",
                   help="dask: one task per run file (default), or tasks of --bucket-topics topics across the runs "
                        "(for a run too large for one worker)")
    p.add_argument("--bucket-topics", type=int, default=300, metavar="N",
                   help="dask --split topic: qrels topics per task (default 300)")


def use_dask(args) -> bool:
    return args.engine == "dask" or bool(args.scheduler)


def dask_kwargs(args) -> dict:
    """evaluate_distributed's keyword arguments from the parsed engine options."""
    return {"scheduler": args.scheduler, "workers": args.workers, "split": args.split,
            "per_bucket": args.bucket_topics, "progress": stderr_progress}
