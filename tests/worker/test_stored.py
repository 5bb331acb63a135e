"""Stored chunks (store.chunks, worker.stored) on SQLite (and PostgreSQL with -m integration): a job's
run of cheap puzzles claimed, solved by one ``solve_batch`` call and written as one row; delivered
twice, cancelled, lost and reaped; entries that leave for puzzle rows, which the one-puzzle path
(worker.chunk) then solves."""

from __future__ import annotations

import dataclasses
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

import solvers
from solvers import base
from solvers.base import Budgeted
from store import chunk_task, events, fastjson, jobs
from store.bookkeeping import WorkerBeat
from store.chunk_task import Written
from store.models import Chunk, Job, Puzzle, ResultBlock, Subtask, now
from tests.service.conftest import Broker, DownBroker, RecordingPublisher, runtime_of, settings_of
from tests.worker.conftest import EagerPublisher, as_read
from worker import chunk, reaper, stored


@pytest.fixture
def app(make_app, toy):
    return make_app(PUZZLE_TIME_LIMIT=5.0)


def toys(*puzzles, **options):
    return [{"kind": "toy", "puzzle": p, "options": options} for p in puzzles]


def post(app, items):
    """Submit the batch as one chunk: the job's id and its chunk's."""
    publisher = app.extensions["publisher"]
    before = len(publisher.stored)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202, r.json
    (chunk_id,) = publisher.stored[before:]
    return r.json["id"], chunk_id


def puzzles(app, job_id):
    """The job's puzzles as readers see them (store.jobs): rows, and entries of its chunks."""
    with app.extensions["sessions"]() as s:
        return as_read(s, jobs.list_puzzles(s, job_id, 10_000)[0])


def row_ids(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))


def chunk_row(app, chunk_id):
    with app.extensions["sessions"]() as s:
        return s.get(Chunk, chunk_id)


def job_row(app, job_id):
    with app.extensions["sessions"]() as s:
        return s.get(Job, job_id)


def api_job(app, job_id):
    return app.test_client().get(f"/api/v1/jobs/{job_id}").json


def run(app, chunk_id, publisher=None, worker="w1", redelivered=False):
    runtime = runtime_of(app, publisher or RecordingPublisher())
    return stored.run_stored(runtime, chunk_id, worker, redelivered)


def claim(app, chunk_id, worker, lease=timedelta(minutes=5)):
    """The chunk claimed as a task that then goes no further (its worker lost) leaves it."""
    with app.extensions["sessions"]() as s, s.begin():
        return chunk_task.claim(s, chunk_id, worker, now() + lease)


def solve_rows(app, ids, worker="w2"):
    """Each row that left a chunk run as its own task, as published."""
    return [chunk.run_chunk(runtime_of(app, RecordingPublisher()), [i], worker).written for i in ids]


@pytest.fixture
def batches(app, toy, monkeypatch):
    """The toy's solve_batch calls: its prepared puzzles and the chunks' statuses then."""
    calls = []

    def solve_batch(prepared, options):
        with app.extensions["sessions"]() as s:
            calls.append((list(prepared), set(s.scalars(select(Chunk.status)))))
        return base.solve_each(batched, prepared, options)

    batched = dataclasses.replace(toy, solve_batch=solve_batch)
    monkeypatch.setitem(solvers.KINDS, "toy", batched)
    return calls


