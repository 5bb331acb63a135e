"""Split puzzles through Redis and two real worker processes into PostgreSQL: answers equal the
whole solves and the known data, a killed worker's part is retried and counted once, a failing
part fails its puzzle, a cancel stops the parts running in both workers, and a seeded estimate
gives the same numbers with one and with three workers."""

from __future__ import annotations

import csv
import os
import signal
import socket
import time

import pytest
from sqlalchemy import select

import solvers
from store.models import Puzzle, Subtask
from tests.service.conftest import settings_of

pytestmark = pytest.mark.integration

HARD = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."


def parts_of(stack, job_id, index=0):
    with stack.app.extensions["sessions"]() as s:
        pid = s.scalar(select(Puzzle.id).where(Puzzle.job_id == job_id, Puzzle.index == index))
        return list(s.scalars(select(Subtask).where(Subtask.puzzle_id == pid).order_by(Subtask.index)))


def whole(kind_name, puzzle, options):
    kind = solvers.get(kind_name)
    return kind.solve(*kind.prepare(puzzle, options))


def test_nqueens_counts_split_into_many_parts_equal_the_known_counts(real_stack, data_dir):
    with open(data_dir / "nqueens" / "counts.csv") as f:
        known = {int(r["n"]): int(r["total"]) for r in csv.DictReader(f)}
    sizes = range(10, 14)
    job_id = real_stack.submit([{"kind": "nqueens", "puzzle": n, "options": {"mode": "count"}}
                                for n in sizes])
    assert real_stack.wait(job_id, timeout=60)["counts"]["solved"] == len(sizes)
    results = real_stack.puzzles(job_id)
    assert [r["result"]["solutions"] for r in results] == [known[n] for n in sizes]
    assert all(r["stats"]["subtasks"] == 16 for r in results)
    parts = [t for i in range(len(sizes)) for t in parts_of(real_stack, job_id, i)]
    assert all(t.status in ("solved", "no_solution") and t.attempts == 1 for t in parts)
    assert len({t.worker for t in parts}) == 2, "both workers solved parts"


def test_a_hard_sudoku_split_into_32_leaves_gives_the_whole_answer(real_stack):
    options = {"split": 32, "strategy": "greedy"}
    job_id = real_stack.submit([{"kind": "sudoku", "puzzle": HARD, "options": options}])
    real_stack.wait(job_id, timeout=60)
    (got,) = real_stack.puzzles(job_id)
    assert got["result"] == whole("sudoku", HARD, {}).result and got["result"]["unique"] is True
    assert got["stats"]["subtasks"] >= 32 and len(parts_of(real_stack, job_id)) == got["stats"]["subtasks"]


def test_the_solution_count_of_a_sparse_sudoku_split_into_many_leaves(real_stack, data_dir):
    # 22 givens and 847 solutions (tdoku's test set, with its known count)
    lines = (data_dir / "sudoku" / "tdoku_test_puzzles_with_solution_counts.txt").read_text().split()
    puzzle = next(line.split(":")[0] for line in lines if line.split(":")[1] == "847")
    options = {"max_solutions": 100_000, "strategy": "greedy"}
    job_id = real_stack.submit([{"kind": "sudoku", "puzzle": puzzle, "options": {**options, "split": 64}}])
    real_stack.wait(job_id, timeout=60)
    (got,) = real_stack.puzzles(job_id)
    assert got["result"]["solutions_found"] == 847
    assert whole("sudoku", puzzle, options).result["solutions_found"] == 847
    assert got["stats"]["subtasks"] >= 64


def test_an_estimate_with_a_seed_is_identical_in_one_and_in_many_parts(real_stack):
    options = {"mode": "estimate", "probes": 200_000, "seed": 12345}
    job_id = real_stack.submit([{"kind": "nqueens", "puzzle": 14, "options": options}])
    real_stack.wait(job_id, timeout=60)
    (got,) = real_stack.puzzles(job_id)
    one = whole("nqueens", 14, options)
    assert got["stats"]["subtasks"] == 16 and one.stats["subtasks"] == 0
    assert got["result"] == one.result


def node(proc) -> str:
    """The celery node name Workers.start gave the process (its log file is named after it)."""
    return f"{proc.log.stem}@{socket.gethostname()}"


def test_a_seeded_estimate_is_identical_with_one_and_with_three_workers(real_stack):
    # 16 parts of ~0.1 s each; the same seed must give the same numbers however they are shared.
    options = {"mode": "estimate", "probes": 8_000_000, "seed": 4242}
    item = {"kind": "nqueens", "puzzle": 15, "options": options}
    control = real_stack.app.extensions["celery"].control
    lanes = list(settings_of(real_stack.app).lanes.queues)
    third = real_stack.workers.start()
    others = [node(p) for p in real_stack.workers.procs[1:]]
    try:
        results = {}
        for workers in (3, 1):
            if workers == 1:
                for queue in lanes:
                    assert len(control.cancel_consumer(queue, destination=others, reply=True, limit=2)) == 2
            job_id = real_stack.submit([item])
            real_stack.wait(job_id, timeout=120)
            (got,) = real_stack.puzzles(job_id)
            parts = parts_of(real_stack, job_id)
            assert len(parts) == 16 and got["stats"]["subtasks"] == 16
            assert len({p.worker for p in parts}) == workers
            results[workers] = got["result"]
        assert results[3] == results[1]
    finally:
        for queue in lanes:
            control.add_consumer(queue, destination=others, reply=True, limit=2)
        third.send_signal(signal.SIGTERM)
        third.wait(timeout=30)
        real_stack.workers.procs.remove(third)


