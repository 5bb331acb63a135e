"""Tasks of puzzle rows (worker.chunk) on SQLite (and PostgreSQL with -m integration): claiming,
solving, verifying, bulk writes, exactly-once, reaper. The jobs here are cut one puzzle a task
(CHUNK_MAX=1), so that every puzzle is a row (a run of cheap puzzles in one task is stored as a
chunk instead, tests/worker/test_stored.py); a test hands a task several rows, as a task of unalike
puzzles, a retry or a dissolved chunk's rows come."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import func, select, text, update

import solvers
from solvers import base
from solvers.base import Budgeted
from store import costs, results, tallies
from store import rows as puzzle_rows
from store.db import changed_rows, dialect_of
from store.models import Job, Puzzle, ResultBlock, lock_job, now
from tests.service.conftest import RecordingPublisher, plans_of, runtime_of, settings_of
from tests.worker.conftest import EagerPublisher, as_read
from worker import chunk, limits, outcome, reaper


@pytest.fixture
def app(make_app, toy):
    return make_app(PUZZLE_TIME_LIMIT=5.0, CHUNK_MAX=1)


def post(app, items, **kw):
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items}, **kw)
    assert r.status_code == 202, r.json
    return r.json["id"]


def toys(*puzzles, **options):
    return [{"kind": "toy", "puzzle": p, "options": options} for p in puzzles]


def rows(app, job_id):
    with app.extensions["sessions"]() as s:
        return as_read(s, list(s.scalars(select(Puzzle).where(Puzzle.job_id == job_id)
                                         .order_by(Puzzle.index))))


def job_row(app, job_id):
    with app.extensions["sessions"]() as s:
        return s.get(Job, job_id)


def left_running(s, *where, **values):
    """Queued puzzles as a worker that died holding them left them: claimed, tallies included."""
    n = changed_rows(s, update(Puzzle).where(Puzzle.status == "queued", *where)
                     .values(status="running", **values))
    tallies.moved(s, "toy", "queued", "running", n)


def run(app, ids, publisher=None):
    publisher = publisher or RecordingPublisher()
    return chunk.run_chunk(runtime_of(app, publisher), ids, "w1")


def ids_of(app, job_id):
    return [p.id for p in rows(app, job_id)]


def test_chunk_solves_verifies_and_completes_the_job(app):
    job_id = post(app, toys("12", "0", "999"))
    report = run(app, ids_of(app, job_id))
    assert report.written == 3 and report.skipped == 0
    got = rows(app, job_id)
    assert [p.status for p in got] == ["solved", "no_solution", "solved"]
    assert [p.result for p in got] == [{"sum": 3}, None, {"sum": 27}]
    assert all(p.attempts == 1 and p.worker == "w1" and p.solve_ms is not None and p.finished_at for p in got)
    job = job_row(app, job_id)
    assert job.status == "completed" and job.pending == 0 and job.started_at and job.finished_at
    api = app.test_client().get(f"/api/v1/jobs/{job_id}").json
    assert api["status"] == "completed" and api["progress"] == 1.0
    assert api["counts"]["solved"] == 2 and api["counts"]["no_solution"] == 1


def test_redelivered_task_writes_nothing_twice(app):
    job_id = post(app, toys("1", "2"))
    ids = ids_of(app, job_id)
    run(app, ids)
    before = [(p.status, p.result, p.attempts, p.finished_at) for p in rows(app, job_id)]
    again = run(app, ids)
    assert again.written == 0 and again.skipped == 2
    assert [(p.status, p.result, p.attempts, p.finished_at) for p in rows(app, job_id)] == before
    assert job_row(app, job_id).pending == 0


def test_two_claims_of_one_puzzle_write_exactly_once(app):
    job_id = post(app, toys("5"))
    sessions = app.extensions["sessions"]
    later = now() + timedelta(minutes=5)
    with sessions() as s, s.begin():
        first = puzzle_rows.claim(s, ids_of(app, job_id), "a", later)
    with sessions() as s, s.begin():
        second = puzzle_rows.claim(s, ids_of(app, job_id), "b", later)
    assert (first[0].attempts, second[0].attempts) == (1, 2)
    with sessions() as s, s.begin():
        assert results.write(s, [outcome.solve_one(second[0], 5, plans_of(app))]) == 1
    with sessions() as s, s.begin():
        # its claim is stale
        assert results.write(s, [outcome.solve_one(first[0], 5, plans_of(app))]) == 0
    assert job_row(app, job_id).pending == 0
    assert rows(app, job_id)[0].worker == "b"


def claim_one(app, job_id):
    """The job's one puzzle as a task claims it, and its result."""
    with app.extensions["sessions"]() as s, s.begin():
        [a] = puzzle_rows.claim(s, ids_of(app, job_id), "w1", now() + timedelta(minutes=5))
    return a, outcome.solve_one(a, 5, plans_of(app))


