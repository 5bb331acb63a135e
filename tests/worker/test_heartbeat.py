"""Lost workers found in seconds (worker.heartbeat, worker.reaper) on SQLite (and PostgreSQL with
-m integration): a silent worker's claimed puzzles and subtasks are published again at once; a
living worker keeps its claims; a broker that lost its messages is noticed by its empty queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from store import rows as puzzle_rows
from store import workers as worker_rows
from store.bookkeeping import WorkerBeat
from store.db import dialect_of
from store.models import Puzzle, Subtask, now
from tests.service.conftest import Broker, DownBroker, RecordingPublisher, claim_part, runtime_of, settings_of
from tests.worker.test_chunk import ids_of, job_row, post, rows, toys
from tests.worker.test_parts import fan_out, toy_item
from worker import chunk, heartbeat, reaper


@pytest.fixture
def app(make_app, toy, database_url):
    """One puzzle a task, so every puzzle is a row (a lost chunk's reaping: tests/worker/test_stored.py)."""
    return make_app(DATABASE_URL=database_url, PUZZLE_TIME_LIMIT=5.0, CHUNK_MAX=1)


def beating(app, name, seconds_ago=0.0):
    with app.extensions["sessions"]() as s, s.begin():
        t = now() - timedelta(seconds=seconds_ago)
        s.merge(WorkerBeat(name=name, started_at=t, beat_at=t))


def claim(app, ids, worker):
    with app.extensions["sessions"]() as s, s.begin():
        return puzzle_rows.claim(s, ids, worker, now() + settings_of(app).time.lease())


def workers(app):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(WorkerBeat.name).order_by(WorkerBeat.name)))


def silent_for(app):
    return settings_of(app).recovery.worker_silent_seconds + 1


def test_a_silent_workers_claims_go_out_again_at_once_and_a_living_workers_stay(app):
    job_id = post(app, toys("1", "2", "3"))
    a, b, c = ids_of(app, job_id)
    claim(app, [a, b], "dead")  # leases run for minutes: only the heartbeat tells
    claim(app, [c], "alive")
    beating(app, "dead", seconds_ago=silent_for(app))
    beating(app, "alive")
    publisher = RecordingPublisher()
    assert reaper.reap(runtime_of(app, publisher)).puzzles == [a, b]
    assert publisher.chunks == [[a], [b]]
    assert list(workers(app)) == ["alive"], "the dead worker's row is gone once its work is handed on"
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    # The new tasks claim them again and write each exactly once; the dead worker's late write is stale.
    for i in (a, b):
        report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), [i], "w2")
        assert report.written == 1
    pa, pb, pc = rows(app, job_id)
    assert (pa.status, pa.attempts, pa.worker) == ("solved", 2, "w2")
    assert (pb.status, pb.attempts) == ("solved", 2)
    assert (pc.status, pc.worker, pc.attempts) == ("running", "alive", 1)  # still its living worker's
    assert job_row(app, job_id).pending == 1


def test_a_dead_pool_process_of_a_living_worker_is_left_to_celerys_redelivery(app):
    job_id = post(app, toys("1", "2"))
    a, b = ids_of(app, job_id)
    claim(app, [a], "host:11:node1")  # its main process lives: a sibling (or its replacement) beats
    claim(app, [b], "host:21:node2")  # the whole worker is gone
    beating(app, "host:11:node1", seconds_ago=silent_for(app))
    beating(app, "host:12:node1")
    beating(app, "host:21:node2", seconds_ago=silent_for(app))
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == [b]
    assert list(workers(app)) == ["host:12:node1"]
    assert rows(app, job_id)[0].status == "running"


def test_silence_is_not_trusted_right_after_the_reaper_itself_was_cut_off(app):
    job_id = post(app, toys("1"))
    (a,) = ids_of(app, job_id)
    claim(app, [a], "w")
    beating(app, "w", seconds_ago=silent_for(app))  # as every row looks after a database outage
    assert reaper.reap(runtime_of(app, RecordingPublisher()), trust_silence=False).puzzles == []
    assert list(workers(app)) == ["w"]
    assert rows(app, job_id)[0].status == "running"


def test_a_chunk_written_before_its_worker_died_hands_nothing_on(app):
    n = 3
    job_id = post(app, toys(*map(str, range(1, n + 1))))
    ids = ids_of(app, job_id)
    report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids, "w1")
    assert report.written == n
    assert all(p.worker == "w1" for p in rows(app, job_id))
    beating(app, "w1", seconds_ago=silent_for(app))
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    assert job_row(app, job_id).status == "completed"


