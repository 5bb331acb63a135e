"""What the API hands to the broker: JSON messages of ids, on the configured queues (lanes), with time
limits and priorities (fair share)."""

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select, update

import solvers
from solvers.base import Estimate
from store.models import Chunk, Job, Puzzle, Subtask, now
from store.publish import DELIVER, PRIORITIES, SOLVE_CHUNK, CeleryPublisher, dear_levels, ids_repr, priorities
from store.settings import Settings
from store.submit import chunk_sizes
from tests.service.conftest import RecordingPublisher, runtime_of, settings_of
from tests.services import fresh_redis
from tests.toykind import TOY
from worker import chunk, reaper


def test_celery_publisher_sends_ids_with_time_limits(make_app):
    app = make_app(PUZZLE_TIME_LIMIT=10.0, HARD_TIME_GRACE=5.0, TASK_QUEUE="q-test")
    celery = app.extensions["celery"]
    celery.conf.broker_url = "memory://"
    CeleryPublisher(celery, settings_of(app).lanes, settings_of(app).time).publish([[1, 2, 3], [4]])
    with celery.connection_for_read() as conn:
        queue = conn.SimpleQueue("q-test")
        messages = [queue.get(timeout=2) for _ in range(2)]
        queue.close()
    for message, ids in zip(messages, [[1, 2, 3], [4]], strict=True):
        assert message.content_type == "application/json"
        assert message.headers["task"] == SOLVE_CHUNK
        args, _, _ = json.loads(message.body)
        assert args == [ids]
        hard, soft = message.headers["timelimit"]
        assert soft == 10.0 * len(ids) + 1 and hard == soft + 5.0
        assert message.headers["argsrepr"] == ids_repr(ids)


def test_a_broker_failure_does_not_lose_the_job(make_app, toy):
    class Down:
        def publish(self, chunks, dear=False, rank=0):
            raise ConnectionError("broker down")

        def publish_chunks(self, chunk_ids, rank=0):
            raise ConnectionError("broker down")

    app = make_app()
    app.extensions["publisher"] = Down()
    dear = {"kind": "toy", "puzzle": "1", "options": {"sleep": 2.0}}
    items = [{"kind": "toy", "puzzle": "12"}] * 3 + [dear]
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202  # stored, so accepted: the reaper publishes it once the broker is back
    with app.extensions["sessions"]() as s:  # marked due at once, not after QUEUED_STALE_SECONDS
        dated = [*s.scalars(select(Puzzle.deadline)), *s.scalars(select(Chunk.deadline))]
        assert len(dated) == 2 and all(d is not None for d in dated)
    with app.extensions["sessions"]() as s, s.begin():
        for model in (Puzzle, Chunk):
            s.execute(update(model).values(deadline=now() - timedelta(seconds=1)))
    again = RecordingPublisher()
    reaped = reaper.reap(runtime_of(app, again))
    assert len(reaped.puzzles) == 1 and len(reaped.chunks) == 1
    assert sorted(i for chunk in again.chunks for i in chunk) == sorted(puzzle_ids(app))
    assert again.stored == reaped.chunks


def puzzle_ids(app):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id)))


def test_the_dear_lane_is_named_after_the_cheap_one_unless_set():
    assert Settings.from_env({"TASK_QUEUE": "q"}).lanes.dear_queue == "q.dear"
    assert Settings.from_env({"TASK_QUEUE": "q", "DEAR_QUEUE": "d"}).lanes.dear_queue == "d"
    assert Settings.from_env({"TASK_QUEUE": "q"}).lanes.callback_queue == "q.callbacks"
    assert Settings.from_env({"TASK_QUEUE": "q", "CALLBACK_QUEUE": "c"}).lanes.callback_queue == "c"


def test_deliveries_go_to_the_callbacks_queue_not_a_solving_lane(make_app):
    app = make_app(TASK_QUEUE="q-test", DEAR_QUEUE="q-test.dear", CALLBACK_QUEUE="q-test.callbacks")
    celery = app.extensions["celery"]
    celery.conf.broker_url = "memory://"
    lanes = settings_of(app).lanes
    CeleryPublisher(celery, lanes, settings_of(app).time).publish_deliveries([(7, 2)])
    with celery.connection_for_read() as conn:
        queue = conn.SimpleQueue(lanes.callback_queue)
        message = queue.get(timeout=2)
        queue.close()
        left = [conn.default_channel.queue_declare(queue=name).message_count for name in lanes.queues]
    assert left == [0, 0]
    assert message.headers["task"] == DELIVER and json.loads(message.body)[0] == [7, 2]
    assert not lanes.solves([lanes.callback_queue]) and lanes.solves([lanes.callback_queue, "q-test"])


def test_cheap_tasks_carry_dear_seconds_at_most():
    # 32 s of work: 16 tasks of 2 s each would be dear, so 32 tasks of 1 s instead.
    assert chunk_sizes([0.2] * 160, spread=16, largest=1000, seconds=0.05, most=1.0) == [5] * 32
    assert chunk_sizes([1e-4] * 3 + [5.0] + [1e-4] * 3, 16, 1000, 0.05, most=1.0) == [3, 1, 3]


