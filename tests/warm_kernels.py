"""``python -m tests.warm_kernels KIND``: compile (or load) one kind's kernels into NUMBA_CACHE_DIR:
its examples solved one by one and as a batch (solvers.warm_up), and one puzzle made by its
default generate request. tests/conftest.py runs it once per kind before a session's tests, so
that no test pays a compile, least of all under a time limit."""

from __future__ import annotations

import sys

import solvers
from solvers import factory


def warm(name: str) -> None:
    kind = solvers.get(name)
    solvers.warm_up([kind])
    if kind.generator is None:
        return
    _count, request = factory.read_request(kind, {"count": 1}, 1)
    making = factory.making(kind)
    making.verify(0, request, making.solve(0, request))


if __name__ == "__main__":
    for name in sys.argv[1:]:
        warm(name)