def test_a_cheap_run_is_one_chunk_solved_by_one_call_and_written_once(app, toy, batches):
    digits = [str(i) for i in range(40)]
    job_id, chunk_id = post(app, toys(*digits))
    assert row_ids(app, job_id) == [], "no puzzle row for the entries of a chunk"
    assert [p.status for p in puzzles(app, job_id)] == ["queued"] * 40
    report = run(app, chunk_id)
    assert (report.written, report.left) == (40, [])
    assert batches == [([toy.parse(d) for d in digits], {"running"})]  # one call, the chunk claimed
    got = puzzles(app, job_id)
    assert [p.status for p in got] == ["no_solution"] + ["solved"] * 39
    assert [p.result for p in got[1:]] == [{"sum": sum(map(int, d))} for d in digits[1:]]
    assert all(p.attempts == 1 and p.started_at and p.finished_at and p.solve_ms is not None for p in got)
    c = chunk_row(app, chunk_id)
    assert (c.status, c.outcome, c.worker, c.deadline) == ("written", "n" + "s" * 39, "w1", None)
    job = job_row(app, job_id)
    assert job.status == "completed" and job.pending == 0 and job.started_at and job.finished_at
    api = api_job(app, job_id)
    assert api["progress"] == 1.0 and (api["counts"]["solved"], api["counts"]["no_solution"]) == (39, 1)
    with app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(ResultBlock)) == 1
    # Delivered again (duplicated, or redelivered): nothing solved again, nothing written twice.
    assert (run(app, chunk_id).written, run(app, chunk_id, redelivered=True).written) == (0, 0)
    assert len(batches) == 1 and [p.status for p in puzzles(app, job_id)] == [p.status for p in got]


def test_a_second_task_of_a_running_chunk_does_nothing(app):
    _job_id, chunk_id = post(app, toys("1", "2", "3"))
    assert claim(app, chunk_id, "w1") is not None
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher, worker="w2")  # a duplicate message, not a redelivery
    assert (report.written, report.left, publisher.chunks) == (0, [], [])
    c = chunk_row(app, chunk_id)
    assert (c.status, c.attempts, c.worker) == ("running", 1, "w1")


def test_a_redelivered_chunk_claimed_while_it_runs_is_dissolved_into_rows_one_a_task(app):
    # The broker delivers it again: its worker died with it (or lost its connection) mid-chunk.
    job_id, chunk_id = post(app, toys("1", "2", "3"))
    first = claim(app, chunk_id, "w1")
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher, worker="w2", redelivered=True)
    ids = row_ids(app, job_id)
    assert report.written == 0 and report.left == ids and len(ids) == 3
    assert publisher.chunks == [[i] for i in ids], "one a task: only a killer uses up its attempts"
    c = chunk_row(app, chunk_id)
    assert (c.status, c.outcome, c.attempts) == ("written", "lll", 2)
    assert [(p.status, p.attempts) for p in puzzles(app, job_id)] == [("queued", 0)] * 3
    # The first task's late write is no longer this chunk's: it writes nothing.
    with app.extensions["sessions"]() as s, s.begin():
        late = Written(["solved"] * 3, ['[{"sum":9},null]'] * 3, {}, 1.0)
        assert chunk_task.write(s, first, late) == (0, [])
    assert solve_rows(app, ids) == [1, 1, 1]
    assert [(p.status, p.result, p.attempts) for p in puzzles(app, job_id)] == [
        ("solved", {"sum": n}, 1) for n in (1, 2, 3)]
    assert job_row(app, job_id).status == "completed" and job_row(app, job_id).pending == 0


def beating(app, name, seconds_ago=0.0):
    with app.extensions["sessions"]() as s, s.begin():
        t = now() - timedelta(seconds=seconds_ago)
        s.merge(WorkerBeat(name=name, started_at=t, beat_at=t))


