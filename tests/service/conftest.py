from __future__ import annotations

import pytest
from sqlalchemy import func, select

import solvers
from service import create_app
from store import chunk_entries, tallies
from store.bookkeeping import Tally
from store.models import FINAL, Base, Job, Puzzle, Subtask
from store.settings import Settings
from tests.toykind import TOY
from worker import parts
from worker.runtime import Runtime


class RecordingPublisher:
    """Stands in for the broker: remembers what would have been sent."""

    def __init__(self):
        self.chunks: list[list[int]] = []
        self.parts: list[list[int]] = []
        self.dear: list[list[int]] = []  # the chunks published to the dear lane
        self.ranks: list[int] = []  # of each publish call
        self.dear_ranks: list[int] = []  # the rank of the call that published each chunk of the dear lane
        self.deliveries: list[tuple[int, int]] = []  # callback deliveries: (id, attempts so far)
        self.part_ranks: list[int | None] = []  # of each group of parts (None: spread by count)
        self.stored: list[int] = []  # stored chunks (store.chunks) by id

    def publish(self, chunks, dear=False, rank=0):
        self.chunks.extend([list(c) for c in chunks])
        if dear:
            self.dear.extend([list(c) for c in chunks])
            self.dear_ranks.extend([rank] * len(chunks))
        self.ranks.append(rank)

    def publish_parts(self, groups, ranks=None):
        self.parts.extend([list(g) for g in groups])
        self.part_ranks.extend(ranks if ranks is not None else [None] * len(groups))

    def publish_deliveries(self, due):
        self.deliveries.extend(due)

    def publish_chunks(self, chunk_ids, rank=0):
        self.stored.extend(chunk_ids)
        self.ranks.append(rank)


class Broker(RecordingPublisher):
    """A recording publisher that also says how many messages wait in its queue."""

    def __init__(self, depth: int):
        super().__init__()
        self.depth = depth

    def queue_depth(self) -> int:
        return self.depth


class DownBroker(RecordingPublisher):
    """A broker that refuses every message."""

    def publish(self, chunks, dear=False, rank=0):
        raise ConnectionError("broker down")

    def publish_parts(self, groups, ranks=None):
        raise ConnectionError("broker down")

    def publish_chunks(self, chunk_ids, rank=0):
        raise ConnectionError("broker down")


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", TOY)
    return TOY


@pytest.fixture
def database_url(tmp_path):
    return f"sqlite:///{tmp_path / 'api.db'}"


@pytest.fixture
def made_apps():
    """Every app ``make_app`` made in this test."""
    return []


@pytest.fixture
def make_app(tmp_path, database_url, made_apps):
    def make(**config):
        # No rate limit unless a test sets one: tests send requests faster than a client may. A
        # request publishes in its own thread unless a test sets SUBMIT_PUBLISH_SECONDS: what it
        # published is known when it answers, and a publisher that runs the tasks at once (the
        # worker tests' EagerPublisher) runs them where the time limits' alarms reach.
        cfg = {"DATABASE_URL": database_url, "BROKER_DIR": str(tmp_path / "broker"), "REDIS_URL": None,
               "RATE_LIMIT": "", "READ_RATE_LIMIT": "", "SUBMIT_PUBLISH_SECONDS": 0, **config}
        app = create_app(Settings.from_env(**cfg))
        Base.metadata.drop_all(app.extensions["engine"])
        Base.metadata.create_all(app.extensions["engine"])
        app.extensions["publisher"] = RecordingPublisher()
        made_apps.append(app)
        return app
    return make


@pytest.fixture
def app(make_app, toy):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


def settings_of(app) -> Settings:
    return app.extensions["settings"]


def runtime_of(app, publisher=None) -> Runtime:
    """What a worker process would hold, on the app's database (and its publisher, unless given)."""
    return Runtime(settings_of(app), app.extensions["engine"], app.extensions["sessions"],
                   app.extensions["publisher"] if publisher is None else publisher)


def plans_of(app):
    """The split settings as the kinds' plans read them."""
    return settings_of(app).splitting.for_plans


def claim_part(s, app, subtask_id, worker):
    """worker.parts.claim with the app's settings."""
    return parts.claim(s, subtask_id, worker, settings_of(app).time, settings_of(app).recovery)