def test_priorities_take_the_levels_share_at_a_time_from_the_rank():
    assert priorities(5, 0, 1) == [0, 1, 2, 3, 4]
    assert priorities(5, 1, 2) == [1, 1, 2, 2, 3]
    assert priorities(12, 7, 1) == [7, 8] + [PRIORITIES - 1] * 10
    assert priorities(3, 0, 0) == [0, 1, 2]  # a share below one counts as one


def test_a_dear_puzzle_goes_alone_to_the_dear_lane_and_cheap_ones_in_tasks_of_dear_seconds_at_most(make_app,
                                                                                                      toy):
    app = make_app(DEAR_SECONDS=1.0)
    sleeps = [0.0] * 3 + [2.0] + [0.3] * 10
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": str(i + 1), "options": {"sleep": s}} for i, s in enumerate(sleeps)]})
    assert r.status_code == 202
    sent = app.extensions["publisher"]
    with app.extensions["sessions"]() as s:
        rows = {p.id: p.index for p in s.scalars(select(Puzzle))}
        stored = {c.id: (c.first, c.size, c.estimated_seconds) for c in s.scalars(select(Chunk))}
    dear = [rows[i] for task in sent.dear for i in task]
    cheap_rows = [rows[i] for task in sent.chunks if task not in sent.dear for i in task]
    assert dear == [3] and len(sent.dear) == 1
    # The cheap ones: chunks (runs of more than one), and a row for a task of one.
    covered = sorted(cheap_rows + [first + k for first, size, _ in stored.values() for k in range(size)])
    assert covered == [0, 1, 2, *range(4, 14)] and sorted(sent.stored) == sorted(stored)
    # 3.9 s of work would make tasks of 0.24 s or more; those of 0.3 s go one by one, never 4 at once.
    assert all(seconds <= 1.0 for _first, _size, seconds in stored.values())


def test_a_clients_next_job_ranks_behind_its_unfinished_ones(make_app, toy):
    app = make_app()
    client, sent = app.test_client(), app.extensions["publisher"]
    # More than a small job's work (store.publish.job_rank): such a job ranks at most 1.
    body = {"puzzles": [{"kind": "toy", "puzzle": "1", "options": {"sleep": 0.1}}]}
    for _ in range(3):
        assert client.post("/api/v1/jobs", json=body).status_code == 202
    assert sent.ranks == [0, 1, 2]
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).values(status="completed"))
    assert client.post("/api/v1/jobs", json=body).status_code == 202
    assert sent.ranks[-1] == 0


def test_the_reaper_publishes_a_lost_puzzle_again_in_its_lane(make_app, toy):
    app = make_app(DEAR_SECONDS=1.0)
    app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": "1", "options": {"sleep": s}} for s in (2.0, 0.0)]})
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).values(deadline=now() - timedelta(seconds=1)))
    dear, cheap = puzzle_ids(app)
    again = RecordingPublisher()
    reaper.reap(runtime_of(app, again))
    assert again.dear == [[dear]] and again.chunks == [[cheap], [dear]]


@pytest.mark.integration
def test_through_redis_a_small_job_is_served_after_the_first_tasks_of_a_big_one(make_app):
    with fresh_redis() as url:
        app = make_app(REDIS_URL=url, TASK_QUEUE="q-fair", DEAR_QUEUE="q-fair-dear", FAIR_SHARE=1)
        publisher = CeleryPublisher(app.extensions["celery"], settings_of(app).lanes, settings_of(app).time)
        publisher.publish([[i] for i in range(1, 21)])  # a big job's 20 tasks
        publisher.publish([[100]])                       # then another client's small job
        publisher.publish_parts([[7], [8]])
        assert publisher.queue_depth() == 23  # both lanes: the reaper's empty-broker rule
        with app.extensions["celery"].connection_for_read() as conn:
            cheap = conn.SimpleQueue("q-fair")
            order = [json.loads(cheap.get(timeout=2).body)[0][0][0] for _ in range(21)]
            cheap.close()
            dear = conn.SimpleQueue("q-fair-dear")
            parts = [json.loads(dear.get(timeout=2).body)[0][0][0] for _ in range(2)]
            dear.close()
        assert order[:3] == [1, 100, 2], order
        assert sorted(order) == [*range(1, 21), 100]
        assert parts == [7, 8]


def test_dear_tasks_take_their_levels_by_the_predicted_seconds_ahead_of_them():
    assert dear_levels([30.0, 30.0, 100.0, 10.0], rank=0, queued=0.0, quantum=60.0) == [0, 0, 1, 2]
    assert dear_levels([1.0, 1.0], rank=1, queued=130.0, quantum=60.0) == [3, 3]  # behind 1 job and 130 s
    assert priorities(1, dear_levels([1.0], rank=0, queued=6000.0, quantum=60.0)[0], 1) == [PRIORITIES - 1]