@pytest.mark.parametrize("lost", ["lease", "silent"])
def test_a_lost_workers_chunk_is_requeued_by_the_reaper_and_dissolved_at_its_next_claim(app, lost):
    job_id, chunk_id = post(app, toys("1", "2", "3"))
    if lost == "lease":  # its lease ran out
        claim(app, chunk_id, "dead", lease=timedelta(seconds=-1))
    else:  # its lease runs for minutes, but its worker's heartbeat stopped
        claim(app, chunk_id, "dead")
        beating(app, "dead", seconds_ago=settings_of(app).recovery.worker_silent_seconds + 1)
        beating(app, "alive")
    publisher = RecordingPublisher()
    reaped = reaper.reap(runtime_of(app, publisher))
    assert (reaped.chunks, reaped.puzzles, publisher.stored) == ([chunk_id], [], [chunk_id])
    c = chunk_row(app, chunk_id)
    assert (c.status, c.attempts, c.worker) == ("queued", 1, None)
    assert c.deadline.replace(tzinfo=None) > now().replace(tzinfo=None)
    assert api_job(app, job_id)["counts"]["queued"] == 3
    assert reaper.reap(runtime_of(app, RecordingPublisher())).chunks == [], "handed on once"
    # Claimed again, it was claimed before: its entries leave for rows, each a task of its own.
    again = RecordingPublisher()
    report = run(app, chunk_id, again, worker="w2")
    ids = row_ids(app, job_id)
    assert report.left == ids and again.chunks == [[i] for i in ids] and report.written == 0
    assert chunk_row(app, chunk_id).outcome == "lll"
    assert solve_rows(app, ids) == [1, 1, 1]
    assert [p.status for p in puzzles(app, job_id)] == ["solved"] * 3
    assert job_row(app, job_id).status == "completed"


def test_the_reaper_publishes_a_queued_chunk_whose_message_was_lost(app):
    job_id, chunk_id = post(app, toys("1", "2"))
    assert reaper.reap(runtime_of(app, RecordingPublisher())).chunks == [], "posted just now"
    stale = settings_of(app).recovery.queued_stale_seconds + 1
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Chunk).values(created_at=now() - timedelta(seconds=stale)))
    publisher = RecordingPublisher()
    assert reaper.reap(runtime_of(app, publisher)).chunks == [chunk_id] and publisher.stored == [chunk_id]
    assert reaper.reap(runtime_of(app, RecordingPublisher())).chunks == [], "its deadline moved on"
    c = chunk_row(app, chunk_id)
    assert (c.status, c.attempts) == ("queued", 0)
    # Never claimed: its next task solves it whole.
    assert run(app, chunk_id).written == 2 and job_row(app, job_id).status == "completed"


@pytest.mark.parametrize("published", ["again", "at_submit"])
def test_an_empty_broker_with_a_chunk_published_long_ago_means_its_message_was_lost(app, published):
    _job_id, chunk_id = post(app, toys("1", "2"))
    _job_id, running = post(app, toys("3", "4"))
    assert reaper.reap(runtime_of(app, Broker(depth=0))).chunks == [], "posted just now"
    recovery = settings_of(app).recovery
    ago = timedelta(seconds=recovery.lost_task_seconds + 1)
    # published again: its deadline is then QUEUED_STALE_SECONDS on; at submit it has none
    values = ({"deadline": now() - ago + timedelta(seconds=recovery.queued_stale_seconds)}
              if published == "again" else {"created_at": now() - ago})
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Chunk).values(**values))
    claim(app, running, "alive")  # a chunk running right now is not lost
    beating(app, "alive")
    assert reaper.reap(runtime_of(app, Broker(depth=2))).chunks == [], "messages still wait"
    broker = Broker(depth=0)
    assert reaper.reap(runtime_of(app, broker)).chunks == [chunk_id] and broker.stored == [chunk_id]
    assert reaper.reap(runtime_of(app, Broker(depth=0))).chunks == [], "published just now"


def test_a_chunk_posted_while_the_broker_is_down_is_published_by_the_next_reaper_run(app):
    app.extensions["publisher"] = DownBroker()
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": toys("1", "2")})
    assert r.status_code == 202
    with app.extensions["sessions"]() as s:
        (c,) = s.scalars(select(Chunk)).all()
    assert c.deadline.replace(tzinfo=None) <= now().replace(tzinfo=None), "marked due"
    assert reaper.reap(runtime_of(app, DownBroker())).chunks == [c.id]  # still down: due again
    back = RecordingPublisher()
    assert reaper.reap(runtime_of(app, back)).chunks == [c.id] and back.stored == [c.id]
    assert reaper.reap(runtime_of(app, RecordingPublisher())).chunks == []