def write(app, answers) -> int:
    with app.extensions["sessions"]() as s, s.begin():
        return results.write(s, answers)


def test_the_write_writes_nothing_to_a_puzzle_cancelled_meanwhile(app):
    job_id = post(app, toys("1"))
    _, result = claim_one(app, job_id)
    assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    assert write(app, [result]) == 0
    assert rows(app, job_id)[0].status == "cancelled" and job_row(app, job_id).pending == 0


def test_the_write_of_a_failure_stores_no_block(app):
    job_id = post(app, toys("3", crash=True))
    _, failed = claim_one(app, job_id)
    assert failed.status == "failed" and failed.answer is None
    assert write(app, [failed]) == 1
    (p,) = rows(app, job_id)
    assert (p.status, p.block_id, p.error) == ("failed", None, failed.error)
    assert job_row(app, job_id).status == "completed"
    with app.extensions["sessions"]() as s:
        assert s.scalar(select(func.count()).select_from(ResultBlock)) == 0


def test_the_write_waits_for_the_job_before_it_locks_a_puzzle(app):
    # The lock order (store.rows): a writer holding a puzzle while it waits for the job would
    # deadlock with a cancel, which holds the job and waits for the puzzles.
    sessions = app.extensions["sessions"]
    if not dialect_of(app.extensions["engine"]).row_locks:
        pytest.skip("SQLite locks the whole database, never a row")
    job_id = post(app, toys("1"))
    a, _ = claim_one(app, job_id)
    written: list[int] = []

    def write() -> None:
        with sessions() as s, s.begin():
            written.append(results.write(s, [outcome.solve_one(a, 5, plans_of(app))]))

    with sessions() as holder, holder.begin():
        lock_job(holder, job_id)
        writer = threading.Thread(target=write)
        writer.start()
        with sessions() as watcher:
            deadline = time.monotonic() + 10
            while not watcher.scalar(text("SELECT count(*) FROM pg_stat_activity "
                                          "WHERE wait_event_type = 'Lock' AND query LIKE 'WITH locked%'")):
                assert time.monotonic() < deadline and writer.is_alive(), "the write never waited for the job"
                watcher.rollback()  # a new snapshot of the activity for the next look
                time.sleep(0.01)
        with sessions() as probe, probe.begin():  # raises if the waiting writer held the puzzle's row
            probe.execute(select(Puzzle.id).where(Puzzle.id == a.id).with_for_update(nowait=True))
    writer.join(10)
    assert written == [1] and job_row(app, job_id).status == "completed"


def statuses_while_solving(app, monkeypatch) -> list[str]:
    """Each puzzle's status as its row reads while ``solve_one`` starts on it, filled as they run."""
    real, during = chunk.solve_one, []

    def watch(c, *rest):
        with app.extensions["sessions"]() as s:
            during.append(s.scalar(select(Puzzle.status).where(Puzzle.id == c.id)))
        return real(c, *rest)

    monkeypatch.setattr(chunk, "solve_one", watch)
    return during


