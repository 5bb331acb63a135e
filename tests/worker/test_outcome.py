"""How a failed puzzle's error reads: a generator's deliberate give-up as its message alone, an
unexpected exception with its class for the operator, a time limit with the kind's hint of a
cheaper mode where its options allow one; the batch solve both cheap paths share."""

from __future__ import annotations

import dataclasses

import pytest

import solvers
from solvers.base import Budgeted, Settings, Whole
from store.models import FAILED, SOLVED
from store.rows import Assigned
from worker import outcome
from worker.limits import PuzzleTimeout

PLANS: Settings = {"SPLIT_PARTS": 4, "SPLIT_NODE_BUDGET": 10_000}
BOARD = "8 6 7 2 5 4 3 0 1"


def test_a_generator_that_gives_up_reads_as_its_message_alone():
    _count, _, options = solvers.read_generate_item(
        {"kind": "spokes", "generate": {"count": 1, "width": 4, "height": 4, "level": "hard", "seed": 1,
                                        "max_attempts": 1}}, 10)
    got = outcome.solve_one(Assigned(1, "job", "spokes", 0, options, 1), 30, PLANS)
    assert got.status == FAILED
    assert got.error == "puzzle 0: no hard 4x4 spokes puzzle after 1 attempts (max_attempts)"


def test_an_unexpected_exception_keeps_its_class_name():
    assert outcome.failure_reason(KeyError("grid"), "puzzle 1") == "solver error: KeyError: 'grid'"


def timed_out(options: dict) -> str:
    """The error of a sliding puzzle with ``options`` whose solve runs past its time limit."""

    def solve(puzzle, opts, /, node_limit=None, stop=None):
        raise PuzzleTimeout

    real = solvers.get("sliding")
    puzzle, read = real.prepare(BOARD, options)
    ready = outcome.Prepared(dataclasses.replace(real, solve=solve), puzzle, read)
    got = outcome.solve_one(Assigned(1, "job", "sliding", BOARD, options, 1), 2.0, PLANS, ready)
    assert got.status == FAILED
    return got.error


@pytest.mark.parametrize(("optimal", "hinted"), [(True, True), (False, False)])
def test_a_time_limit_failure_hints_at_the_kinds_cheaper_mode(optimal, hinted):
    error = timed_out({"optimal": optimal})
    assert error.startswith(outcome.too_long(2.0, "puzzle"))
    assert ('{"optimal": false}' in error) == hinted, error


def test_the_batch_solve_gives_each_outcome_within_its_plan_and_wraps_a_failed_call():
    # the one batch solve of a task of puzzle rows (solve_run) and of a stored chunk (worker.stored)
    kind = solvers.get("sliding")
    options = kind.read_options({})
    puzzles = kind.prepare_batch([BOARD, BOARD], options)
    solved = outcome.solve_batch(kind, puzzles, options, [Whole(), Budgeted(1, 4)], 30.0, False)
    assert solved.outcomes[0] is not None and solved.outcomes[0][0] == SOLVED
    assert solved.outcomes[1] is None, "past its budget of one node: split, not answered"
    assert solved.solve_ms >= 0 and solved.cpu_seconds >= 0

    def out_of_time(prepared, opts):
        raise PuzzleTimeout

    with pytest.raises(outcome.BatchFailed) as failed:
        outcome.solve_batch(dataclasses.replace(kind, solve_batch=out_of_time), puzzles, options,
                            [Whole(), Whole()], 30.0, False)
    assert isinstance(failed.value.cause, PuzzleTimeout)
