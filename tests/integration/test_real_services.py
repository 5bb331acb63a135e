"""Batches over HTTP, through Redis and real `celery worker` processes, into PostgreSQL."""

from __future__ import annotations

import os
import signal
import time

import pytest
from sqlalchemy import select

import solvers
from solvers.base import Outcome
from store.models import Chunk, Puzzle
from store.publish import SOLVE_CHUNK
from tests.service.conftest import RecordingPublisher, runtime_of, settings_of
from tests.services import process_tree
from worker import reaper

pytestmark = pytest.mark.integration

KINDS = list(solvers.KINDS.values())


def example_items(kind, copies=3):
    return [{"kind": kind.name, "puzzle": e.puzzle, "options": dict(e.options)}
            for e in kind.examples] * copies


def check_answers(items, results):
    """Every answer verified by its kind's own check, and with the example's known status."""
    assert [r["index"] for r in results] == list(range(len(items)))
    for item, got in zip(items, results, strict=True):
        kind = solvers.get(item["kind"])
        expected = next(e.status for e in kind.examples if e.puzzle == item["puzzle"])
        assert got["status"] == expected, got
        puzzle, options = kind.prepare(item["puzzle"], item["options"])
        kind.verify(puzzle, options, Outcome(got["status"], got["result"], got["stats"]))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_is_solved_and_verified(real_stack, kind):
    items = example_items(kind)
    job_id = real_stack.submit(items)
    job = real_stack.wait(job_id)
    assert job["status"] == "completed" and job["progress"] == 1.0
    check_answers(items, real_stack.puzzles(job_id))


@pytest.mark.skipif(not KINDS, reason="no kind is registered on this branch yet")
def test_one_batch_of_every_kind(real_stack):
    items = [item for kind in KINDS for item in example_items(kind, copies=1)]
    job_id = real_stack.submit(items)
    assert real_stack.wait(job_id)["counts"]["failed"] == 0
    check_answers(items, real_stack.puzzles(job_id))


def test_a_batch_is_chunked_across_both_workers(real_stack, toy_kind):
    # Estimated at 5 ms each (Kind.predict), 2 s in all: spread over 16 tasks.
    items = [{"kind": "toy", "puzzle": str(i), "options": {"sleep": 0.005}} for i in range(400)]
    job_id = real_stack.submit(items)
    job = real_stack.wait(job_id)
    assert job["status"] == "completed"
    assert job["counts"]["solved"] == 399 and job["counts"]["no_solution"] == 1
    results = real_stack.puzzles(job_id)
    assert [r["result"]["sum"] for r in results[1:]] == [sum(map(int, str(i))) for i in range(1, 400)]
    assert all(r["attempts"] == 1 for r in results)
    with real_stack.app.extensions["sessions"]() as s:
        # its runs of cheap puzzles are stored as chunks (store.chunks), each written by its worker
        workers = set(s.scalars(select(Chunk.worker).where(Chunk.job_id == job_id)))
    assert len(workers) == 2, "both worker processes took chunks"


def test_killed_worker_process_is_retried_and_counted_once(real_stack, toy_kind):
    job_id = real_stack.submit([{"kind": "toy", "puzzle": "42", "options": {"sleep": 2.0}}])
    running = real_stack.wait(job_id, until=lambda job: job["counts"]["running"] == 1, timeout=30)
    assert running["status"] == "running"
    with real_stack.app.extensions["sessions"]() as s:
        holder = s.scalar(select(Puzzle.worker).where(Puzzle.job_id == job_id))
    os.kill(int(holder.split(":")[-2]), signal.SIGKILL)  # the pool child solving it (host:pid:tag)
    job = real_stack.wait(job_id, timeout=60)
    (result,) = real_stack.puzzles(job_id)
    assert job["status"] == "completed" and job["counts"]["solved"] == 1
    assert result["result"] == {"sum": 6} and result["attempts"] == 2
    with real_stack.app.extensions["sessions"]() as s:
        assert s.scalar(select(Puzzle.worker).where(Puzzle.job_id == job_id)) != holder


def kill_pool_children(workers) -> None:
    for w in workers.procs:
        for pid in process_tree(w.pid)[1:]:
            os.kill(pid, signal.SIGKILL)


def poll(stack, query, found, what: str, timeout: float = 60) -> None:
    """Read ``query`` straight from SQL every few milliseconds until ``found(rows)`` (an HTTP poll
    is slower, and a busy machine stretches it past the windows this file aims at)."""
    deadline = time.monotonic() + timeout
    while True:
        with stack.app.extensions["sessions"]() as s:
            if found(s.execute(query).all()):
                return
        if time.monotonic() > deadline:
            pytest.fail(f"{what}\n" + "\n".join(p.log.read_text()[-3000:] for p in stack.workers.procs))
        time.sleep(0.005)