@pytest.mark.parametrize("options", [{}, {"sleep": 0.2}], ids=["cheap", "watched"])
def test_every_puzzle_is_claimed_before_it_is_solved(app, monkeypatch, options):
    # cheap, or estimated above OPTIMISTIC_SECONDS (watched): running under a lease either way
    job_id = post(app, toys("2", **options))
    ids = ids_of(app, job_id)
    during = statuses_while_solving(app, monkeypatch)
    report = run(app, ids)
    assert report.written == 1 and during == ["running"]
    got = rows(app, job_id)
    assert all(p.status == "solved" and p.attempts == 1 and p.worker == "w1" and p.started_at for p in got)
    job = job_row(app, job_id)
    assert job.status == "completed" and job.started_at and job.pending == 0


def test_a_cancel_during_a_chunk_is_final(app, solving):
    job_id = post(app, toys("1", "2", "3"))

    def cancel_first(c):
        if c.id == ids_of(app, job_id)[0]:
            assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202

    solving.before_each(cancel_first)
    assert run(app, ids_of(app, job_id)).written == 0
    assert [(p.status, p.result) for p in rows(app, job_id)] == [("cancelled", None)] * 3
    job = job_row(app, job_id)
    assert job.status == "cancelled" and job.pending == 0


def whole_count_17(make_app, **config):
    """An n=17 count solved whole (about 30 s): estimated dear, so claimed and watched."""
    app = make_app(SPLIT_QUEENS_N=99, STOP_POLL_SECONDS=0.05, **config)
    return app, post(app, [{"kind": "nqueens", "puzzle": 17,
                            "options": {"mode": "count", "strategy": "tree"}}])


def test_a_dear_puzzle_in_a_compiled_kernel_stops_at_its_time_limit(make_app, monkeypatch):
    # With the limit's signal switched off only the watcher's flag can end the kernel early.
    monkeypatch.setattr(outcome, "time_limit", lambda seconds, cpu=False: contextlib.nullcontext())
    app, job_id = whole_count_17(make_app, PUZZLE_TIME_LIMIT=0.3)
    assert run(app, ids_of(app, job_id)).written == 1
    (p,) = rows(app, job_id)
    assert p.status == "failed" and p.error == "exceeded the time limit of 0.3 s per puzzle"
    assert not [t for t in threading.enumerate() if t.name.startswith("stop-watch")]


def test_a_cancel_stops_a_dear_puzzle_in_a_compiled_kernel(make_app, monkeypatch):
    app, job_id = whole_count_17(make_app, PUZZLE_TIME_LIMIT=300.0)
    real, answers = chunk.solve_one, []
    monkeypatch.setattr(chunk, "solve_one", lambda *args: answers.append(real(*args)) or answers[-1])

    def cancel_once_running():
        deadline = time.monotonic() + 60
        while rows(app, job_id)[0].status != "running" and time.monotonic() < deadline:
            time.sleep(0.01)
        app.test_client().post(f"/api/v1/jobs/{job_id}/cancel")

    canceller = threading.Thread(target=cancel_once_running)
    canceller.start()
    assert run(app, ids_of(app, job_id)).written == 0
    canceller.join()
    assert [a.error for a in answers] == ["stopped: the puzzle was cancelled while it ran"]
    (p,) = rows(app, job_id)
    assert p.status == "cancelled" and p.result is None and job_row(app, job_id).status == "cancelled"


@pytest.mark.parametrize(("options", "message"), [
    ({"lie": True}, "internal error: the solver's answer failed verification (sum 4 is wrong"),
    ({"crash": True}, "solver error: RuntimeError: toy solver crashed on purpose"),
    ({"sleep": 2.0}, "exceeded the time limit of 0.3 s per puzzle"),
])
def test_failures_end_the_puzzle_failed_with_a_reason(make_app, toy, options, message):
    app = make_app(PUZZLE_TIME_LIMIT=0.3)
    job_id = post(app, toys("3", **options) + toys("4"))
    run(app, ids_of(app, job_id))
    bad, good = rows(app, job_id)
    assert bad.status == "failed" and bad.result is None and bad.error.startswith(message)
    assert good.status == "solved"
    assert job_row(app, job_id).status == "completed"


