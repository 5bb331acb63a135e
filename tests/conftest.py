import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The shared folder sits beside the checkout (../shared); SHARED_DIR overrides it.
SHARED = Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"test data not found at {DATA}; set SHARED_DIR")
    return DATA
