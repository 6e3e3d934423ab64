"""Rankboard core: the metrics layer over DuckDB. Never imports Streamlit."""

__version__ = "0.1.0"
