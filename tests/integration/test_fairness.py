"""Fairness through Redis, PostgreSQL and three real `celery worker` processes (two taking both lanes,
one kept for cheap work, as in docker-compose.yml): cheap work is never stuck behind dear work (nor
slowed by it: the workers of dear work run at a lower CPU priority), one client's big job does
not queue ahead of another client's small one, work estimated cheap that runs long leaves the cheap
lane at its cap, and without tokens each address is a client of its own."""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from store.models import Puzzle, Subtask
from tests.service.conftest import settings_of
from tests.services import (
    Stack,
    Workers,
    app_for,
    fresh_postgres,
    fresh_redis,
    migrate,
    process_tree,
    service_env,
)

pytestmark = pytest.mark.integration

TOKENS = {"big": "token-of-the-big-client", "small": "token-of-the-small-client"}


@contextlib.contextmanager
def three_workers(tmp_path_factory, **settings: str) -> Iterator[Stack]:
    """A stack on fresh databases: two workers of both lanes and one of the cheap lane alone."""
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        env = service_env(db_url, redis_url, f"puzzles-{uuid.uuid4().hex[:8]}", **settings)
        workers = Workers(env, tmp_path_factory.mktemp("workers"))
        try:
            workers.start(wait=False)
            workers.start(wait=False)
            workers.start(cheap_only=True, wait=False)
            workers.ready()
            yield Stack(app_for(env), workers)
        finally:
            workers.stop()


@pytest.fixture(scope="module")
def lanes_stack(tmp_path_factory):
    # A part may run for an hour; each of the 4 parts of an n = 18 count (the largest count the
    # service takes) runs for a minute or more.
    with three_workers(tmp_path_factory, PUZZLE_TIME_LIMIT="3600", SPLIT_PARTS="4",
                       API_TOKENS=",".join(f"{k}:{v}" for k, v in TOKENS.items())) as stack:
        yield stack


def as_client(name: str) -> dict:
    return {"headers": {"Authorization": f"Bearer {TOKENS[name]}"}}


def running_parts(stack: Stack, job_id: str) -> list[Subtask]:
    with stack.app.extensions["sessions"]() as s:
        return list(s.scalars(select(Subtask).join(Puzzle, Puzzle.id == Subtask.puzzle_id)
                              .where(Puzzle.job_id == job_id, Subtask.status == "running")))


def test_an_8_queens_job_completes_within_a_second_while_every_dear_lane_worker_runs_long_parts(lanes_stack):
    stack = lanes_stack
    big = stack.submit([{"kind": "nqueens", "puzzle": 18, "options": {"mode": "count", "strategy": "tree"}}],
                       **as_client("big"))
    try:
        # Both workers of the dear lane busy with parts; two more parts wait in the broker.
        def both_busy(job: dict) -> bool:
            return len({t.worker for t in running_parts(stack, big)}) == 2

        stack.wait(big, until=both_busy, timeout=120, **as_client("big"))
        start = time.monotonic()
        small = stack.submit([{"kind": "nqueens", "puzzle": 8}], **as_client("small"))
        accepted = time.monotonic() - start
        job = stack.wait(small, timeout=30, **as_client("small"))
        elapsed = time.monotonic() - start
        print(f"8-queens beside running parts: {elapsed * 1000:.0f} ms from POST to completed "
              f"(the POST's answer after {accepted * 1000:.0f} ms)")
        # The target of issue 12: 8-queens solves in microseconds, and the POST, the broker's
        # round trip, the worker's SQL and this loop's 50 ms polls take tens of milliseconds;
        # one second leaves room for a loaded 2-core machine (before the lanes: 26 s and more,
        # the time until a part finished).
        assert job["counts"]["solved"] == 1
        assert elapsed < 1.0, f"the 8-queens job took {elapsed:.2f} s"
        assert len(running_parts(stack, big)) == 2, "the parts kept running meanwhile"
    finally:
        stack.client.post(f"/api/v1/jobs/{big}/cancel", **as_client("big"))
    # The cancel stops the parts (their stop flag), so the next test finds the workers free.
    stack.wait(big, timeout=30, **as_client("big"))


def test_the_workers_that_take_dear_work_yield_the_cpu_to_cheap_work(lanes_stack):
    here = os.getpriority(os.PRIO_PROCESS, 0)
    niceness = [{os.getpriority(os.PRIO_PROCESS, pid) for pid in process_tree(proc.pid)}
                for proc in lanes_stack.workers.procs]  # each main process with its pool
    dear_nice = settings_of(lanes_stack.app).lanes.dear_nice
    assert niceness == [{min(19, here + dear_nice)}] * 2 + [{here}]


