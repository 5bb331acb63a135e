import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Data with known answers, kept in the repository (tests/data/*/SOURCES.md say where it comes from).
DATA = ROOT / "tests" / "data"


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
