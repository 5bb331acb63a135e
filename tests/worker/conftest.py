from tests.service.conftest import RecordingPublisher, make_app, toy  # noqa: F401  shared fixtures