def test_a_cancel_while_a_chunk_runs_is_final_and_its_write_writes_nothing(app, toy, monkeypatch):
    job_id, chunk_id = post(app, toys("1", "2", "3"))

    def cancel_then_solve(prepared, options):
        assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
        return base.solve_each(toy, prepared, options)

    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(toy, solve_batch=cancel_then_solve))
    report = run(app, chunk_id)
    assert (report.written, report.left) == (0, [])
    assert [(p.status, p.result) for p in puzzles(app, job_id)] == [("cancelled", None)] * 3
    assert chunk_row(app, chunk_id).outcome == "ccc"
    job = job_row(app, job_id)
    assert job.status == "cancelled" and job.pending == 0
    with app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(ResultBlock)) == 0
    assert api_job(app, job_id)["counts"]["cancelled"] == 3


def test_a_cancel_while_a_chunk_runs_leaves_no_entry_that_was_to_leave(app, monkeypatch):
    """An entry past the node budget would leave for a row, but the job was cancelled meanwhile:
    the write writes nothing, and no row is made or published."""
    budgeted = dataclasses.replace(solvers.KINDS["toy"], plan=lambda *args: Budgeted(2, 4))
    job_id, chunk_id = post(app, toys("1", "12345", "22"))

    def cancel_then_solve(prepared, options):
        assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
        return base.solve_each(budgeted, prepared, options)

    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(budgeted, solve_batch=cancel_then_solve))
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher)
    assert (report.written, report.left, report.moved, publisher.chunks) == (0, [], [], [])
    assert [p.status for p in puzzles(app, job_id)] == ["cancelled"] * 3 and row_ids(app, job_id) == []


def test_a_task_arriving_after_a_cancel_claims_nothing(app):
    job_id, chunk_id = post(app, toys("1", "2"))
    assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    assert run(app, chunk_id).written == 0 and run(app, chunk_id, redelivered=True).written == 0
    assert [p.status for p in puzzles(app, job_id)] == ["cancelled"] * 2
    assert (chunk_row(app, chunk_id).attempts, row_ids(app, job_id)) == (0, [])


def test_an_entry_past_the_node_budget_leaves_and_is_solved_alone_through_its_row(app, batches, monkeypatch):
    budgeted = dataclasses.replace(solvers.KINDS["toy"], plan=lambda *args: Budgeted(2, 4))
    monkeypatch.setitem(solvers.KINDS, "toy", budgeted)  # 2 nodes, and the toy reads a digit a node
    real, alone = chunk.solve_one, []
    monkeypatch.setattr(chunk, "solve_one", lambda a, *rest: alone.append(a.input) or real(a, *rest))
    job_id, chunk_id = post(app, toys("1", "12345", "22"))
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher)
    (left,) = row_ids(app, job_id)
    assert (report.written, report.left, publisher.chunks) == (2, [left], [[left]])
    assert [p.status for p in puzzles(app, job_id)] == ["solved", "queued", "solved"]
    assert chunk_row(app, chunk_id).outcome == "sls" and job_row(app, job_id).pending == 1
    assert solve_rows(app, [left]) == [1]
    assert len(batches) == 1 and alone == ["12345"]
    assert [p.result for p in puzzles(app, job_id)] == [{"sum": 1}, {"sum": 15}, {"sum": 4}]
    assert job_row(app, job_id).status == "completed"


