import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Data with known answers, kept in the repository (tests/data/*/SOURCES.md say where it comes from).
DATA = ROOT / "tests" / "data"
INTEGRATION = ROOT / "tests" / "integration"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"test data not found at {DATA}")
    return DATA


def pytest_configure(config: pytest.Config) -> None:
    # A suite started in the background by a non-interactive shell has SIGINT ignored, and its
    # children would inherit that: the tests that stop a client or make run's stack as Ctrl-C
    # does need it delivered. A handler here is reset to the default in every child.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tests/integration starts real workers and stacks: two at once would share the cores they time.
    for item in items:
        if INTEGRATION in item.path.parents:
            item.add_marker(pytest.mark.serial)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Every kind's kernels compiled (or loaded) into NUMBA_CACHE_DIR before any test runs, once
    per session: by the process that starts pytest-xdist's workers, before it starts them. A pytest
    run by a test (PYTEST_CURRENT_TEST is in its environment: the kernel tests run again bounds
    checked or uncompiled) compiles only what its few tests call."""
    config = session.config
    worker, jit = hasattr(config, "workerinput"), os.environ.get("NUMBA_DISABLE_JIT") != "1"
    nested = "PYTEST_CURRENT_TEST" in os.environ
    if worker or nested or config.option.collectonly or not jit:
        return
    warm_kernels(config)


@pytest.fixture(scope="session")
def boundscheck_cache() -> str:
    """The numba cache of bounds-checked runs (NUMBA_BOUNDSCHECK=1): beside NUMBA_CACHE_DIR and kept
    between sessions like it, but never the one normal runs load (numba's cache index does not tell
    checked machine code from unchecked). Shared by the tests that run kernels bounds checked."""
    normal = os.environ.get("NUMBA_CACHE_DIR") or str(ROOT / "var" / "numba-cache")
    return f"{normal.rstrip('/')}-boundscheck"


def warm_kernels(config: pytest.Config) -> None:
    """tests/warm_kernels.py, a process per kind, all at once (compiling is CPU-bound and single
    threaded: the cores share the kinds). A kind that fails to warm up is reported, and its tests
    then say what is wrong."""
    import solvers  # here: the import loads numba, which only this step needs in this process

    runs = {name: subprocess.Popen([sys.executable, "-m", "tests.warm_kernels", name], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for name in solvers.KINDS}
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for name, run in runs.items():
        _, err = run.communicate()
        if run.returncode != 0 and reporter is not None:
            reporter.write_line(f"warming up {name}'s kernels failed:\n{err[-2000:]}", red=True)
