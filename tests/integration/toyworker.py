"""Celery entry point for integration tests: the real worker, plus the test-only toy kind.

``celery -A tests.integration.toyworker worker`` — the toy kind lets the tests make a
solver slow or crash on purpose; every real kind is registered as usual.
"""

import solvers
from tests.toykind import TOY

solvers.KINDS.setdefault(TOY.name, TOY)

from worker import celery_app, flask_app  # noqa: E402,F401  the worker's own app, configured from env
