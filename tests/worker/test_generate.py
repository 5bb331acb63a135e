"""A generated puzzle on the worker's solving path: the registry hands out the kind's making
record for options with a ``generate`` request; what it makes is verified like any answer, and a
made puzzle that fails the check is a failed row, never a stored wrong answer."""

from __future__ import annotations

import dataclasses
import json

import pytest

import solvers
from solvers.base import Settings
from solvers.sudoku import making
from store.models import FAILED, SOLVED
from store.rows import Assigned
from worker import outcome

PLANS: Settings = {"SPLIT_PARTS": 4, "SPLIT_NODE_BUDGET": 10_000}


def request(**given) -> dict:
    _, _, options = solvers.read_generate_item({"kind": "sudoku", "generate": {"count": 1, **given}}, 10)
    return options


def test_the_worker_makes_puzzle_i_through_the_registry():
    options = request(difficulty="easy", seed=9)
    a = Assigned(1, "job", "sudoku", 2, options, 1)
    ready = outcome.prepare(a)
    assert ready.kind is solvers.kind_for("sudoku", options) and ready.kind is not solvers.get("sudoku")
    assert ready.cost() == making.SECONDS["easy"]
    got = outcome.solve_one(a, 30, PLANS)
    made = json.loads(got.answer)[0]
    assert got.status == SOLVED and made == making.make(options["generate"], 2)
    again = outcome.solve_one(dataclasses.replace(a, id=2), 30, PLANS)
    assert json.loads(again.answer)[0] == made


def test_a_run_of_made_puzzles_goes_through_one_prepare_batch():
    options = request(seed=1)
    alike = [Assigned(i, "job", "sudoku", i, options, 1) for i in range(3)]
    ready = outcome.prepared_alike(alike)
    assert [r.puzzle for r in ready] == [0, 1, 2]
    assert {r.kind.name for r in ready} == {"sudoku"} and all(r.kind is ready[0].kind for r in ready)


@pytest.mark.parametrize("fault", ["solution", "rating", "puzzle"])
def test_a_made_puzzle_that_fails_verification_fails_its_row(monkeypatch, fault):
    options = request(difficulty="medium", seed=3)
    real = making.make(options["generate"], 0)
    wrong = dict(real)
    if fault == "solution":  # two digits of the solution swapped
        s = real["solution"]
        wrong["solution"] = s[1] + s[0] + s[2:]
    elif fault == "rating":
        wrong["rating"] = 9.5
    else:  # a given taken away: no longer unique (the generator makes minimal puzzles)
        at = next(i for i, c in enumerate(real["puzzle"]) if c != ".")
        wrong["puzzle"] = real["puzzle"][:at] + "." + real["puzzle"][at + 1:]
    generator = dataclasses.replace(making.GENERATOR, make=lambda opts, index: wrong)
    kind = dataclasses.replace(solvers.get("sudoku"), generator=generator)
    monkeypatch.setitem(solvers.KINDS, "sudoku", kind)
    monkeypatch.setattr(solvers.factory, "_MAKING", {})
    got = outcome.solve_one(Assigned(1, "job", "sudoku", 0, options, 1), 30, PLANS)
    assert got.status == FAILED and "failed verification" in got.error, got.error


def test_a_stored_generate_row_with_bad_options_fails_as_invalid():
    a = Assigned(1, "job", "sudoku", 0, {"generate": {"difficulty": "impossible"}}, 1)
    got = outcome.solve_one(a, 30, PLANS)
    assert got.status == FAILED and got.error.startswith("invalid puzzle"), got.error