def test_entries_to_be_split_leave_and_are_split_through_their_rows(app):
    # Predicted cheap, so stored as a chunk; the plan cuts each into parts, which only a row can have.
    app.extensions["publisher"] = EagerPublisher(app)
    job_id, chunk_id = post(app, toys("12", "345", split=2))
    assert chunk_row(app, chunk_id).outcome == "ll"
    got = puzzles(app, job_id)
    assert [(p.status, p.result, p.parts_total, p.parts_done) for p in got] == [
        ("solved", {"sum": 3}, 2, 2), ("solved", {"sum": 12}, 2, 2)]
    assert [p.id > 0 for p in got] == [True, True], "each is its row now"
    with app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(Subtask)) == 4
    assert api_job(app, job_id)["status"] == "completed"


@pytest.mark.parametrize(("options", "error"), [
    ({"lie": True}, "internal error: the solver's answer failed verification (sum"),
    ({"crash": True}, "solver error: RuntimeError: toy solver crashed on purpose"),
])
def test_a_chunk_whose_solve_batch_fails_leaves_whole_and_each_row_fails_alone(app, options, error):
    job_id, chunk_id = post(app, toys("1", "2", "3", **options))
    report = run(app, chunk_id)
    ids = row_ids(app, job_id)
    assert (report.written, report.left, chunk_row(app, chunk_id).outcome) == (0, ids, "lll")
    assert solve_rows(app, ids) == [1, 1, 1]
    assert all(p.status == "failed" and p.error.startswith(error) for p in puzzles(app, job_id))
    assert job_row(app, job_id).status == "completed"


@pytest.mark.parametrize(("changed", "bad", "error"), [
    ("input", [1], "invalid puzzle: bad symbol 'x': a toy puzzle has only digits"),
    ("options", [0, 1, 2], "invalid puzzle: option 'sleep' must be at least 0; got -1.0"),
])
def test_stored_entries_that_no_longer_prepare_leave_and_fail_alone(app, changed, bad, error):
    # stored behind the API's back (or its checks tightened since)
    job_id, chunk_id = post(app, toys("1", "2", "3"))
    values = ({"inputs": fastjson.dumps(["1", "3x", "3"])} if changed == "input"
              else {"options": {**chunk_row(app, chunk_id).options, "sleep": -1}})
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Chunk).where(Chunk.id == chunk_id).values(**values))
    report = run(app, chunk_id)
    ids = row_ids(app, job_id)
    assert (report.written, report.left) == (3 - len(bad), ids) and len(ids) == len(bad)
    assert solve_rows(app, ids) == [1] * len(bad)
    got = puzzles(app, job_id)
    assert [p.status == "failed" for p in got] == [i in bad for i in range(3)]
    assert all(got[i].error == error for i in bad)
    assert [p.result["sum"] for i, p in enumerate(got) if i not in bad] == [
        n for i, n in enumerate([1, 2, 3]) if i not in bad]


def test_eager_end_to_end_through_the_api(app):
    # several chunks, though the toy puzzles cost nothing
    app.extensions["settings"] = settings_of(app).replace(CHUNK_SECONDS=1e-5)
    publisher = EagerPublisher(app)
    app.extensions["publisher"] = publisher
    client = app.test_client()
    accepted = client.post("/api/v1/jobs", json={"puzzles": toys(*[str(i) for i in range(40)])})
    assert accepted.status_code == 202
    # The answer is the job as stored, not read again after publishing (here, solving) it.
    assert accepted.json["status"] == "queued" and accepted.json["counts"]["queued"] == 40
    job_id = accepted.json["id"]
    job = client.get(f"/api/v1/jobs/{job_id}").json
    assert job["status"] == "completed"
    assert job["counts"]["solved"] == 39 and job["counts"]["no_solution"] == 1
    assert publisher.chunks == [] and [chunk_row(app, i).size for i in publisher.stored] == [10] * 4
    items = client.get(f"/api/v1/jobs/{job_id}/puzzles?limit=100").json["items"]
    assert [p["index"] for p in items] == list(range(40))
    assert [p["result"] for p in items[1:]] == [{"sum": sum(map(int, str(i)))} for i in range(1, 40)]
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'puzzle_queue_puzzles_finished_total{kind="toy",status="solved"} 39.0' in metrics
    assert 'puzzle_queue_solve_seconds_count{kind="toy"} 40.0' in metrics
    assert "puzzle_queue_jobs_submitted_total 1.0" in metrics