def test_in_the_dear_lane_clients_share_by_predicted_seconds_not_by_tasks(make_app, toy):
    app = make_app(DEAR_SECONDS=1.0, DEAR_SHARE_SECONDS=5.0)
    client, sent = app.test_client(), app.extensions["publisher"]

    def post(address, *sleeps):
        body = {"puzzles": [{"kind": "toy", "puzzle": "1", "options": {"sleep": s}} for s in sleeps]}
        r = client.post("/api/v1/jobs", json=body, environ_base={"REMOTE_ADDR": address})
        assert r.status_code == 202, r.json

    post("10.0.0.1", 3.0, 3.0, 3.0, 3.0)  # each puzzle alone in the dear lane, 3 s ahead per task
    post("10.0.0.2", 3.0)  # nothing of its client ahead
    post("10.0.0.1", 3.0)  # behind its client's other job, and the 12 s of work it holds
    post("10.0.0.3", 25.0, 2.0)  # one big task, then a small one behind its 25 s
    assert len(sent.dear) == 8 and all(len(task) == 1 for task in sent.dear)
    assert sent.dear_ranks == [0, 0, 1, 1, 0, 1 + 2, 0, 5]


def test_monitors_see_a_few_ids_and_their_number():
    assert ids_repr([7, 8, 9]) == "[[7, 8, 9]]"
    assert ids_repr(list(range(5, 1005))) == "[[5, 6, 7, ... (1000 ids)]]"


def dear_jobs(app, *jobs):
    """Post each job of dear toy puzzles (3 s each, alone in their tasks) from its client's address;
    returns the jobs' ids and forgets what was published."""
    client, ids = app.test_client(), []
    for address, count in jobs:
        body = {"puzzles": [{"kind": "toy", "puzzle": "1", "options": {"sleep": 3.0}}] * count}
        r = client.post("/api/v1/jobs", json=body, environ_base={"REMOTE_ADDR": address})
        assert r.status_code == 202, r.json
        ids.append(r.json["id"])
    app.extensions["publisher"] = RecordingPublisher()
    return ids


def test_the_reaper_levels_lost_dear_work_by_the_predicted_seconds_of_its_owner(make_app, toy):
    app = make_app(DEAR_SECONDS=1.0, DEAR_SHARE_SECONDS=5.0)
    _first, lost, other = dear_jobs(app, ("10.0.0.1", 2), ("10.0.0.1", 3), ("10.0.0.2", 1))
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.job_id.in_([lost, other]))
                  .values(deadline=now() - timedelta(seconds=1)))
    again = RecordingPublisher()
    assert len(reaper.reap(runtime_of(app, again)).puzzles) == 4
    # 6 s of its owner's other job ahead of the first task, 9 s of the second: by count, [0, 0, 0, 0]
    assert again.dear_ranks == [1, 1, 2, 0]


def test_a_retry_levels_its_dear_tasks_by_the_predicted_seconds_ahead(make_app, toy):
    app = make_app(DEAR_SECONDS=1.0, DEAR_SHARE_SECONDS=5.0)
    _first, retried = dear_jobs(app, ("10.0.0.1", 2), ("10.0.0.1", 3))
    client = app.test_client()
    assert client.post(f"/api/v1/jobs/{retried}/cancel").status_code == 202
    assert client.post(f"/api/v1/jobs/{retried}/retry").status_code == 202
    # behind one other job (rank 1) and its 6 s, then each task behind the ones before it
    assert app.extensions["publisher"].dear_ranks == [2, 2, 3]


def split_behind_other_work(app):
    """A 20 s toy puzzle cut into 4 parts of 5 s, behind its client's other job of 6 s; the parts'
    ids (by count all four would start at the first level)."""
    client = app.test_client()
    client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1", "options": {"sleep": 6.0}}]})
    cut = {"kind": "toy", "puzzle": "1234", "options": {"split": 4}}
    r = client.post("/api/v1/jobs", json={"puzzles": [cut]})
    with app.extensions["sessions"]() as s:
        split = s.scalar(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]))
    publisher = RecordingPublisher()
    report = chunk.run_chunk(runtime_of(app, publisher), [split], "w")
    assert len(report.fanned) == 4 and publisher.parts == [[i] for i in report.fanned]
    assert publisher.part_ranks == [1, 2, 3, 4]  # 6 s, 11 s, 16 s, 21 s of its client's work ahead
    return report.fanned


@pytest.fixture
def twenty_seconds_toy(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", replace(TOY, predict=lambda p, o: Estimate(o["sleep"] or 20.0)))


def test_parts_take_their_levels_by_the_predicted_seconds_of_their_owner(make_app, twenty_seconds_toy):
    split_behind_other_work(make_app(DEAR_SECONDS=1.0, DEAR_SHARE_SECONDS=5.0))


def test_lost_parts_are_published_again_at_their_levels(make_app, twenty_seconds_toy):
    app = make_app(DEAR_SECONDS=1.0, DEAR_SHARE_SECONDS=5.0)
    parts = split_behind_other_work(app)
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Subtask).where(Subtask.id.in_(parts[2:]))
                  .values(deadline=now() - timedelta(seconds=1)))
    again = RecordingPublisher()
    assert reaper.reap(runtime_of(app, again)).parts == parts[2:]
    # behind the client's 6 s and its puzzle's two other parts (10 s), then each other
    assert again.part_ranks == [3, 4]