def test_nothing_is_written_after_cancel(app):
    job_id = post(app, toys("1", "2"))
    ids = ids_of(app, job_id)
    with app.extensions["sessions"]() as s, s.begin():
        claims = puzzle_rows.claim(s, ids, "w", now() + timedelta(minutes=1))
    assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    with app.extensions["sessions"]() as s, s.begin():
        assert results.write(s, [outcome.solve_one(c, 5, plans_of(app)) for c in claims]) == 0
    assert [p.status for p in rows(app, job_id)] == ["cancelled", "cancelled"]
    assert all(p.result is None and p.stop_requested for p in rows(app, job_id))
    job = job_row(app, job_id)
    assert job.status == "cancelled" and job.pending == 0
    assert run(app, ids).written == 0  # a task arriving after the cancel claims nothing


def test_attempt_cap_fails_the_puzzle(app):
    job_id = post(app, toys("7"))
    with app.extensions["sessions"]() as s, s.begin():
        left_running(s, attempts=settings_of(app).recovery.max_attempts)
    run(app, ids_of(app, job_id))
    (p,) = rows(app, job_id)
    assert p.status == "failed" and p.attempts == settings_of(app).recovery.max_attempts + 1
    assert p.error.startswith(f"gave up after {settings_of(app).recovery.max_attempts} attempts")
    assert job_row(app, job_id).status == "completed"


def test_redelivered_chunk_goes_on_one_puzzle_per_task(app):
    job_id = post(app, toys("1", "2", "3"))
    ids = ids_of(app, job_id)
    with app.extensions["sessions"]() as s, s.begin():
        left_running(s, attempts=1)  # a worker died holding it
    publisher = RecordingPublisher()
    report = run(app, ids, publisher)
    assert publisher.chunks == [[i] for i in ids] and report.written == 0
    assert [p.attempts for p in rows(app, job_id)] == [1, 1, 1]
    for i in ids:
        run(app, [i])
    assert [(p.status, p.attempts) for p in rows(app, job_id)] == [("solved", 2)] * 3


def test_soft_time_limit_between_puzzles_hands_on_the_rest(app, solving):
    job_id = post(app, toys("1", "2", "3"))
    ids = ids_of(app, job_id)
    calls = []

    def expire_at_the_second(c):
        calls.append(c.id)
        if len(calls) == 2:
            raise SoftTimeLimitExceeded()

    solving.before_each(expire_at_the_second)
    publisher = RecordingPublisher()
    report = run(app, ids, publisher)
    # One by one the first puzzle was done; a run of three in one call is handed on whole.
    done = 0 if solving.batched else 1
    assert report.written == done and publisher.chunks == [[i] for i in ids[done:]]
    states = [(p.status, p.attempts) for p in rows(app, job_id)]
    assert states == [("solved", 1)] * done + [("queued", 0)] * (3 - done)


def test_reaper_publishes_lost_puzzles_and_fails_those_past_the_cap(app):
    job_id = post(app, toys("1", "2", "3"))
    a, b, _c = ids_of(app, job_id)
    past = now() - timedelta(seconds=1)
    cap = settings_of(app).recovery.max_attempts
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id == a).values(deadline=past))  # queued, task lost
        left_running(s, Puzzle.id == b, attempts=cap, deadline=past)
    publisher = RecordingPublisher()
    assert reaper.reap(runtime_of(app, publisher)).puzzles == [a]
    assert publisher.chunks == [[a]]
    pa, pb, pc = rows(app, job_id)
    assert pa.status == "queued" and pa.deadline.replace(tzinfo=None) > now().replace(tzinfo=None)
    assert pb.status == "failed" and "gave up after" in pb.error
    assert pc.status == "queued"
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    assert job_row(app, job_id).pending == 2


