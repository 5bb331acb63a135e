from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.devstack import Local
from tests.embedded import embedded_service


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Local]:
    with embedded_service(tmp_path_factory.mktemp("embedded")) as running:
        yield running


@pytest.fixture(scope="session")
def service_url(service: Local) -> str:
    return service.url


@pytest.fixture(scope="session")
def examples() -> Path:
    return Path(__file__).resolve().parents[2] / "examples"