def row_counts(app) -> tuple[int, int, int]:
    """Jobs, puzzles (rows and chunk entries) and subtasks stored."""
    with app.extensions["sessions"]() as s:
        jobs_n, subtasks_n = (s.scalar(select(func.count()).select_from(t)) for t in (Job, Subtask))
        return jobs_n, len(every_puzzle(s)), subtasks_n


def every_puzzle(s) -> list[Puzzle]:
    """Every job's puzzles, its rows and its chunks' entries (store.chunks)."""
    job_ids = list(s.scalars(select(Job.id)))
    entries = [e for job_id in job_ids for e in chunk_entries.entries(s, job_id)]
    return list(s.scalars(select(Puzzle))) + entries


def stored_chunks(app) -> list[int]:
    """The chunks the recording publisher was given, by id."""
    return list(app.extensions["publisher"].stored)


def run_published(app, worker="w") -> None:
    """Run everything the recording publisher was given, as a worker would, until nothing new is
    published (entries that leave their chunk are published as rows); the record is emptied."""
    from worker import chunk, stored

    publisher = app.extensions["publisher"]
    runtime = runtime_of(app)
    while publisher.chunks or publisher.stored:
        rows, chunk_ids = list(publisher.chunks), list(publisher.stored)
        publisher.chunks.clear()
        publisher.stored.clear()
        publisher.dear.clear()
        for chunk_id in chunk_ids:
            stored.run_stored(runtime, chunk_id, worker)
        for ids in rows:
            chunk.run_chunk(runtime, ids, worker)


def run_chunks(app, worker="w1", publisher=None) -> int:
    """Run every stored chunk published so far (worker.stored); returns the entries written."""
    from worker import stored

    runtime = runtime_of(app, publisher)
    return sum(stored.run_stored(runtime, chunk_id, worker).written for chunk_id in stored_chunks(app))


def recount(sessions) -> dict[tuple[str, str], float]:
    """The tallies as counting every row gives them (valid while no finished puzzle was deleted),
    without zeros."""
    out: dict[tuple[str, str], float] = {}

    def add(kind, name, value):
        out[kind, name] = out.get((kind, name), 0.0) + value

    with sessions() as s:
        jobs = s.scalar(select(func.count()).select_from(Job))
        if jobs:
            add("", tallies.JOBS, jobs)
        for p in every_puzzle(s):
            kind, status, solve_ms = p.kind, p.status, p.solve_ms
            add(kind, status, 1)
            if solve_ms is not None:
                add(kind, tallies.bucket(solve_ms / 1000), 1)
                add(kind, tallies.SECONDS, solve_ms / 1000)
    return {key: value for key, value in out.items() if value}


def stored_tallies(sessions) -> dict[tuple[str, str], float]:
    """The tallies table, each total summed over its shards, without zeros."""
    with sessions() as s:
        rows = s.execute(select(Tally.kind, Tally.name, func.sum(Tally.value))
                         .group_by(Tally.kind, Tally.name))
        return {(kind, name): value for kind, name, value in rows if value}


def assert_tallies_match_rows(sessions) -> None:
    counted, stored = recount(sessions), stored_tallies(sessions)
    assert set(stored) == set(counted), (stored, counted)
    for key, value in counted.items():
        assert stored[key] == pytest.approx(value), key
    assert_job_costs_match_rows(sessions)


def assert_job_costs_match_rows(sessions) -> None:
    """Each job's predicted sums as counting its puzzles gives them: all of them, their high ends, and
    the finished ones (``done_seconds``, moved with ``pending``: each finish counted once)."""
    with sessions() as s:
        jobs_of = {row.id: row for row in s.execute(select(Job.id, Job.estimated_seconds, Job.estimated_high,
                                                           Job.done_seconds))}
        counted: dict[str, list[float]] = {}
        for p in every_puzzle(s):
            sums = counted.setdefault(p.job_id, [0.0, 0.0, 0.0])
            seconds = p.estimated_seconds or 0.0
            sums[0] += seconds
            sums[1] += seconds * (p.estimate_factor or 0.0)
            sums[2] += seconds if p.status in FINAL else 0.0
    for job_id, sums in counted.items():
        job = jobs_of[job_id]
        stored = [job.estimated_seconds, job.estimated_high, job.done_seconds]
        assert stored == pytest.approx(sums, abs=1e-9), job_id
