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
