import pytest

from store import blocks
from tests.service.conftest import (  # noqa: F401  shared fixtures
    RecordingPublisher,
    assert_tallies_match_rows,
    made_apps,
    make_app,
    runtime_of,
    toy,
)
from tests.services import database_url, postgres_url  # noqa: F401  the task logic runs on both databases
from worker import chunk, parts, stored


@pytest.fixture(autouse=True)
def tallies_agree(made_apps):  # noqa: F811  the fixture imported above
    """After every worker test, whatever it did to the puzzles: the /metrics tallies moved by exactly
    the rows that changed (each status change counted once, none missed)."""
    yield
    for app in made_apps:
        assert_tallies_match_rows(app.extensions["sessions"])


class EagerPublisher(RecordingPublisher):
    """Runs each published task at once, like a worker would (and records it)."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def publish(self, groups, dear=False, rank=0):
        super().publish(groups, dear, rank)
        for ids in groups:
            chunk.run_chunk(runtime_of(self.app, self), ids, "eager")

    def publish_chunks(self, chunk_ids, rank=0):
        super().publish_chunks(chunk_ids, rank)
        for chunk_id in chunk_ids:
            stored.run_stored(runtime_of(self.app, self), chunk_id, "eager")

    def publish_parts(self, groups, ranks=None):
        super().publish_parts(groups, ranks)
        for ids in groups:
            parts.run_parts(runtime_of(self.app, self), ids, "eager")


def as_read(s, puzzles):
    """The puzzle rows with ``result`` and ``stats`` as every reader sees them: from their blocks
    (store.blocks). Only set on the objects, never written back (the session is not committed)."""
    found = blocks.answers(s, puzzles)
    for p in puzzles:
        p.result, p.stats = found[p.id]
    return puzzles


class Solving:
    """How a chunk solves its cheap puzzles (``batched``: in runs, through the kind's
    solve_batch; else one by one, as after a run whose solve_batch failed), and a hook on it."""

    def __init__(self, batched, monkeypatch):
        self.batched, self.monkeypatch = batched, monkeypatch
        if not batched:
            monkeypatch.setattr(chunk, "solve_run", lambda *args: None)

    def before_each(self, hook):
        """Call ``hook(assigned)`` just before each puzzle is solved (for a run, before the run,
        once per puzzle in order)."""
        one, run = chunk.solve_one, chunk.solve_run

        def solve_one(a, *rest, **kw):
            hook(a)
            return one(a, *rest, **kw)

        def solve_run(cheap, *rest):
            for c in cheap:
                hook(c.assigned)
            return run(cheap, *rest)

        self.monkeypatch.setattr(chunk, "solve_one", solve_one)
        if self.batched:
            self.monkeypatch.setattr(chunk, "solve_run", solve_run)


@pytest.fixture(params=[True, False], ids=["batched", "one-by-one"])
def solving(request, monkeypatch):
    return Solving(request.param, monkeypatch)
