"""What the operator sees and what a visitor does not: Rankboard's log lines (the store's problems with their paths,
a page's unexpected error with its traceback, failed logins) go to the server's stderr with their time, and the
settings that keep server details out of the page are set again in code, whatever config.toml was found:
no error details in the browser, the minimal toolbar (no Deploy button), no usage statistics.

The server's address cannot be set from here (the server listens before any script runs): the project's settings
file, dashboard/.streamlit/config.toml, sits beside app.py, where Streamlit reads it from whatever folder it is
started, and `python -m dashboard` passes it explicitly (dashboard/__main__.py).
"""
from __future__ import annotations

import logging
import sys

PUBLIC_ERROR = ("Something went wrong on this page, so it stopped. Nothing was changed. Reload the page to try "
                "again; whoever runs this dashboard will find the details in the server's log.")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# client settings that are read while the server runs, so setting them here holds for every session after
IN_CODE = {"client.showErrorDetails": "none", "client.toolbarMode": "minimal", "browser.gatherUsageStats": False}
_DONE: list = []


def configure() -> None:
    """Once per server process: a timed handler for the `rankboard` loggers, and the settings of IN_CODE."""
    if _DONE:
        return
    _DONE.append(True)
    log = logging.getLogger("rankboard")
    if not any(getattr(h, "_rankboard", False) for h in log.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(FORMAT))
        handler._rankboard = True
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    from streamlit import config
    for key, value in IN_CODE.items():
        if config.get_option(key) != value:
            config.set_option(key, value, "rankboard (dashboard/session/serverlog.py)")
