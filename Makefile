# Two commands for a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export NUMBA_CACHE_DIR ?= $(CURDIR)/var/numba-cache

.PHONY: venv test test-fast bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Everything, the slow data-set checks and the integration tests included.
test: venv
	$(PY) -m pytest

# Quick iteration: no slow data sets, no real services.
test-fast: venv
	$(PY) -m pytest -m "not slow and not integration"

clean:
	rm -rf $(VENV) var .pytest_cache
