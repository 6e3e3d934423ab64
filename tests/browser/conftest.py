"""Playwright harness: one `streamlit run` per test module, Debian's chromium, projector viewport.

Each test module gets its own server on a free port and its own temporary store
(`RANKBOARD_STORE=<tmp>/store.duckdb`); a fresh store loads the sample collection from `data/`.
The server is stopped by its PID at teardown. Browsers are never downloaded: the tests drive
`/usr/bin/chromium` (installed with `apt-get install -y --no-install-recommends chromium`), and
fail, not skip, when it is missing.
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
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = Path(os.environ.get("RANKBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 720}  # the projector in the review room
APP_SCRIPT = os.environ.get("RANKBOARD_BROWSER_APP", "dashboard/app.py")  # override only to debug the harness
HEALTH_TIMEOUT_S = 180  # bounded: the machine is shared, so be generous but finite
UI_TIMEOUT_MS = 120_000  # generous waits on conditions; never an assertion on wall time


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "<no output>"


class AppServer:
    """A `streamlit run dashboard/app.py` subprocess on its own port and store."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.store = workdir / "store.duckdb"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stdout = workdir / "streamlit.stdout"
        self.stderr = workdir / "streamlit.stderr"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, RANKBOARD_STORE=str(self.store), PYTHONUNBUFFERED="1")
        cmd = [
            sys.executable, "-m", "streamlit", "run", APP_SCRIPT,
            "--server.headless", "true",
            "--server.port", str(self.port),
            "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false",
        ]
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, start_new_session=True,  # own process group
            )
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._fail(f"streamlit exited with code {self.proc.returncode} before it was healthy")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as resp:
                    if resp.status == 200:
                        return
                    last = f"HTTP {resp.status}"
            except (urllib.error.URLError, OSError) as exc:
                last = repr(exc)
            time.sleep(0.5)  # polling interval of a bounded wait, not a fixed sleep
        self.stop()
        self._fail(f"/_stcore/health did not answer 200 within {HEALTH_TIMEOUT_S}s (last: {last})")

    def _fail(self, why: str) -> None:
        pytest.fail(
            f"{why}\nserver: {self.url}  store: {self.store}\n"
            f"--- streamlit stderr (tail) ---\n{_tail(self.stderr)}\n"
            f"--- streamlit stdout (tail) ---\n{_tail(self.stdout)}",
            pytrace=False,
        )

    def stop(self) -> None:
        """Stop the server by its PID: SIGTERM, wait, then SIGKILL."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)

    def logs(self) -> str:
        return f"--- stderr ---\n{_tail(self.stderr)}\n--- stdout ---\n{_tail(self.stdout)}"


@pytest.fixture(scope="module")
def app_server(tmp_path_factory) -> AppServer:
    server = AppServer(tmp_path_factory.mktemp("streamlit"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(
            f"Debian's chromium is missing at {CHROMIUM}. Install it with "
            "`apt-get install -y --no-install-recommends chromium` (never `playwright install`).",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# Counts script runs in the page, so a helper can wait for "the rerun my click caused has
# finished" instead of racing the moment between the click and the server's first status.
_RUN_COUNTER_JS = """
(() => {
  window.__rbRuns = 0;
  const seen = new WeakMap();
  const obs = new MutationObserver((muts) => {
    for (const m of muts) {
      const el = m.target;
      if (el.getAttribute && el.getAttribute('data-testid') === 'stApp') {
        const s = el.getAttribute('data-test-script-state');
        if (s === 'running' && seen.get(el) !== 'running') window.__rbRuns += 1;
        seen.set(el, s);
      }
    }
  });
  obs.observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
})();
"""

_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
  if (document.querySelector('[data-testid="stSpinner"]')) return false;
  // grey placeholders shown until a page's elements arrive
  if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stSkeletonElement"]')) return false;
  return true;
}"""


