# Two commands for a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp
export NUMBA_CACHE_DIR ?= $(CURDIR)/var/numba-cache

.PHONY: venv venv-run lock run test test-fast screenshots lint typecheck bench bench-cost calibrate bench-service bench-load clean compose-up compose-down compose-test swarm-up swarm-down swarm-test k8s-check k8s-play-test

# What running needs: exactly what requirements.lock pins (hashes checked), then the project
# itself, editable and without dependencies. A lock older than pyproject.toml's dependencies is
# reported, and what it lacks is installed unpinned so that work goes on until `make lock`.
# Left out, as running never reads them: bytecode for every file at install time (it is written
# as modules are first imported), the test suites numpy and numba ship, and the static symbol
# table of llvmlite's library (19 MB; its exported symbols stay), where `strip` is installed.
$(RUN_STAMP): pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile --upgrade pip
	$(PY) -m pip install --quiet --no-compile --require-hashes -r requirements.lock
	$(PY) deploy/lock.py check --install-unlocked
	$(PY) -m pip install --quiet --no-compile --no-deps --no-build-isolation -e .
	site=$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))') && \
	find $$site/numpy $$site/numba -type d -name tests -prune -exec rm -rf {} + && \
	if command -v strip >/dev/null; then \
		find $$site/llvmlite -type f -name 'libllvmlite*.so' -exec strip --strip-unneeded {} +; fi
	touch $@

# What the tests, checks and benches add on top: requirements-dev.lock (the runtime's pins, the dev
# extra's and the deploy extra's, whose flower the tests and types check), the same way.
$(DEV_STAMP): $(RUN_STAMP) requirements-dev.lock
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) deploy/lock.py check --install-unlocked --extra dev --extra deploy
	touch $@

venv-run: $(RUN_STAMP)
venv: $(DEV_STAMP)

# After changing dependencies in pyproject.toml: pins move only where they must.
UV_VERSION := 0.13.9
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(PY) deploy/lock.py compile

# The service on 127.0.0.1:8000 (PORT changes it): API + a worker of both lanes + one kept for cheap
# work. Without DATABASE_URL and REDIS_URL it needs no servers (SQLite and a filesystem broker under var/).
run: venv-run
	$(PY) -m deploy.run_local

# The tests that marker expression $(1) (empty, or ending in "and") keeps: those that share nothing
# in parallel (pytest-xdist, a process per core), then those marked serial alone (they time
# themselves or start whole stacks, as tests/integration's do). Both runs go to the end; the
# target fails if either failed (5: the selection held no serial test). Each run ends with its 25
# slowest tests (--durations=25, pyproject.toml's addopts), so a CI log shows where the time goes.
define pytest_in_parallel_then_serial
	$(PY) -m pytest -n auto --dist loadgroup -m "$(1) not serial"; parallel=$$?; \
	$(PY) -m pytest -m "$(1) serial"; serial=$$?; \
	test $$parallel -eq 0 && { test $$serial -eq 0 || test $$serial -eq 5; }
endef

# Everything, the slow data-set checks and the integration tests included.
test: venv
	$(call pytest_in_parallel_then_serial,)

# Quick iteration: no slow data sets, no real services.
test-fast: venv
	$(call pytest_in_parallel_then_serial,not slow and not integration and)

# docs/web-job.png: the web page with a finished job of every kind, taken in Chromium.
screenshots: venv
	SCREENSHOT=$(CURDIR)/docs/web-job.png $(PY) -m pytest tests/web -k every_kind -q

# Style and common bugs (rules chosen in pyproject.toml), and types (strict on solvers/).
lint: venv
	$(VENV)/bin/ruff check .

typecheck: venv
	$(VENV)/bin/mypy

# The solvers' benchmark tables (docs/benchmarks.md): BENCH=sudoku runs one of them,
# BENCH_ARGS=--quick passes options (sudoku, nqueens and sliding know --quick).
BENCH ?= sudoku nqueens sliding spokes
bench: venv
	for name in $(BENCH); do $(PY) bench/$$name.py $(BENCH_ARGS) || exit 1; done

# The kinds' predictions (Kind.predict) measured again on this machine: rewrites solvers/calibration.json
# (docs/solvers.md#predicting-the-work). CALIBRATE_ARGS passes options (--scale, --kinds).
calibrate: venv
	taskset -c 1 $(PY) -m bench.calibrate $(CALIBRATE_ARGS)

# Predicted against actual seconds per kind and mode, on puzzles the calibration never saw.
bench-cost: venv
	taskset -c 1 $(PY) -m bench.cost $(BENCH_ARGS)

# The service's own: throughput and latency, split puzzles over 1 and 2 workers, a /metrics scrape
# at a million puzzle rows. They need PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL, as
# the integration tests).
bench-service: venv
	$(PY) bench/service.py $(BENCH_ARGS)
	$(PY) bench/scaling.py $(BENCH_ARGS)
	$(PY) bench/metrics.py

# A bounded load (60 s by default) over loopback on the real stack: submitters and pollers,
# p50/p99 per endpoint, errors, every answer verified (docs/benchmarks.md). LOAD_ARGS passes options.
bench-load: venv
	$(PY) bench/load.py $(LOAD_ARGS)

# A local Docker engine (started if none runs), Compose v2, the stack up with WORKERS workers,
# the API on port API_PORT. compose-down removes what compose-up made.
WORKERS ?= 3
API_PORT ?= 8000
export WORKERS API_PORT
compose-up:
	deploy/compose-up.sh

compose-down:
	deploy/compose-down.sh

# compose-up, jobs with known answers over HTTP, a worker killed and PostgreSQL and Redis
# restarted mid-job, compose-down; prints the timings.
compose-test:
	deploy/compose-test.sh

# deploy/stack.yml on a single-node swarm of the local engine (`docker swarm init` unless it is
# in one): the images built as for compose, the tokens as Docker secrets, the API on API_PORT.
# swarm-down removes the stack and leaves the swarm swarm-up made.
swarm-up:
	deploy/swarm-up.sh

swarm-down:
	deploy/swarm-down.sh

# swarm-up, a mixed batch, the workers scaled 1 -> 4 -> 2 and updated under running jobs, 32 worker
# processes through PgBouncer, swarm-down; prints the figures.
swarm-test:
	deploy/swarm-test.sh

# deploy/k8s rendered (kubectl kustomize) and validated offline: Kubernetes' schemas
# (kubernetes-validate), KEDA's (vendored), checkov (skips in deploy/k8s/checkov-skip.txt).
k8s-check: venv
	deploy/k8s-check.sh

# deploy/k8s (overlay small) run by `podman kube play` (Debian's podman, installed if missing): the
# images built on the local engine and loaded into podman, the migration Job's pod run once first,
# what podman cannot run (HPA, PDB, KEDA) dropped; /readyz and a mixed batch with known answers
# through the published port (K8S_PLAY_PORT, 18000), then everything removed; prints the timings.
k8s-play-test: venv
	deploy/k8s-play-test.sh

clean:
	rm -rf $(VENV) var .pytest_cache