def test_each_flush_renews_the_lease_of_the_puzzles_still_to_do(app, monkeypatch):
    job_id = post(app, toys("1", "2", "3"))
    ids = ids_of(app, job_id)
    monkeypatch.setattr(chunk, "FLUSH_SECONDS", 0.0)
    real, seen = chunk.solve_one, []

    def watch(c, *rest):
        with app.extensions["sessions"]() as s:
            seen.append(s.scalar(select(Puzzle.deadline).where(Puzzle.id == ids[-1])))
        return real(c, *rest)

    monkeypatch.setattr(chunk, "solve_one", watch)
    run(app, ids)
    assert seen[0] < seen[1] < seen[2]
    assert seen[0] - now().replace(tzinfo=seen[0].tzinfo) <= settings_of(app).time.lease()
    assert [p.status for p in rows(app, job_id)] == ["solved"] * 3


# -- cheap puzzles in runs, through the kind's solve_batch


class Calls(list):
    """The toy's solve_batch calls: (its prepared puzzles, the statuses their rows had then);
    ``prepared``: its prepare_batch calls, their wire puzzles."""

    def __init__(self):
        super().__init__()
        self.prepared = []


@pytest.fixture
def batches(app, toy, monkeypatch):
    """The toy's prepare_batch and solve_batch, recording their calls."""
    calls = Calls()

    def prepare_batch(puzzles, options):
        calls.prepared.append(list(puzzles))
        return base.prepare_each(batched, puzzles, options)

    def solve_batch(puzzles, options):
        with app.extensions["sessions"]() as s:
            seen = s.scalars(select(Puzzle.status).where(Puzzle.kind == "toy")).all()
        calls.append((list(puzzles), set(seen)))
        return base.solve_each(batched, puzzles, options)

    batched = dataclasses.replace(toy, prepare_batch=prepare_batch, solve_batch=solve_batch)
    monkeypatch.setitem(solvers.KINDS, "toy", batched)
    return calls


def test_a_cheap_chunk_is_solved_in_one_solve_batch_call_and_written_once(app, toy, batches):
    digits = [str(i) for i in range(40)]
    job_id = post(app, toys(*digits))
    ids = ids_of(app, job_id)
    report = run(app, ids)
    assert batches.prepared == [digits, digits]  # the API's check, then the run's one call
    assert report.written == 40
    assert batches == [([toy.parse(d) for d in digits], {"running"})]  # one call, every row claimed
    got = rows(app, job_id)
    assert [p.result for p in got[1:]] == [{"sum": sum(map(int, d))} for d in digits[1:]]
    assert [p.status for p in got] == ["no_solution"] + ["solved"] * 39
    assert all(p.attempts == 1 and p.worker == "w1" and p.started_at and p.solve_ms is not None for p in got)
    job = job_row(app, job_id)
    assert job.status == "completed" and job.pending == 0
    # Delivered again (duplicated, or redelivered): nothing is written twice, nothing solved again.
    again = run(app, ids)
    assert again.written == 0 and again.skipped == 40 and len(batches) == 1


@pytest.mark.parametrize(("stored", "bad", "error", "runs"), [
    ({"input": "3x"}, [2], "invalid puzzle: bad symbol 'x': a toy puzzle has only digits", [2, 2]),
    ({"options": {"sleep": -1}}, [2, 3], "invalid puzzle: option 'sleep' must be at least 0; got -1.0", [2]),
])
def test_stored_puzzles_that_no_longer_prepare_end_the_run_and_fail_alone(app, batches, stored, bad, error,
                                                                          runs):
    # rows changed behind the API's back (or its checks tightened since): one prepare_batch call
    # finds a puzzle bad (or the options of the puzzles alike), so the run stops before it, and
    # each bad one fails on its own
    job_id = post(app, toys("1", "2", "3", "45", "6"))
    ids = ids_of(app, job_id)
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id.in_([ids[i] for i in bad])).values(**stored))
    assert run(app, ids).written == 5
    got = rows(app, job_id)
    assert [p.status == "failed" for p in got] == [i in bad for i in range(5)]
    assert all(got[i].error == error for i in bad)
    assert [p.result["sum"] for i, p in enumerate(got) if i not in bad] == [
        total for i, total in enumerate([1, 2, 3, 9, 6]) if i not in bad]
    assert [len(puzzles) for puzzles, _ in batches] == runs


