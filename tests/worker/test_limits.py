"""Time limits: the alarm and the watcher's stop flag, alone and together."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from sqlalchemy import select

import solvers
from solvers.base import Estimate
from store.cost_settings import Costs
from store.models import Puzzle
from store.rows import Assigned
from tests.service.conftest import plans_of, runtime_of, settings_of
from tests.services import ROOT, Stack, Workers, app_for, migrate, service_env
from tests.toykind import TOY
from worker import chunk, outcome, stored
from worker.limits import PuzzleTimeout, alarms_raise_timeout, time_limit, watching

# Korf's first 15-puzzle by IDA* with the Manhattan distance alone: minutes in the compiled kernel.
KORF_1 = Assigned(1, "job", "sliding", "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2", {"heuristic": "manhattan"}, 1)


def test_a_puzzle_past_its_limit_always_ends_exceeded_when_the_alarm_and_the_watcher_meet(make_app):
    """The watcher's flag stops the kernel at the limit, and the alarm goes off at the same moment:
    the alarm's exception then surfaced from inside the compiled call as a SystemError (``CPUDispatcher
    ... returned a result with an exception set``), most runs out of a hundred on this machine."""
    app = make_app(PUZZLE_TIME_LIMIT=0.05)
    budget, plans = settings_of(app).time, plans_of(app)
    limit = budget.puzzle_time_limit
    outcome.solve_one(Assigned(2, "job", "sliding", "1 2 3 4 5 6 7 0 8", {}, 1), 5, plans)  # compiled
    errors: collections.Counter[str | None] = collections.Counter()
    with alarms_raise_timeout():
        for _ in range(60):
            # Polls every 10 s: the only thing the watcher does here is raise the flag at the limit.
            polls_rarely = replace(budget, stop_poll_seconds=10.0)
            with watching(app.extensions["sessions"], KORF_1.id, polls_rarely) as watch:
                result = outcome.solve_one(KORF_1, limit, plans, watch=watch)
            assert isinstance(result, outcome.Result)
            errors[result.error] += 1
    assert errors == {"exceeded the time limit of 0.05 s per puzzle": 60}


def test_any_exception_raised_once_the_alarm_went_off_is_the_time_limit():
    def raise_inside_a_call():
        try:
            while True:
                pass
        except PuzzleTimeout as exc:
            raise SystemError("returned a result with an exception set") from exc

    with alarms_raise_timeout(), pytest.raises(PuzzleTimeout), time_limit(0.01):
        raise_inside_a_call()


def test_an_error_before_the_alarm_goes_off_is_left_alone():
    with alarms_raise_timeout(), pytest.raises(ZeroDivisionError), time_limit(5):
        print(1 / 0)


def test_a_prediction_sets_the_time_limit_within_the_floor_and_the_puzzle_limit():
    costs = Costs(prediction_time_factor=5.0, prediction_time_floor=2.0)
    assert costs.time_limit(high=1.0, most=120.0) == 5.0  # 5 x the high end
    assert costs.time_limit(high=0.001, most=120.0) == 2.0  # never below the floor
    assert costs.time_limit(high=100.0, most=120.0) == 120.0  # never above PUZZLE_TIME_LIMIT
    assert costs.time_limit(high=0.001, most=1.0) == 1.0  # nor the floor either
    assert Costs(prediction_time_factor=0).time_limit(high=0.001, most=120.0) == 120.0  # off


def predicted_at(seconds):
    """The toy kind predicting ``seconds`` of every puzzle, within a factor of 2."""
    return replace(TOY, predict=lambda puzzle, options: Estimate(seconds, 2.0, "test"))


@pytest.mark.parametrize(("predicted", "error"), [
    # 5 x its high end (0.04 s) is 0.2 s: 10 times its predicted seconds
    (0.02, "exceeded its time limit of 0.2 CPU s: it ran past 10 x its predicted 0.02 s "
           "(PREDICTION_TIME_FACTOR)"),
    # 5 x 1 s passes PUZZLE_TIME_LIMIT, which holds
    (0.5, "exceeded the time limit of 0.6 s per puzzle"),
])
def test_a_puzzle_stopped_at_its_predicted_limit_says_so(make_app, monkeypatch, predicted, error):
    monkeypatch.setitem(solvers.KINDS, "toy", predicted_at(predicted))
    app = make_app(PUZZLE_TIME_LIMIT=0.6, PREDICTION_TIME_FACTOR=5.0, PREDICTION_TIME_FLOOR=0.1)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": "1", "options": {"spin": 3.0}}, {"kind": "toy", "puzzle": "2"}]})
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
    chunk.run_chunk(runtime_of(app), ids, "w")
    slow, quick = app.test_client().get(f"/api/v1/jobs/{r.json['id']}/puzzles").json["items"]
    assert slow["status"] == "failed" and slow["error"] == error
    assert quick["status"] == "solved"


@pytest.mark.parametrize("expensive", [False, True], ids=["alarm", "watcher"])
def test_a_predicted_limit_counts_cpu_seconds_not_the_wall_time_of_a_loaded_machine(make_app, monkeypatch,
                                                                                   expensive):
    # Predicted at 20 ms (limit 0.2 CPU s), the puzzle sleeps 0.6 s: as long in wall time as a
    # 20 ms solve that waits its turn behind 30 other processes on a core; it costs no CPU.
    monkeypatch.setitem(solvers.KINDS, "toy", predicted_at(0.02))
    app = make_app(PUZZLE_TIME_LIMIT=5.0, PREDICTION_TIME_FACTOR=5.0, PREDICTION_TIME_FLOOR=0.1,
                   STOP_POLL_SECONDS=0.05, OPTIMISTIC_SECONDS=0.001 if expensive else 1.0)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": "1", "options": {"sleep": 0.6}}]})
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"])))
    chunk.run_chunk(runtime_of(app), ids, "w")
    item = app.test_client().get(f"/api/v1/jobs/{r.json['id']}/puzzles").json["items"][0]
    assert item["status"] == "solved", item["error"]


def test_a_run_predicted_wrong_is_stopped_at_its_predicted_limit_and_solved_one_by_one(make_app, monkeypatch):
    # Three puzzles predicted at 1 ms each go through one solve_batch call; each spins 0.3 CPU s.
    # One puzzle a task (CHUNK_MAX=1), so that they are rows, handed to one task here.
    monkeypatch.setitem(solvers.KINDS, "toy", predicted_at(0.001))
    app = make_app(PUZZLE_TIME_LIMIT=5.0, PREDICTION_TIME_FACTOR=5.0, PREDICTION_TIME_FLOOR=0.2, CHUNK_MAX=1)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": str(i), "options": {"spin": 0.3}} for i in (1, 2, 3)]})
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
    chunk.run_chunk(runtime_of(app), ids, "w")
    items = app.test_client().get(f"/api/v1/jobs/{r.json['id']}/puzzles").json["items"]
    # The run stopped at 0.2 s (not PUZZLE_TIME_LIMIT's 5 s); alone, each ran past its own limit.
    assert [p["status"] for p in items] == ["failed"] * 3
    assert all(p["error"].startswith("exceeded its time limit of 0.2 CPU s: it ran past") for p in items)


def test_a_chunk_predicted_wrong_is_stopped_at_its_predicted_limit_and_its_entries_leave(make_app,
                                                                                       monkeypatch):
    # The same three stored as a chunk (store.chunks): its solve_batch call is stopped at 0.2 CPU s
    # (run whole, the three would be solved in 0.9), so each leaves for a row and fails alone.
    monkeypatch.setitem(solvers.KINDS, "toy", predicted_at(0.001))
    app = make_app(PUZZLE_TIME_LIMIT=5.0, PREDICTION_TIME_FACTOR=5.0, PREDICTION_TIME_FLOOR=0.2)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [
        {"kind": "toy", "puzzle": str(i), "options": {"spin": 0.3}} for i in (1, 2, 3)]})
    (chunk_id,) = app.extensions["publisher"].stored
    report = stored.run_stored(runtime_of(app), chunk_id, "w")
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == r.json["id"]).order_by(Puzzle.index)))
    assert (report.written, report.left, app.extensions["publisher"].chunks) == (0, ids, [[i] for i in ids])
    for i in ids:
        chunk.run_chunk(runtime_of(app), [i], "w")
    items = app.test_client().get(f"/api/v1/jobs/{r.json['id']}/puzzles").json["items"]
    assert [p["status"] for p in items] == ["failed"] * 3
    assert all(p["error"].startswith("exceeded its time limit of 0.2 CPU s: it ran past") for p in items)


def cold_env(tmp_path) -> dict[str, str]:
    """This environment with a NUMBA_CACHE_DIR of its own, empty: every kernel compiles."""
    return {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "PYTHONPATH": str(ROOT)}


@pytest.mark.parametrize("limit", [[], ["soft"]], ids=["alarm", "celery-soft-limit"])
def test_a_limit_that_ends_during_a_kernels_first_compile_leaves_numba_whole(tmp_path, limit):
    # tests/worker/cold_kernels.py: a 0.05 s limit (the project's alarm, or Celery's soft limit's
    # SIGUSR1) over a first compile that takes seconds, then solves that compile the rest of that
    # kind's kernels and N-Queens' own.
    run = subprocess.run([sys.executable, "-m", "tests.worker.cold_kernels", *limit], cwd=ROOT,
                         env=cold_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.splitlines()[-1])
    expected = {"timed_out": True, "raised_in_compiler": False, "then": ["solved", "solved"]}
    assert report == expected, run.stderr


def test_a_worker_whose_first_puzzles_compile_past_their_limit_solves_the_next(tmp_path):
    # A real worker (one solo process, SQLite and the filesystem broker) whose warm-up compiled
    # nothing: each kind's first puzzle compiles its kernels past the 0.3 s limit and fails. The
    # limit ends a puzzle between two compiles, so a kind with several kernels may need a few
    # puzzles before all are compiled; each of those fails on its time limit, and one is solved.
    # An exception raised into a compile would leave numba broken: every later puzzle would fail
    # with another error.
    db_url = f"sqlite:///{tmp_path / 'puzzles.db'}"
    migrate(db_url)
    env = service_env(db_url, None, "cold", BROKER_DIR=str(tmp_path / "broker"), PUZZLE_TIME_LIMIT="0.3",
                      **{k: v for k, v in cold_env(tmp_path).items() if k == "NUMBA_CACHE_DIR"})
    workers = Workers(env, tmp_path, app="tests.worker.coldworker")
    try:
        workers.start(pool="solo")
        stack = Stack(app_for(env), workers)
        for item in ({"kind": "sudoku", "puzzle": "1.3..4.22..3..2."},
                     {"kind": "nqueens", "puzzle": {"n": 10}, "options": {"mode": "count"}}):
            outcomes = []
            while len(outcomes) < 6 and (not outcomes or outcomes[-1]["status"] != "solved"):
                outcomes.append(stack.puzzles(stack.wait(stack.submit([item]), timeout=300)["id"])[0])
            *failed, last = outcomes
            assert failed, outcomes
            assert all(p["status"] == "failed" and "time limit" in p["error"] for p in failed), failed
            assert last["status"] == "solved", outcomes
    finally:
        workers.stop()
