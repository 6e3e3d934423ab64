"""Playwright harness for the end-to-end flows: one `streamlit run dashboard/app.py` per module on a
free port and a fresh temporary store, driven by Debian's chromium at the projector size (1280x720).

- Screenshots (`App.shot`) go to `screenshots/` in the server's temporary folder (pytest keeps the last three
  runs' temporary folders); a failed test's report names the folder.
- The server runs in its own process group; teardown stops it by PID (terminate, wait, kill).
- `/usr/bin/chromium` missing is a FAILURE, never a skip (CI installs it with apt-get).
- Browsers are never downloaded (no `playwright install`).
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 720}
HEALTH_TIMEOUT_S = 90
UI_TIMEOUT_MS = 90_000


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 80) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:]) or "<empty>"
    except OSError:
        return "<no output>"


class Server:
    def __init__(self, workdir: Path, args: tuple[str, ...] = (), env: dict | None = None,
                 launcher: tuple[str, ...] = ("-m", "streamlit")):
        """`args`: more `streamlit run` options; `env`: more environment variables for the server; `launcher`: what
        the interpreter runs before `run dashboard/app.py ...` (a `-c` program that prepares the process, then calls
        streamlit's command line)."""
        self.workdir, self.args, self.env, self.launcher = workdir, tuple(args), dict(env or {}), tuple(launcher)
        self.store = workdir / "store.duckdb"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stdout = workdir / "streamlit.stdout"
        self.stderr = workdir / "streamlit.stderr"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, RANKBOARD_STORE=str(self.store), PYTHONUNBUFFERED="1", **self.env)
        cmd = [sys.executable, *self.launcher, "run", "dashboard/app.py",
               "--server.headless", "true", "--server.port", str(self.port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", *self.args]
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._fail(f"streamlit exited with code {self.proc.returncode} before /_stcore/health answered")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as resp:
                    if resp.status == 200:
                        return
                    last = f"HTTP {resp.status}"
            except (urllib.error.URLError, OSError) as exc:
                last = repr(exc)
            time.sleep(0.5)  # poll interval of a bounded wait
        self.stop()
        self._fail(f"/_stcore/health did not answer 200 within {HEALTH_TIMEOUT_S}s (last: {last})")

    def _fail(self, why: str) -> None:
        pytest.fail(f"{why}\nurl {self.url}, store {self.store}\n--- streamlit stderr ---\n{_tail(self.stderr)}"
                    f"\n--- streamlit stdout ---\n{_tail(self.stdout)}", pytrace=False)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)

    def logs(self) -> str:
        return f"--- streamlit stderr ---\n{_tail(self.stderr)}\n--- streamlit stdout ---\n{_tail(self.stdout)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("e2e_streamlit"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Debian's chromium is missing at {CHROMIUM}: install it with "
                    "`apt-get install -y --no-install-recommends chromium` (never `playwright install`).",
                    pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# Counts finished script runs: every change of stApp's data-test-script-state away from "running",
# read from the mutation records (oldValue), so a quick run whose "running" and "notRunning" land in
# one observer callback is still counted. Helpers wait for "the rerun my action caused has finished"
# instead of racing its start.
_RUN_COUNTER_JS = """
(() => {
  window.__e2eRuns = 0;
  const obs = new MutationObserver((records) => {
    for (const r of records) {
      if (r.attributeName === 'data-test-script-state' && r.oldValue === 'running'
          && r.target.getAttribute('data-testid') === 'stApp') window.__e2eRuns += 1;
    }
  });
  obs.observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                         attributeFilter: ['data-test-script-state']});
})();
"""

_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  if (status && status.offsetParent !== null && status.innerText.trim() !== '') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
  if (document.querySelector('[data-testid="stSpinner"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  return true;
}"""


class App:
    """A Playwright page on the app, with Streamlit-aware waits and screenshot helpers."""

    def __init__(self, page, server: Server, slug: str):
        self.page, self.server, self.slug = page, server, slug
        self.errors: list[str] = []
        self.n_shots = 0
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def goto(self, path: str = "/") -> None:
        self.page.goto(self.server.url + path)
        self.page.wait_for_selector('[data-testid="stApp"]')
        self.page.wait_for_function("() => window.__e2eRuns >= 1")
        self.wait_idle()

    def wait_idle(self) -> None:
        self.page.wait_for_function(_IDLE_JS, polling=100)

    def reopen(self, context, url: str, suffix: str) -> "App":
        """The page at `url` (a copied link) in another browser context, once its first run is done."""
        other = type(self)(context.new_page(), self.server, self.slug + suffix)
        other.page.goto(url)
        other.page.wait_for_selector('[data-testid="stApp"]')
        other.page.wait_for_function("() => window.__e2eRuns >= 1")
        other.wait_idle()
        return other

    def settled(self, read, want, timeout_s: float = 30.0):
        """`read()` once the app is idle and the value equals `want`; after `timeout_s`, the last value read (the
        caller's assert then shows it). A freshly opened page can rerun again after its first idle moment (the
        URL sync), so one read right after `wait_idle` may catch the state in between."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.wait_idle()
            got = read()
            if got == want or time.monotonic() > deadline:
                return got
            self.page.wait_for_timeout(200)

    def rerun_after(self, action) -> None:
        before = self.page.evaluate("() => window.__e2eRuns")
        action()
        self.page.wait_for_function(f"() => window.__e2eRuns > {before}")
        self.wait_idle()

    def key(self, key: str):
        return self.page.locator(f".st-key-{key}")

    def combobox(self, key: str):
        return self.key(key).locator('input[role="combobox"]')

    def choose(self, key: str, option_text: str) -> None:
        """Pick an option of a keyed selectbox (a combobox): click, type, Enter; waits for the rerun."""
        box = self.combobox(key)
        assert box.input_value() != option_text, f"{key} already shows {option_text!r}: no rerun would follow"
        self.open_list(key)
        box.fill(option_text)
        self.page.locator('[role="listbox"] [role="option"]').filter(has_text=option_text).first.wait_for()
        self.rerun_after(lambda: box.press("Enter"))

    def selected(self, key: str) -> str:
        """The value a keyed selectbox shows (the combobox input's value)."""
        return self.combobox(key).input_value()

    def tags(self, key: str) -> list[str]:
        """The chosen values of a keyed multiselect, in order (its tags)."""
        return [t.get_attribute("aria-label") for t in self.key(key).locator("[data-tag]").all()]

    def open_list(self, key: str):
        """Open a keyed selectbox's option list (retried: a click during an expander's animation
        can miss) and return the listbox locator."""
        from playwright.sync_api import TimeoutError as PWTimeout

        listbox = self.page.locator('[role="listbox"]')
        self.key(key).scroll_into_view_if_needed()
        for attempt in range(4):
            self.combobox(key).click()
            try:
                listbox.locator('[role="option"]').first.wait_for(timeout=5_000)
                return listbox
            except PWTimeout:
                if attempt == 3:
                    raise
                self.combobox(key).press("Escape")
        return listbox

    def options(self, key: str) -> list[str]:
        """All options of a keyed selectbox (opens its list, reads it, closes it)."""
        # A rerun that starts while the list is open (e.g. the URL sync after a reload) can replace
        # the listbox between "the first option is there" and reading them all; read again then.
        for attempt in range(4):
            self.wait_idle()
            listbox = self.open_list(key)
            texts = [t.strip() for t in listbox.locator('[role="option"]').all_inner_texts()]
            self.combobox(key).press("Escape")
            listbox.wait_for(state="detached")
            if texts:
                return texts
        raise AssertionError(f"the option list of {key} came back empty four times")

    def shot(self, name: str) -> Path:
        folder = self.server.workdir / "screenshots"
        folder.mkdir(exist_ok=True)
        self.n_shots += 1
        path = folder / f"{self.slug}__{self.n_shots:02d}_{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def assert_healthy(self) -> None:
        from playwright.sync_api import expect

        expect(self.page.get_by_test_id("stException")).to_have_count(0)
        assert not self.errors, f"JavaScript errors on the page: {self.errors}"


def run_names_on_data_page(app) -> list[str]:
    """The runs of the collection as the Data page lists them: the options of the 'Run' selectbox in
    the 'Rename or delete a run' expander (the run table itself is a canvas)."""
    from playwright.sync_api import expect
    if not app.key("data_manage_run").is_visible():
        app.page.get_by_test_id("stExpander").filter(has_text="Rename or delete a run") \
            .locator("summary").click()
        expect(app.key("data_manage_run")).to_be_visible()
    return app.options("data_manage_run")


def nav(app, title: str) -> None:
    """Go to another page through the sidebar (same session, URL state carried by the app)."""
    link = app.page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink").filter(has_text=title)
    app.rerun_after(lambda: link.first.click())


@pytest.fixture
def new_context(browser):
    made = []

    def make():
        ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        ctx.set_default_timeout(UI_TIMEOUT_MS)
        ctx.set_default_navigation_timeout(UI_TIMEOUT_MS)
        ctx.add_init_script(_RUN_COUNTER_JS)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call":
        item.e2e_failed = rep.failed
    if rep.failed:                   # the servers of this test (by class name: test modules import this file again)
        servers = [v for v in getattr(item, "funcargs", {}).values() if type(v).__name__ == "Server"]
        if servers:
            rep.sections.append(("e2e screenshots", "\n".join(sorted({str(s.workdir / "screenshots")
                                                                        for s in servers}))))
    return rep


@pytest.fixture
def app(new_context, server, request):
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    a = App(new_context().new_page(), server, slug)
    yield a
    if getattr(request.node, "e2e_failed", False):   # the server's side of a failed flow
        try:
            a.shot("at_failure")
        except Exception:  # noqa: BLE001 - the page may be gone
            pass
        print(f"\nstreamlit server {server.url}\n{server.logs()}")
