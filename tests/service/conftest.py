from __future__ import annotations

import pytest
from sqlalchemy import func, select

import solvers
from service import create_app
from service.models import Base, Job, Puzzle, Subtask
from tests.toykind import TOY


class RecordingPublisher:
    """Stands in for the broker: remembers what would have been sent."""

    def __init__(self):
        self.chunks: list[list[int]] = []
        self.parts: list[list[int]] = []
        self.dear: list[list[int]] = []  # the chunks published to the dear lane
        self.ranks: list[int] = []  # of each publish call

    def publish(self, chunks, dear=False, rank=0):
        self.chunks.extend([list(c) for c in chunks])
        if dear:
            self.dear.extend([list(c) for c in chunks])
        self.ranks.append(rank)

    def publish_parts(self, groups):
        self.parts.extend([list(g) for g in groups])


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", TOY)
    return TOY


@pytest.fixture
def database_url(tmp_path):
    return f"sqlite:///{tmp_path / 'api.db'}"


@pytest.fixture
def make_app(tmp_path, database_url):
    def make(**config):
        # No rate limit unless a test sets one: tests send requests faster than a client may.
        cfg = {"DATABASE_URL": database_url, "BROKER_DIR": str(tmp_path / "broker"), "REDIS_URL": None,
               "RATE_LIMIT": "", **config}
        app = create_app(cfg)
        Base.metadata.drop_all(app.extensions["engine"])
        Base.metadata.create_all(app.extensions["engine"])
        app.extensions["publisher"] = RecordingPublisher()
        return app
    return make


@pytest.fixture
def app(make_app, toy):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


def row_counts(app) -> tuple[int, int, int]:
    with app.extensions["sessions"]() as s:
        return tuple(s.scalar(select(func.count()).select_from(t)) for t in (Job, Puzzle, Subtask))
