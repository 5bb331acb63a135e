# Two commands for a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export NUMBA_CACHE_DIR ?= $(CURDIR)/var/numba-cache

.PHONY: venv run test test-fast bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# The service on 127.0.0.1:8000 (PORT changes it): API + one worker. Without DATABASE_URL
# and REDIS_URL it needs no servers (SQLite and a filesystem broker under var/).
run: venv
	$(PY) -m service.run_local

# Everything, the slow data-set checks and the integration tests included.
test: venv
	$(PY) -m pytest

# Quick iteration: no slow data sets, no real services.
test-fast: venv
	$(PY) -m pytest -m "not slow and not integration"

clean:
	rm -rf $(VENV) var .pytest_cache
