from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.embedded import Embedded, embedded_service


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedded]:
    with embedded_service(tmp_path_factory.mktemp("embedded")) as running:
        yield running


@pytest.fixture(scope="session")
def service_url(service: Embedded) -> str:
    return service.url


@pytest.fixture(scope="session")
def examples() -> Path:
    return Path(__file__).resolve().parents[2] / "examples"
