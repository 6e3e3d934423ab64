"""Issue 27 points 3 and 4 in Debian's chromium: faults of the machine reach a visitor in plain words, with no path,
process id, version or traceback (the server's log has those), and the server keeps the project's settings
whatever folder it is started from.

- a store whose folder cannot be written: every page renders, read-only, and says so;
- an upload whose spool folder is missing, or full, and one that fills the store's disk (which gets its space back);
- `streamlit run <repo>/dashboard/app.py` and `python -m dashboard` started from another folder listen on 127.0.0.1
  only, show no Deploy button, and an error on a page shows no traceback.

Running as root, a folder without write permission is still writable: that server runs under `unshare -U`. A full
disk is a small tmpfs, which only root can mount: without one those tests are skipped.
"""
from __future__ import annotations

import gzip
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.errors import StoreReadOnlyError
from core.store.faults import DISK_FULL_PUBLIC, SPOOL_BROKEN_PUBLIC, SPOOL_FULL_PUBLIC
from dashboard.session.serverlog import PUBLIC_ERROR
from tests.e2e.conftest import ROOT, App, Server
from tests.fixtures_store import sample_store

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("e2e")]
UI_WAIT_MS = 120_000
PAGES = ["", "per-query", "curves", "agreement", "judges", "data", "measures"]
VIEW = "collection=robust03-sample&baseline=pircRBa1&run=aplrob03a&measure=AP&query=303"
QIDS = sorted({line.split()[0] for line in gzip.decompress(
    (ROOT / "data" / "qrels.robust03.txt.gz").read_bytes()).decode().splitlines()})


class Launched(Server):
    """A Server started by a command of the test's choosing, from a folder of its choosing."""

    def __init__(self, workdir: Path, cmd: list[str], *, cwd: Path = ROOT, env: dict | None = None):
        super().__init__(workdir, env=env)
        self.cmd = [c.replace("{port}", str(self.port)) for c in cmd]
        self.cwd = cwd

    def start(self) -> None:
        import urllib.request
        env = dict(os.environ, RANKBOARD_STORE=str(self.store), PYTHONUNBUFFERED="1")
        env.update(self.env)
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=env, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._fail(f"the server exited with code {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        self._fail("/_stcore/health did not answer")

    def log(self) -> str:
        return self.stderr.read_text(errors="replace") + self.stdout.read_text(errors="replace")


def streamlit_run(port_flag: bool = True) -> list[str]:
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"), "--server.port", "{port}"]
    return cmd + (["--server.address", "127.0.0.1"] if port_flag else [])


def unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") and subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-U"]
    pytest.skip("running as root without `unshare -U`: a folder cannot be made read-only for the server")


@pytest.fixture
def disk(tmp_path):
    mounted = []

    def make(megabytes: int) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(where)],
                              capture_output=True, text=True) if os.geteuid() == 0 else None
        if done is None or done.returncode:
            pytest.skip("a small tmpfs cannot be mounted here (it needs root)")
        mounted.append(where)
        return where

    yield make
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def no_server_details(app, server, *extra: str) -> None:
    """The page shows none of the server's paths, its process id, a version or a traceback."""
    text = app.page.locator("body").inner_text()
    for secret in (str(server.workdir), str(server.store), "Traceback", "Errno", f"{server.proc.pid}",
                   sys.version.split()[0], "streamlit/", "site-packages", *extra):
        assert secret not in text, (secret, text[:2000])
    expect(app.page.get_by_test_id("stException")).to_have_count(0)


def big_run(path: Path, docs: int, gz: bool) -> Path:
    rnd = random.Random(3)
    text = "".join(f"{q} Q0 d{rnd.randrange(10 ** 9):09d}x{r} {r + 1} {1000 - r * 0.01:.3f} big\n"
                   for q in QIDS for r in range(docs)).encode()
    path.write_bytes(gzip.compress(text, 1) if gz else text)
    return path


def upload(app, path: Path) -> str:
    """Load one run on the Data page as an editor; the outcome's words."""
    app.goto("/data?collection=robust03-sample")
    app.key("data_runs_files").locator('input[type="file"]').set_input_files(str(path))
    expect(app.key("data_runs_files").get_by_text(path.name, exact=True)).to_be_visible(timeout=UI_WAIT_MS)
    app.rerun_after(app.key("data_runs_load").locator("button").click)
    outcome = app.page.get_by_test_id("stAlert").filter(has_text=path.name)
    expect(outcome.first).to_be_visible(timeout=UI_WAIT_MS)
    expect(app.page.get_by_test_id("stCode").first).to_be_visible(timeout=UI_WAIT_MS)   # the words come after it
    app.wait_idle()
    return app.page.locator("body").inner_text()


def test_a_store_in_a_folder_that_cannot_be_written_is_read_on_every_page(tmp_path, new_context):
    work = tmp_path / "srv"
    work.mkdir()
    folder = work / "store"
    folder.mkdir()
    sample_store(folder, "store.duckdb").close()
    for lock in folder.glob("store.duckdb.*"):
        lock.unlink()
    folder.chmod(0o555)
    server = Launched(work, unprivileged() + streamlit_run(), env={"RANKBOARD_STORE": str(folder / "store.duckdb")})
    server.store = folder / "store.duckdb"
    server.start()
    try:
        app = App(new_context().new_page(), server, "read_only_store")
        for path in PAGES:
            app.goto(f"/{path}?{VIEW}")
            expect(app.page.get_by_role("heading").first).to_be_visible(timeout=UI_WAIT_MS)
            expect(app.page.locator('[data-testid="stSidebar"]').get_by_text(
                StoreReadOnlyError.public)).to_be_visible()
            assert app.page.locator('[data-testid="stFileUploader"]').count() == 0
            no_server_details(app, server)
        assert not app.errors
        assert f"{folder}/store.duckdb: the store is read-only: its folder {folder} is not writable" in server.log()
    finally:
        server.stop()
        folder.chmod(0o755)
    assert sorted(p.name for p in folder.iterdir()) == ["store.duckdb"]