def run_sending(app, ids) -> tuple[chunk.ChunkReport, list[tuple[str, str | None]]]:
    """The chunk run by "w1", and each statement it sent: its first word, and its isolation level
    ("AUTOCOMMIT": outside a transaction)."""
    engine = app.extensions["engine"]
    sent: list[tuple[str, str | None]] = []

    def sending(conn, _cursor, statement, *_args):
        sent.append((statement.split()[0], conn.get_execution_options().get("isolation_level")))

    event.listen(engine, "before_cursor_execute", sending)
    try:
        return chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids, "w1"), sent
    finally:
        event.remove(engine, "before_cursor_execute", sending)


def test_a_chunk_is_claimed_and_its_results_written_by_one_statement_in_transactions(app):
    job_id = post(app, toys("1", "2"))
    report, sent = run_sending(app, ids_of(app, job_id))
    assert report.written == 2 and job_row(app, job_id).status == "completed"
    assert all(p.status == "solved" and p.attempts == 1 and p.worker == "w1" for p in rows(app, job_id))
    assert sent and all(level != "AUTOCOMMIT" for _, level in sent)
    if dialect_of(app.extensions["engine"]).writes_in_with:
        # The job's lock, block, rows and counter by one statement, in the transaction that also
        # moves the tallies.
        assert [word for word, _ in sent].count("WITH") == 1


def test_results_written_unalike_are_written_by_group(app):
    job_id = post(app, toys("1", "0"))
    report, sent = run_sending(app, ids_of(app, job_id))
    assert report.written == 2 and job_row(app, job_id).status == "completed"
    assert [(p.status, p.attempts, p.worker) for p in rows(app, job_id)] == [
        ("solved", 1, "w1"), ("no_solution", 1, "w1")]
    if dialect_of(app.extensions["engine"]).writes_in_with:
        assert [word for word, _ in sent].count("WITH") == 2


def test_a_silent_workers_subtask_goes_out_again_and_a_living_workers_stays(app):
    _job_id, _p, parts = fan_out(app, toy_item("123", split=3))
    sessions = app.extensions["sessions"]
    with sessions() as s, s.begin():
        assert claim_part(s, app, parts[0], "dead") is not None
        assert claim_part(s, app, parts[1], "alive") is not None
    beating(app, "dead", seconds_ago=silent_for(app))
    beating(app, "alive")
    publisher = RecordingPublisher()
    assert reaper.reap(runtime_of(app, publisher)).parts == [parts[0]]
    assert publisher.parts == [[parts[0]]]
    with sessions() as s:
        states = s.execute(select(Subtask.status, Subtask.worker).where(Subtask.id.in_(parts))
                           .order_by(Subtask.index)).all()
    # Handed on: no worker holds it until the new task claims it.
    assert [tuple(r) for r in states] == [("running", None), ("running", "alive"), ("queued", None)]


def test_a_living_workers_claims_that_no_task_holds_go_out_again_once(app):
    """``since`` in the heartbeat: a claim older than the oldest task its worker runs was left by a
    task that ended (it failed, or its retry was lost with the broker's connection)."""
    job_id = post(app, toys("1", "2"))
    a, b = ids_of(app, job_id)
    _job_id, _p, parts = fan_out(app, toy_item("12", split=2))
    sessions = app.extensions["sessions"]
    tasks = heartbeat.Tasks()
    assert tasks.since() is None, "a process that has run no task holds nothing"

    def beat_and_reap() -> reaper.Reaped:
        with sessions() as s, s.begin():
            worker_rows.beat(s, "w", tasks.since())
        return reaper.reap(runtime_of(app, RecordingPublisher()))

    tasks.started("t1")
    claim(app, [a], "w")
    with sessions() as s, s.begin():
        assert claim_part(s, app, parts[0], "w") is not None
    reaped = beat_and_reap()
    assert (reaped.puzzles, reaped.parts) == ([], []), "held by the task that runs"
    tasks.started("t2")  # the thread pool: a second task beside the first
    tasks.ended("t2")
    reaped = beat_and_reap()
    assert (reaped.puzzles, reaped.parts) == ([], []), "the task that claimed them still runs"
    tasks.ended("t1")  # without writing them
    tasks.started("t3")
    claim(app, [b], "w")
    reaped = beat_and_reap()
    assert (reaped.puzzles, reaped.parts) == ([a], [parts[0]])
    reaped = beat_and_reap()
    assert (reaped.puzzles, reaped.parts) == ([], []), "handed on once, not at every run"
    assert [(p.status, p.worker) for p in rows(app, job_id)] == [("running", None), ("running", "w")]