def test_another_clients_small_job_does_not_queue_behind_a_big_jobs_tasks(lanes_stack, toy_kind):
    stack = lanes_stack
    # 20 cheap tasks of 0.5 s (each puzzle its own task), about 3.5 s on three workers...
    big = stack.submit([{"kind": "toy", "puzzle": str(i), "options": {"sleep": 0.5}} for i in range(1, 21)],
                       **as_client("big"))
    # ... and one task of another client, published after all of them.
    small = stack.submit([{"kind": "toy", "puzzle": "7"}], **as_client("small"))
    stack.wait(small, timeout=60, **as_client("small"))
    left = stack.client.get(f"/api/v1/jobs/{big}", **as_client("big")).json["counts"]
    print(f"the small job completed with {left['queued'] + left['running']} of the big job's 20 unfinished")
    # First come, first served, the small job would finish after every big task had started (at
    # most 3 of them unfinished); it waits for the first ones only.
    assert left["queued"] + left["running"] >= 10, left
    assert stack.wait(big, timeout=60, **as_client("big"))["counts"]["solved"] == 20


@pytest.fixture(scope="module")
def open_stack(tmp_path_factory):
    """No tokens, a cheap lane capped at 1 s, and toy puzzles of up to 100 s estimated cheap: the
    abuse of a Spokes search estimated at 0.81 s that runs to the time limit."""
    with three_workers(tmp_path_factory, PUZZLE_TIME_LIMIT="60", CHEAP_LANE_SECONDS="1", DEAR_SECONDS="100",
                       API_TOKENS="") as stack:
        yield stack


def at(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def long_toys(n: int, seconds: float) -> list[dict]:
    return [{"kind": "toy", "puzzle": str(i % 9 + 1), "options": {"sleep": seconds}} for i in range(n)]


def wait_running(stack: Stack, job_ids: list[str], n: int) -> None:
    deadline = time.monotonic() + 30
    while sum(stack.client.get(f"/api/v1/jobs/{j}").json["counts"]["running"] for j in job_ids) < n:
        assert time.monotonic() < deadline, "the long puzzles did not start"
        time.sleep(0.05)


def cancel_all(stack: Stack, job_ids: list[str]) -> None:
    for j in job_ids:
        stack.client.post(f"/api/v1/jobs/{j}/cancel")
    for j in job_ids:  # a toy sleeps on after a cancel: the next test finds the workers free
        stack.wait(j, timeout=60)
    time.sleep(6)


def test_work_estimated_cheap_that_runs_long_moves_to_the_dear_lane_at_the_cap(open_stack, toy_kind):
    stack = open_stack
    # One long puzzle for each worker, each estimated cheap (within DEAR_SECONDS), each its own job.
    longs = [stack.submit(long_toys(1, 6.0), **at("10.1.0.1")) for _ in range(3)]
    wait_running(stack, longs, 3)
    start = time.monotonic()
    small = stack.submit([{"kind": "nqueens", "puzzle": 8}], **at("10.1.0.2"))
    job = stack.wait(small, timeout=30)
    elapsed = time.monotonic() - start
    print(f"8-queens of another address behind three long cheap-lane puzzles: {elapsed:.2f} s")
    # Without the cap it waits until a long puzzle ends.
    assert job["counts"]["solved"] == 1 and elapsed < 4.0, f"the 8-queens job took {elapsed:.2f} s"
    cheap_only = set(process_tree(stack.workers.procs[2].pid))
    for j in longs:
        (p,) = stack.puzzles(stack.wait(j, timeout=60)["id"])
        # Solved on its first counted attempt, by a worker of the dear lane.
        assert (p["status"], p["attempts"]) == ("solved", 1), p
        with stack.app.extensions["sessions"]() as s:
            worker = s.scalar(select(Puzzle.worker).where(Puzzle.job_id == j))
        assert int(worker.split(":")[1]) not in cheap_only, worker


def test_an_owners_small_job_is_not_starved_behind_its_own_long_jobs(open_stack, toy_kind):
    stack = open_stack
    longs = [stack.submit(long_toys(1, 2.0), **at("10.2.0.1")) for _ in range(20)]
    try:
        wait_running(stack, longs, 3)
        start = time.monotonic()
        small = stack.submit([{"kind": "nqueens", "puzzle": 8}], **at("10.2.0.1"))
        job = stack.wait(small, timeout=60)
        elapsed = time.monotonic() - start
        unfinished = sum(stack.client.get(f"/api/v1/jobs/{j}").json["status"] != "completed" for j in longs)
        print(f"8-queens behind 20 long jobs of its own address: {elapsed:.2f} s, "
              f"{unfinished} still unfinished")
        # Ranked behind all 20 (the broker's last level), it would wait for every one to start.
        assert job["counts"]["solved"] == 1 and elapsed < 5.0, f"the 8-queens job took {elapsed:.2f} s"
        assert unfinished >= 10
    finally:
        cancel_all(stack, longs)
