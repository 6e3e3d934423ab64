# Two commands do all the setup on a fresh Debian machine with Python 3.11:
#   make dashboard   install, then start the dashboard on the bundled sample collection
#   make test        install (including Debian's chromium for the browser tests), then run every test
#   make test-fast   install, then run the tests that are neither slow (tests/limits) nor browser (tests/e2e)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: venv dashboard test test-fast chromium bench

$(VENV)/.installed: requirements.txt requirements-test.txt requirements-dist.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

venv: $(VENV)/.installed

dashboard: venv
	$(PY) -m dashboard --server.port $(PORT)

chromium:
	@command -v /usr/bin/chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq --no-install-recommends chromium; fi; }

test: venv chromium
	$(PY) -m pytest -n 2 --dist loadgroup

test-fast: venv
	$(PY) -m pytest -n 2 --dist loadgroup -m "not slow and not browser"

bench: venv
	$(PY) -m pip install --quiet -r benchmarks/requirements.txt
	$(PY) benchmarks/run.py
