"""`python -m dashboard [streamlit run options]`: the dashboard with the project's settings, from any folder.

The same as `streamlit run <this folder>/app.py`: Streamlit reads the project's settings from
dashboard/.streamlit/config.toml, beside app.py, so the server listens on 127.0.0.1 only, sends no usage
statistics and shows no error details, whatever the current folder. Options after the module name
(`--server.port 8502`, `--server.address 0.0.0.0` for a team, with RANKBOARD_ACCESS=team) override them.
"""
from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent / "app.py"


def main(argv: list[str] | None = None) -> None:
    from streamlit.web import cli
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