def test_a_killed_worker_mid_split_has_its_part_retried_and_counted_once(real_stack, toy_kind):
    job_id = real_stack.submit([{"kind": "toy", "puzzle": "123456", "options": {"split": 6, "sleep": 1.0}}])

    def one_part_running(job):
        return any(t.status == "running" for t in parts_of(real_stack, job_id))

    real_stack.wait(job_id, until=one_part_running, timeout=30)
    running = real_stack.client.get(f"/api/v1/jobs/{job_id}/puzzles/0").json
    assert running["status"] == "running" and running["subtasks"]["total"] == 6
    victim = next(t for t in parts_of(real_stack, job_id) if t.status == "running")
    os.kill(int(victim.worker.split(":")[-2]), signal.SIGKILL)  # host:pid:node
    job = real_stack.wait(job_id, timeout=60)
    (got,) = real_stack.puzzles(job_id)
    assert job["counts"]["solved"] == 1 and got["result"] == {"sum": 21} and got["stats"]["subtasks"] == 6
    parts = parts_of(real_stack, job_id)
    assert all(t.status == "solved" for t in parts)
    assert next(t for t in parts if t.id == victim.id).attempts == 2
    with real_stack.app.extensions["sessions"]() as s:
        assert s.scalar(select(Puzzle.parts_done).where(Puzzle.job_id == job_id)) == 6


def test_a_part_that_raises_or_runs_too_long_fails_its_puzzle(real_stack, toy_kind):
    job_id = real_stack.submit([{"kind": "toy", "puzzle": "123", "options": {"split": 3, "crash": True}},
                                {"kind": "toy", "puzzle": "12", "options": {"split": 2, "sleep": 10.0}},
                                {"kind": "toy", "puzzle": "45", "options": {"split": 2}}])
    job = real_stack.wait(job_id, timeout=60)
    assert job["status"] == "completed" and job["counts"]["failed"] == 2 and job["counts"]["solved"] == 1
    crashed, slow, solved = real_stack.puzzles(job_id)
    assert crashed["error"].startswith("part ")
    assert crashed["error"].endswith(" of 3: solver error: RuntimeError: toy solver crashed on purpose")
    assert slow["error"].endswith(" of 2: exceeded the time limit of 6 s per part")
    assert solved["result"] == {"sum": 9}


def test_duplicated_part_deliveries_count_once(real_stack, toy_kind):
    job_id = real_stack.submit([{"kind": "toy", "puzzle": "123456", "options": {"split": 6, "sleep": 0.3}}])
    real_stack.wait(job_id, until=lambda job: len(parts_of(real_stack, job_id)) == 6, timeout=30)
    ids = [t.id for t in parts_of(real_stack, job_id)]
    # Every part once more. A delivery that finds its part running claims it again (the first
    # claim's result is then stale), and claims count towards MAX_ATTEMPTS (2 here).
    real_stack.app.extensions["publisher"].publish_parts([[i] for i in ids])
    job = real_stack.wait(job_id, timeout=60)
    (got,) = real_stack.puzzles(job_id)
    assert job["counts"]["solved"] == 1 and got["result"] == {"sum": 21} and got["stats"]["subtasks"] == 6
    with real_stack.app.extensions["sessions"]() as s:
        assert s.scalar(select(Puzzle.parts_done).where(Puzzle.job_id == job_id)) == 6
    assert all(t.status == "solved" for t in parts_of(real_stack, job_id))


def test_a_cancel_stops_the_running_parts_and_frees_both_workers(real_stack):
    # n = 18 in 16 parts: each part counts for well over the time limit (6 s), so without the
    # stop flag a running part would hold its worker until the hard limit kills the process.
    job_id = real_stack.submit([{"kind": "nqueens", "puzzle": 18,
                                 "options": {"mode": "count", "strategy": "tree"}}])

    def running(job):
        return [t for t in parts_of(real_stack, job_id) if t.status == "running"]

    real_stack.wait(job_id, until=lambda job: len(running(job)) == 2, timeout=60)
    busy = running(None)
    cancelled = real_stack.client.post(f"/api/v1/jobs/{job_id}/cancel").json
    stop_by = time.monotonic() + 6  # the parts' time limit: a part stopped by then was stopped by its flag
    assert cancelled["status"] == "cancelled"
    follow_up = real_stack.submit([{"kind": "nqueens", "puzzle": 8}])
    # Sooner than a part left running could give its worker back (its time limit): both were stopped.
    assert real_stack.wait(follow_up, timeout=6)["counts"]["solved"] == 1
    # The follow-up needs one worker: the other may log its stop a moment after the follow-up is done.
    while True:
        logs = "".join(p.log.read_text() for p in real_stack.workers.procs)
        if all(f"subtask {t.id} stopped" in logs for t in busy) or time.monotonic() > stop_by:
            break
        time.sleep(0.05)
    assert all(f"subtask {t.id} stopped" in logs for t in busy), logs[-3000:]
    assert all(os.kill(int(t.worker.split(":")[-2]), 0) is None for t in busy)  # stopped, not killed
    (got,) = real_stack.puzzles(job_id)
    assert got["status"] == "cancelled" and got["result"] is None
    assert all(t.result is None and t.status in ("running", "queued") for t in parts_of(real_stack, job_id))