def test_a_pool_process_killed_in_a_task_of_rows_has_its_rerun_go_on_one_puzzle_a_task(real_stack, toy_kind,
                                                                                      monkeypatch):
    # 40 puzzles of 50 ms stored one a task (CHUNK_MAX=1), so as rows, not a chunk, and published
    # by hand as a single task, as rows of unalike puzzles or a retry's go. Its pool process is
    # killed while the task runs them, claimed; Celery delivers the task again, whose claim finds
    # them tried before and hands them on one puzzle a task, so that only a puzzle that kills its
    # worker would use up its attempts.
    sessions = real_stack.app.extensions["sessions"]
    monkeypatch.setitem(real_stack.app.extensions, "publisher", RecordingPublisher())
    one_a_task = settings_of(real_stack.app).replace(CHUNK_MAX=1)
    monkeypatch.setitem(real_stack.app.extensions, "settings", one_a_task)
    job_id = real_stack.submit([{"kind": "toy", "puzzle": str(i), "options": {"sleep": 0.05}}
                                for i in range(1, 41)])
    with sessions() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))
    real_stack.app.extensions["celery"].send_task(SOLVE_CHUNK, args=[ids],
                                                  queue=settings_of(real_stack.app).lanes.task_queue)
    poll(real_stack, select(Puzzle.id).where(Puzzle.job_id == job_id, Puzzle.status == "running"), bool,
         "the task never claimed its puzzles")
    kill_pool_children(real_stack.workers)  # whichever runs it; the other restarts idle
    with sessions() as s:  # what the dead run finished (a busy machine may let a flush through)
        done = set(s.scalars(select(Puzzle.index).where(Puzzle.job_id == job_id, Puzzle.status == "solved",
                                                        Puzzle.attempts == 1)))
    job = real_stack.wait(job_id, timeout=120)
    assert job["status"] == "completed" and job["counts"]["solved"] == 40
    # The death is counted against every unfinished puzzle of the task, which then went on one
    # puzzle a task: each solved at its second attempt.
    attempts = {r["index"]: r["attempts"] for r in real_stack.puzzles(job_id)}
    assert len(done) < 40 and all(attempts[i] == 1 for i in done), (done, attempts)
    assert all(n == 2 for i, n in attempts.items() if i not in done), (done, attempts)
    logs = "".join(p.log.read_text() for p in real_stack.workers.procs)
    assert f"'republished': {40 - len(done)}," in logs


def test_time_limit_and_solver_errors_end_failed(real_stack, toy_kind):
    items = [{"kind": "toy", "puzzle": "1", "options": {"sleep": 10.0}},
             {"kind": "toy", "puzzle": "2", "options": {"crash": True}},
             {"kind": "toy", "puzzle": "3", "options": {"lie": True}},
             {"kind": "toy", "puzzle": "4"}]
    job_id = real_stack.submit(items)
    job = real_stack.wait(job_id, timeout=90)
    assert job["status"] == "completed" and job["counts"] == {
        "queued": 0, "running": 0, "solved": 1, "no_solution": 0, "failed": 3, "cancelled": 0}
    errors = [r["error"] for r in real_stack.puzzles(job_id)]
    assert errors[0] == "exceeded the time limit of 6 s per puzzle"
    assert errors[1].startswith("solver error: RuntimeError")
    assert errors[2].startswith("internal error: the solver's answer failed verification")
    assert errors[3] is None


def test_cancel_stops_queued_work(real_stack, toy_kind):
    items = [{"kind": "toy", "puzzle": "1", "options": {"sleep": 0.5}} for _ in range(40)]
    job_id = real_stack.submit(items)
    real_stack.wait(job_id, until=lambda job: job["counts"]["running"] >= 1, timeout=30)
    cancelled = real_stack.client.post(f"/api/v1/jobs/{job_id}/cancel").json
    assert cancelled["status"] == "cancelled" and cancelled["counts"]["cancelled"] >= 30
    time.sleep(1.5)  # running solves end; their results must not be written
    after = real_stack.client.get(f"/api/v1/jobs/{job_id}").json
    assert after["counts"] == cancelled["counts"]


def test_a_solver_deaf_to_the_time_limit_is_killed_and_finally_failed(real_stack, toy_kind):
    """A kernel that never returns to Python: the task's hard limit kills the process, the
    reaper hands the puzzle on, and past the attempt cap it ends `failed`, never stuck."""
    app = real_stack.app
    job_id = real_stack.submit([{"kind": "toy", "puzzle": "5", "options": {"sleep": 30.0, "stubborn": True}}])
    deadline = time.monotonic() + 90
    while real_stack.client.get(f"/api/v1/jobs/{job_id}").json["status"] != "completed":
        assert time.monotonic() < deadline, "the puzzle is stuck"
        reaper.reap(runtime_of(app, app.extensions["publisher"]))  # what beat runs
        time.sleep(0.5)
    (result,) = real_stack.puzzles(job_id)
    assert result["status"] == "failed" and result["attempts"] == 2
    assert result["error"].startswith("gave up after 2 attempts: the worker was lost each time")