def test_runs_are_cut_by_estimated_work_so_progress_still_shows(app, batches, monkeypatch):
    # A toy puzzle is estimated at 1e-6 s: a call takes at most FLUSH_SECONDS of estimated work.
    monkeypatch.setattr(chunk, "FLUSH_SECONDS", 4.5e-6)
    job_id = post(app, toys(*"123456789123"))
    # never due: only the cut counts
    report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids_of(app, job_id), "w1",
                             clock=lambda: 0.0)
    assert report.written == 12 and [len(puzzles) for puzzles, _ in batches] == [4, 4, 4]
    assert [len(puzzles) for puzzles in batches.prepared] == [12, 12, 8, 4]  # the API's, then what is left
    assert [p.status for p in rows(app, job_id)] == ["solved"] * 12


@pytest.mark.parametrize(("options", "error"), [
    ({"lie": True}, "internal error: the solver's answer failed verification (sum"),
    ({"crash": True}, "solver error: RuntimeError: toy solver crashed on purpose"),
])
def test_a_run_whose_solve_batch_fails_is_solved_one_by_one(app, toy, monkeypatch, options, error):
    real, alone = chunk.solve_one, []
    monkeypatch.setattr(chunk, "solve_one", lambda a, *rest: alone.append(a.id) or real(a, *rest))
    job_id = post(app, toys("1", "2", "3", **options))
    assert run(app, ids_of(app, job_id)).written == 3
    assert alone == ids_of(app, job_id)  # each failure on its own puzzle
    assert all(p.status == "failed" and p.error.startswith(error) for p in rows(app, job_id))


def test_a_batch_outcome_past_the_node_budget_is_solved_again_alone(app, batches, monkeypatch):
    budgeted = dataclasses.replace(solvers.KINDS["toy"], plan=lambda *args: Budgeted(2, 4))
    monkeypatch.setitem(solvers.KINDS, "toy", budgeted)  # 2 nodes, and the toy reads a digit a node
    real, alone = outcome.solve_one, []
    monkeypatch.setattr(outcome, "solve_one", lambda a, *rest: alone.append(a.input) or real(a, *rest))
    job_id = post(app, toys("1", "12345", "22"))
    assert run(app, ids_of(app, job_id)).written == 3
    assert len(batches) == 1 and alone == ["12345"]
    assert [p.result for p in rows(app, job_id)] == [{"sum": 1}, {"sum": 15}, {"sum": 4}]


@pytest.mark.parametrize("sleep", [1.0, 0.08], ids=["watched", "unwatched"])
def test_a_puzzle_past_the_cheap_lanes_cap_moves_to_the_dear_lane_and_the_chunk_goes_on(make_app, toy, sleep):
    # Estimated 1 s (watched) or 0.08 s (its timer only); either runs past a cap of 0.03 s.
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.03)
    job_id = post(app, toys("12", sleep=sleep) + toys("3"))
    slow, quick = ids_of(app, job_id)
    publisher = RecordingPublisher()
    report = chunk.run_chunk(runtime_of(app, publisher), [slow, quick], "w1", cheap_lane=True)
    assert report.moved == [slow] and publisher.dear == [[slow]]
    moved, done = rows(app, job_id)
    assert (moved.status, moved.attempts, moved.worker, moved.error) == ("queued", 0, None, None)
    assert done.status == "solved"
    # Queued again with a new deadline and no worker: the reaper leaves it to its new task.
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    # The dear lane has no cap: the puzzle is solved there, as its first counted attempt.
    assert chunk.run_chunk(runtime_of(app, publisher), [slow], "w2").written == 1
    (moved, _) = rows(app, job_id)
    assert (moved.status, moved.attempts, moved.result) == ("solved", 1, {"sum": 3})
    assert job_row(app, job_id).status == "completed"