@pytest.fixture
def new_context(browser):
    """Factory for fresh browser contexts (no shared cookies/storage) at the projector size."""
    contexts = []

    def make():
        ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        ctx.set_default_timeout(UI_TIMEOUT_MS)
        ctx.set_default_navigation_timeout(UI_TIMEOUT_MS)
        ctx.add_init_script(_RUN_COUNTER_JS)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def app(new_context, app_server, request):
    """A page on the running app, wrapped with Streamlit helpers; screenshots go to screenshots/."""
    return StreamlitPage(new_context().new_page(), app_server, _test_slug(request))


def _test_slug(request) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)


class StreamlitPage:
    """Thin helpers over a Playwright page showing the Rankboard app."""

    def __init__(self, page, server: AppServer, slug: str):
        self.page = page
        self.server = server
        self.slug = slug
        self.page_errors: list[str] = []
        self.n_shots = 0
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    # navigation and waiting -------------------------------------------------------------
    def goto(self, path: str = "/") -> None:
        self.page.goto(self.server.url + path)
        self.page.wait_for_selector('[data-testid="stApp"]')
        # the first script run must have started and finished
        self.page.wait_for_function("() => window.__rbRuns >= 1")
        self.wait_idle()

    def wait_idle(self) -> None:
        """Connected, script not running, no running icon, no spinner."""
        self.page.wait_for_function(_IDLE_JS)

    def runs(self) -> int:
        return self.page.evaluate("() => window.__rbRuns")

    def rerun_after(self, action) -> None:
        """Do `action()` (a click, an Enter...) and wait until the rerun it caused has finished."""
        before = self.runs()
        action()
        self.page.wait_for_function(f"() => window.__rbRuns > {before}")
        self.wait_idle()

    # keyed widgets (dashboard/README.md documents the keys) ----------------------------------
    def key(self, key: str):
        return self.page.locator(f".st-key-{key}")

    def combobox(self, key: str):
        return self.key(key).locator('input[role="combobox"]')

    def open_list(self, key: str):
        """Open a keyed selectbox/multiselect's option list; retried, since a click during an
        expander's opening animation can miss."""
        from playwright.sync_api import TimeoutError as PWTimeout

        listbox = self.page.locator('[role="listbox"]')
        self.key(key).scroll_into_view_if_needed()
        for attempt in range(4):
            self.combobox(key).click()
            try:
                listbox.locator('[role="option"]').first.wait_for(timeout=10_000)
                return listbox
            except PWTimeout:
                if attempt == 3:
                    raise
                self.combobox(key).press("Escape")
        return listbox

    def options(self, key: str) -> list[str]:
        listbox = self.open_list(key)
        texts = [t.strip() for t in listbox.locator('[role="option"]').all_inner_texts()]
        self.combobox(key).press("Escape")
        listbox.wait_for(state="detached")
        return texts

    def choose(self, key: str, text: str) -> None:
        """BaseWeb combobox: click, type, Enter; then wait for the rerun it causes."""
        box = self.combobox(key)
        assert not box.input_value().startswith(text), f"{key} already shows {text!r}"
        self.open_list(key)
        box.fill(text)
        self.page.locator('[role="listbox"] [role="option"]').filter(has_text=text).first.wait_for()
        self.rerun_after(lambda: box.press("Enter"))

    def selected(self, key: str) -> str:
        return self.combobox(key).input_value()

    def tags(self, key: str) -> list[str]:
        """A keyed multiselect's chosen values, in order."""
        return [t.get_attribute("aria-label") for t in self.key(key).locator("[data-tag]").all()]

    def open_fresh(self, page, url: str) -> "StreamlitPage":
        """The same server in another page (e.g. a new browser context) at `url`."""
        other = StreamlitPage(page, self.server, self.slug + "_new_context")
        page.goto(url)
        page.wait_for_selector('[data-testid="stApp"]')
        page.wait_for_function("() => window.__rbRuns >= 1")
        other.wait_idle()
        return other

    def shot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.n_shots += 1
        path = SCREENSHOTS / f"{self.slug}__{self.n_shots:02d}_{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def assert_healthy(self) -> None:
        """No Python traceback on the page and no uncaught JS error."""
        from playwright.sync_api import expect

        expect(self.page.get_by_test_id("stException")).to_have_count(0)
        assert not self.page_errors, f"JavaScript errors on the page: {self.page_errors}"
