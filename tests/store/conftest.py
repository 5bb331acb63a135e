"""The store's tests use the API's fixtures: an app on a fresh database, the toy kind, a recording
publisher (tests/service/conftest.py)."""

from tests.service.conftest import app, client, database_url, made_apps, make_app, toy  # noqa: F401  shared fixtures