@pytest.mark.parametrize("fault", ["missing spool folder", "full spool folder", "full store disk"])
def test_an_upload_that_meets_a_fault_says_so_without_server_details(tmp_path, new_context, disk, fault):
    work = tmp_path / "srv"
    work.mkdir()
    sample_store(work, "store.duckdb").close()         # made here: the server would spool the sample's runs too
    env = {"RANKBOARD_STREAM_MIN_MB": "0.1"}
    if fault == "missing spool folder":
        env["RANKBOARD_SPOOL_DIR"] = str(tmp_path / "no-such-spool")
        run, public = ROOT / "data" / "runs" / "input.humR03dc.gz", SPOOL_BROKEN_PUBLIC
    elif fault == "full spool folder":
        env["RANKBOARD_SPOOL_DIR"] = str(disk(4))
        run, public = big_run(tmp_path / "big.run.gz", 8000, gz=True), SPOOL_FULL_PUBLIC
    else:
        where = disk(16)
        sample_store(where, "store.duckdb").close()
        env = {"RANKBOARD_STORE": str(where / "store.duckdb")}
        run, public = big_run(tmp_path / "big.run", 6000, gz=False), DISK_FULL_PUBLIC
    server = Launched(work, streamlit_run(), env=env)
    if fault == "full store disk":
        server.store = where / "store.duckdb"
        before, size = shutil.disk_usage(where).free, server.store.stat().st_size
    server.start()
    try:
        app = App(new_context().new_page(), server, fault.replace(" ", "_"))
        text = upload(app, run)
        assert f"{run.name} was not loaded; nothing from it was stored." in text
        words = " | ".join(app.page.get_by_test_id("stCode").all_inner_texts())
        assert public in text.replace("\n", " "), (words, server.log()[-3000:])
        no_server_details(app, server, env.get("RANKBOARD_SPOOL_DIR", "no such"))
        assert not app.errors
        if fault == "full store disk":     # the space is given back when the server lets go of the file
            deadline = time.monotonic() + 60
            while server.store.stat().st_size != size and time.monotonic() < deadline:
                time.sleep(0.5)
            journal = sum(-(-p.stat().st_size // 4096) * 4096 for p in where.glob("store.duckdb.uploads/*"))
            assert server.store.stat().st_size == size      # all but the upload journal's entry (one page)
            assert shutil.disk_usage(where).free >= before - journal - 4096
            assert f"{server.store}: the disk holding the store is full" in server.log()
        else:
            assert f"{env['RANKBOARD_SPOOL_DIR']} (RANKBOARD_SPOOL_DIR)" in server.log()
    finally:
        server.stop()


@pytest.mark.parametrize("how", ["streamlit run /abs/path/dashboard/app.py", "python -m dashboard"])
def test_started_from_another_folder_it_keeps_the_projects_settings(tmp_path, new_context, how):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".streamlit").mkdir(parents=True)       # a folder with settings of its own: ours win
    (elsewhere / ".streamlit" / "config.toml").write_text('[server]\naddress = "0.0.0.0"\n'
                                                          '[client]\nshowErrorDetails = "full"\n')
    if how.startswith("streamlit"):
        cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"), "--server.port", "{port}"]
        env = {"RANKBOARD_THREADS": "two"}                # an error on every page: int("two")
    else:
        cmd = [sys.executable, "-m", "dashboard", "--server.port", "{port}"]
        env = {"PYTHONPATH": str(ROOT)}
    server = Launched(tmp_path, cmd, cwd=elsewhere, env=env)
    server.start()
    try:
        assert listening(server.port) == ["127.0.0.1"]
        app = App(new_context().new_page(), server, how.split()[0])
        app.goto("/")
        expect(app.page.get_by_test_id("stAppDeployButton")).to_have_count(0)
        if how.startswith("streamlit"):
            expect(app.page.get_by_text(PUBLIC_ERROR)).to_be_visible(timeout=UI_WAIT_MS)
            no_server_details(app, server, "ValueError", "invalid literal")
            assert "ValueError" in server.log() and "Traceback" in server.log()
        else:
            expect(app.page.get_by_role("heading", name="Leaderboard")).to_be_visible(timeout=UI_WAIT_MS)
            app.assert_healthy()
        assert "Collecting usage statistics" not in server.log()
    finally:
        server.stop()


def listening(port: int) -> list[str]:
    """The local addresses on which something listens on `port` (from /proc/net/tcp and tcp6)."""
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hexport = local.split(":")
            if state == "0A" and int(hexport, 16) == port:
                found.append(_address(address, width))
    return sorted(found)


def _address(hexed: str, width: int) -> str:
    import ipaddress
    raw = bytes.fromhex(hexed)
    if width == 8:
        return str(ipaddress.IPv4Address(raw[::-1]))
    return str(ipaddress.IPv6Address(b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))))