def slow_on(toy, digit, seconds, **changes):
    """The toy kind sleeping ``seconds`` on a puzzle that holds ``digit``: a puzzle its prediction
    misses, among alike ones it predicts right."""

    def solve(puzzle, options, node_limit=None, stop=None):
        if digit in puzzle:
            time.sleep(seconds)
        return toy.solve(puzzle, options, node_limit, stop)

    return dataclasses.replace(toy, solve=solve, solve_batch=None, **changes)


def test_a_chunk_past_the_cheap_lanes_cap_leaves_for_rows_and_only_the_slow_one_reaches_the_dear_lane(
        make_app, toy, monkeypatch):
    monkeypatch.setitem(solvers.KINDS, "toy", slow_on(toy, 9, 0.5))
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.05)
    job_id, chunk_id = post(app, toys("1", "9", "2"))
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher)
    ids = row_ids(app, job_id)
    # The call ran past the cap: no entry written, none failed, each a row in its lane, one a task.
    assert (report.written, report.left, report.moved) == (0, ids, []) and len(ids) == 3
    assert publisher.chunks == [[i] for i in ids] and publisher.dear == []
    assert chunk_row(app, chunk_id).outcome == "lll"
    assert [(p.status, p.attempts, p.error) for p in puzzles(app, job_id)] == [("queued", 0, None)] * 3
    # Each row a task of the cheap lane: the quick ones solved, the slow one moved at the cap.
    runtime = runtime_of(app, publisher)
    assert [chunk.run_chunk(runtime, [i], "w2", cheap_lane=True).moved for i in ids] == [[], [ids[1]], []]
    assert publisher.dear == [[ids[1]]]
    assert [(p.status, p.attempts) for p in puzzles(app, job_id)] == [
        ("solved", 1), ("queued", 0), ("solved", 1)]
    # The dear lane has no cap: solved there, as its first counted attempt.
    assert chunk.run_chunk(runtime, [ids[1]], "w3").written == 1
    assert [(p.status, p.attempts, p.result) for p in puzzles(app, job_id)] == [
        ("solved", 1, {"sum": n}) for n in (1, 9, 2)]
    assert job_row(app, job_id).status == "completed"


def test_an_entry_alone_in_a_call_past_the_cap_is_published_to_the_dear_lane(make_app, toy, monkeypatch):
    # The "8" is predicted above OPTIMISTIC_SECONDS: it leaves before the call, the "9" runs alone.
    kind = slow_on(toy, 9, 0.5, predict=lambda puzzle, options: base.Estimate(0.5 if 8 in puzzle else 1e-6))
    monkeypatch.setitem(solvers.KINDS, "toy", kind)
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.05, CHUNK_SPREAD=1)
    job_id, chunk_id = post(app, toys("8", "9"))
    publisher = RecordingPublisher()
    report = run(app, chunk_id, publisher)
    eight, nine = row_ids(app, job_id)
    assert (report.written, report.left, report.moved) == (0, [eight, nine], [nine])
    assert publisher.chunks == [[eight], [nine]] and publisher.dear == [[nine]]
    assert [(p.status, p.attempts, p.error) for p in puzzles(app, job_id)] == [("queued", 0, None)] * 2
    # The job's history says so: both left their chunk, the "9" moved to the dear lane at the cap.
    with app.extensions["sessions"]() as s:
        history, _next = events.of_job(s, s.get(Job, job_id), 100)
    moves = [(e.first, e.detail.get("lane")) for e in history if e.type == "moved"]
    assert moves == [(1, "dear")]