def test_an_empty_broker_with_old_queued_work_means_its_messages_were_lost(app):
    job_id = post(app, toys("1", "2", "3"))
    a, b, c = ids_of(app, job_id)
    sessions = app.extensions["sessions"]
    recovery = settings_of(app).recovery
    stale, lost_after = recovery.queued_stale_seconds, recovery.lost_task_seconds
    published_long_ago = now() + timedelta(seconds=stale - lost_after - 1)
    with sessions() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id.in_([a, b, c])).values(deadline=published_long_ago))
    claim(app, [c], "alive")  # a puzzle a living worker runs right now is not lost
    beating(app, "alive")
    # Messages still wait in the queue: nothing is lost yet.
    assert reaper.reap(runtime_of(app, Broker(depth=2))).puzzles == []
    # Unknown depth (a publisher that cannot tell): only the deadline counts.
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    broker = Broker(depth=0)
    assert reaper.reap(runtime_of(app, broker)).puzzles == [a, b]
    assert broker.chunks == [[a], [b]]
    # Their deadlines moved on: published just now, so not lost again at the next run.
    assert reaper.reap(runtime_of(app, Broker(depth=0))).puzzles == []


def test_a_job_posted_just_now_is_not_taken_for_lost(app):
    post(app, toys("1", "2"))
    assert reaper.reap(runtime_of(app, Broker(depth=0))).puzzles == []


def test_an_empty_broker_also_finds_lost_subtasks(app):
    _job_id, _p, parts = fan_out(app, toy_item("12", split=2))
    sessions = app.extensions["sessions"]
    recovery = settings_of(app).recovery
    stale, lost_after = recovery.queued_stale_seconds, recovery.lost_task_seconds
    with sessions() as s, s.begin():
        s.execute(update(Subtask).where(Subtask.id.in_(parts))
                  .values(deadline=now() + timedelta(seconds=stale - lost_after - 1)))
    assert reaper.reap(runtime_of(app, Broker(depth=1))).parts == []
    assert reaper.reap(runtime_of(app, Broker(depth=0))).parts == parts


def test_worker_processes_take_turns_at_the_reaper(app):
    assert reaper.reap_if_due(runtime_of(app, RecordingPublisher()), trust_silence=True) is not None
    assert reaper.reap_if_due(runtime_of(app, RecordingPublisher()), trust_silence=True) is None


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_a_heartbeat_renews_its_row_and_is_steady_only_after_a_quiet_stretch(app):
    clock, calls = Clock(), []
    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, calls.append, clock=clock)
    hb.reap_turn()
    assert calls == [], "never reached the database: no reaping"
    hb.tick()
    assert list(workers(app)) == [heartbeat.worker_name()]
    hb.reap_turn()
    assert calls == [False], "just connected: may not judge others silent yet"
    clock.t += settings_of(app).recovery.worker_silent_seconds
    hb.tick()
    hb.reap_turn()
    assert calls == [False, True]
    hb.end()
    assert workers(app) == []


def test_each_beat_writes_the_queues_the_worker_takes_from(app, monkeypatch):
    # Known only once the `celery worker` is set up (worker.app): the beats before say nothing.
    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, lambda _steady: None)
    monkeypatch.setattr(heartbeat, "consuming", [])
    hb.tick()
    with app.extensions["sessions"]() as s:
        assert s.get(WorkerBeat, heartbeat.worker_name()).queues is None
    monkeypatch.setattr(heartbeat, "consuming", ["puzzles", "puzzles.dear"])
    hb.tick()
    with app.extensions["sessions"]() as s:
        assert s.get(WorkerBeat, heartbeat.worker_name()).queues == "puzzles,puzzles.dear"


def test_a_heartbeat_cut_off_from_the_database_starts_its_quiet_stretch_again(app, monkeypatch):
    clock, calls = Clock(), []
    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, calls.append, clock=clock)
    hb.tick()
    hb.reap_turn()
    clock.t += settings_of(app).recovery.worker_silent_seconds

    def down(*_args):
        raise ConnectionError("database down")

    monkeypatch.setattr(worker_rows, "beat", down)
    hb.tick()
    hb.reap_turn()
    assert hb.connected_since is None and calls == [False]
    monkeypatch.undo()
    hb.tick()
    hb.reap_turn()
    assert calls == [False, False], "back after an outage: others' rows are old, not dead"


def test_a_post_while_the_broker_is_down_is_accepted_and_published_by_the_next_reaper_run(app):
    app.extensions["publisher"] = DownBroker()
    job_id = post(app, toys("1", "2"))
    ids = ids_of(app, job_id)
    assert all(p.deadline.replace(tzinfo=None) <= now().replace(tzinfo=None) for p in rows(app, job_id))
    # Still down: the reaper's publish fails too, and leaves them due for its next run.
    assert reaper.reap(runtime_of(app, DownBroker())).puzzles == ids
    assert all(p.deadline.replace(tzinfo=None) <= now().replace(tzinfo=None) for p in rows(app, job_id))
    back = RecordingPublisher()
    assert reaper.reap(runtime_of(app, back)).puzzles == ids
    assert back.chunks == [[i] for i in ids]
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
