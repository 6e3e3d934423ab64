"""AppTest runs the app inside the test process, where Streamlit has read no settings file of the project's (it reads
the one beside the main script only under `streamlit run`): read dashboard/.streamlit/config.toml as a server
started by `streamlit run dashboard/app.py` or `python -m dashboard` would, from any folder."""
from __future__ import annotations

from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@pytest.fixture(autouse=True, scope="session")
def project_settings():
    from streamlit import config
    config._main_script_path = str(APP)
    config.get_config_options(force_reparse=True)
    assert config.get_option("server.address") == "127.0.0.1"
    yield