def test_a_puzzle_moved_to_the_dear_lane_keeps_its_owners_fair_share_there(make_app, toy):
    # The owner's other job holds about 19.6 predicted seconds: 3 shares of 5 s stand before the move.
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.03, DEAR_SHARE_SECONDS=5.0)
    post(app, toys("1", "2", "3", "4", sleep=4.9))
    job_id = post(app, toys("12", sleep=0.08) + toys("3"))
    slow, quick = ids_of(app, job_id)
    publisher = RecordingPublisher()
    assert chunk.run_chunk(runtime_of(app, publisher), [slow, quick], "w1", cheap_lane=True).moved == [slow]
    assert publisher.dear == [[slow]] and publisher.dear_ranks == [3]
    (moved, _) = rows(app, job_id)
    assert moved.dear_level == 3 and moved.dear_at is not None  # its place, which the ETA reads


@pytest.mark.parametrize("lost", ["worker died", "message lost"])
def test_a_moved_puzzle_published_again_by_the_reaper_goes_back_to_the_dear_lane_at_its_level(make_app, toy,
                                                                                               lost):
    # By its prediction (0.08 s) it would go to the cheap lane and run to the cap a second time.
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.03, DEAR_SHARE_SECONDS=5.0)
    post(app, toys("1", "2", "3", "4", sleep=4.9))
    job_id = post(app, toys("12", sleep=0.08) + toys("3"))
    slow, quick = ids_of(app, job_id)
    report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), [slow, quick], "w1", cheap_lane=True)
    assert report.moved == [slow]
    past = now() - timedelta(seconds=1)
    with app.extensions["sessions"]() as s, s.begin():
        if lost == "worker died":  # its task in the dear lane claimed it, then its worker was lost
            left_running(s, Puzzle.id == slow, attempts=1, worker="w2", started_at=past, deadline=past)
        else:
            s.execute(update(Puzzle).where(Puzzle.id == slow).values(deadline=past))
    again = RecordingPublisher()
    assert reaper.reap(runtime_of(app, again)).puzzles == [slow]
    assert again.dear == [[slow]] and again.dear_ranks == [3] and again.chunks == [[slow]]
    (moved, _) = rows(app, job_id)
    assert (moved.dear_level, moved.worker) == (3, None)  # held by none until its new task claims it
    assert moved.dear_at is not None and moved.dear_at.replace(tzinfo=None) >= past.replace(tzinfo=None)
    # In the dear lane no cap holds: it is solved there.
    assert chunk.run_chunk(runtime_of(app, again), [slow], "w3").written == 1
    assert rows(app, job_id)[0].status == "solved"


def test_a_task_of_the_dear_lane_runs_a_puzzle_to_its_time_limit(make_app, toy):
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.03)
    job_id = post(app, toys("12", sleep=0.3))
    assert chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids_of(app, job_id), "w1").moved == []
    assert rows(app, job_id)[0].status == "solved"


def test_an_nqueens_count_of_zero_is_solved_through_the_api(app):
    app.extensions["publisher"] = EagerPublisher(app)
    client = app.test_client()
    items = [{"kind": "nqueens", "puzzle": {"n": 2}, "options": {"mode": "count"}},
             {"kind": "nqueens", "puzzle": {"n": 3}, "options": {"mode": "count"}},
             {"kind": "nqueens", "puzzle": {"n": 3}}]
    job_id = client.post("/api/v1/jobs", json={"puzzles": items}).json["id"]
    job = client.get(f"/api/v1/jobs/{job_id}").json
    assert job["status"] == "completed" and job["counts"]["solved"] == 2 and job["counts"]["no_solution"] == 1
    got = client.get(f"/api/v1/jobs/{job_id}/puzzles").json["items"]
    assert [(p["status"], (p["result"] or {}).get("solutions")) for p in got] == [
        ("solved", 0), ("solved", 0), ("no_solution", None)]  # one placement of 3 queens: none exists


