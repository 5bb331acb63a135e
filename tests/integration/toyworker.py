"""Celery entry point for integration tests: the real worker, plus the test-only toy kind.

``celery -A tests.integration.toyworker worker`` — the toy kind lets the tests make a
solver slow or crash on purpose; every real kind is registered as usual. ``create_api()`` is the
API with the same kinds, for gunicorn.
"""

import solvers
from tests.toykind import TOY

solvers.KINDS.setdefault(TOY.name, TOY)

from service import create_app  # noqa: E402  after the toy kind is registered
from worker.app import app  # noqa: E402,F401  the worker's own app, configured from env


def create_api():
    return create_app()