def test_a_puzzle_moved_past_the_cheap_lanes_cap_is_charged_what_its_try_took(make_app, toy, monkeypatch):
    """Predicted at a microsecond, it spins past the cap: queued again for the dear lane, it keeps
    the CPU seconds of that try, which its owner is charged until it is final (store.costs)."""
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(solvers.KINDS["toy"],
                                                                  predict=lambda _p, _o: base.Estimate(1e-6)))
    app = make_app(PUZZLE_TIME_LIMIT=5.0, CHEAP_LANE_SECONDS=0.1)
    job_id = post(app, toys("12", spin=2.0))
    [slow] = ids_of(app, job_id)
    report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), [slow], "w1", cheap_lane=True)
    assert report.moved == [slow]
    [moved] = rows(app, job_id)
    assert moved.status == "queued" and moved.cpu_seconds is not None and moved.cpu_seconds > 1e-6
    with app.extensions["sessions"]() as s:
        owner = s.get(Job, job_id).owner
        assert costs.work_left(s, [owner])[owner] == pytest.approx(moved.cpu_seconds)


def test_a_puzzle_priced_dear_is_watched_though_its_kind_predicts_it_cheap(make_app, toy, monkeypatch):
    """Priced at the time limit (options its kind does not model, store.pricing), it is solved
    watched (its progress shown, charged while it runs, stopped on a cancel), under the time limit
    its kind's own prediction gives."""
    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(
        solvers.KINDS["toy"], predict=lambda _p, _o: base.Estimate(1e-6),
        outside_model=lambda options: options["spin"] > 0))
    watched: list[tuple[int, float]] = []

    def watching(sessions, puzzle_id, budget, **kw):
        watched.append((puzzle_id, budget.puzzle_time_limit))
        return limits.watching(sessions, puzzle_id, budget, **kw)

    monkeypatch.setattr(chunk, "watching", watching)
    app = make_app(PUZZLE_TIME_LIMIT=20.0)
    job_id = post(app, toys("12", spin=0.05))
    [p] = ids_of(app, job_id)
    assert rows(app, job_id)[0].estimated_seconds == 20.0
    run(app, [p])
    assert rows(app, job_id)[0].status == "solved"
    assert watched == [(p, settings_of(app).costs.prediction_time_floor)]


def test_a_watched_solve_is_charged_while_it_runs_and_once_in_all(make_app, toy, monkeypatch):
    """The watcher adds the CPU seconds spent so far to a long whole solve's row while it runs; the
    write at its end adds the rest, so the row holds what the solve took, not more."""
    monkeypatch.setattr(limits, "PROGRESS_SECONDS", 0.05)
    app = make_app(PUZZLE_TIME_LIMIT=20.0, STOP_POLL_SECONDS=0.05)
    job_id = post(app, toys("12", spin=1.5))  # predicted 1.5 s: watched
    [p] = ids_of(app, job_id)
    seen: list[float] = []
    used = time.process_time()
    solving = threading.Thread(target=run, args=(app, [p]))
    solving.start()
    while solving.is_alive():
        [row] = rows(app, job_id)
        if row.status == "running" and row.cpu_seconds is not None:
            seen.append(row.cpu_seconds)
        time.sleep(0.02)
    solving.join()
    used = time.process_time() - used  # every thread of this process: the solve's, the watcher's, this one's
    [row] = rows(app, job_id)
    assert row.status == "solved"
    assert seen and 0 < seen[0] < 1.5
    assert 1.5 <= row.cpu_seconds <= used
