"""solvers.sudoku.checks: the givens' checks answer alike in their numpy form and their kernels, and
a process that waits for no compile (the API) answers before the kernels are compiled."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from solvers.sudoku import checks, kernels
from solvers.sudoku.grid import layout, parse

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def random_givens(rng, n, rows):
    """``rows`` grids of side ``n`` with up to half their cells given at random: most repeat a value."""
    givens = np.zeros((rows, n * n), np.uint8)
    for row in givens:
        k = rng.integers(0, n * n // 2)
        row[rng.choice(n * n, k, replace=False)] = rng.integers(1, n + 1, k)
    return givens


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_the_numpy_forms_answer_as_the_kernels(n):
    rng = np.random.default_rng(n)
    lay = layout(n)
    givens = random_givens(rng, n, 300)
    givens[0] = 0
    firsts = [kernels.first_conflict(row, lay.peers) for row in givens]
    assert [checks.plain_first_conflict(row, lay.peers) for row in givens] == firsts
    assert firsts[0] == (-1, -1) and 0 < sum(cell >= 0 for cell, _ in firsts) < len(firsts)
    bad = kernels.conflicting_rows(givens, lay.cell_units)
    assert checks.plain_conflicting_rows(givens, lay.cell_units).tolist() == bad.tolist()
    assert bad.tolist() == [cell >= 0 for cell, _ in firsts]


def test_an_empty_run_has_no_conflict():
    lay = layout(9)
    assert checks.plain_conflicting_rows(np.zeros((0, 81), np.uint8), lay.cell_units).tolist() == []


class Compiling:
    """A kernel whose compile is held until ``done`` is set: what a call on an empty cache waits for."""

    def __init__(self, kernel):
        self.kernel, self.done, self.calls = kernel, threading.Event(), 0
        self.overloads: dict = {}

    def __call__(self, *args):
        self.calls += 1
        assert self.done.wait(10)
        return self.kernel(*args)


def test_a_process_that_waits_for_no_compile_answers_with_numpy_until_the_kernels_are_warm(monkeypatch):
    held = {name: Compiling(getattr(kernels, name)) for name in ("first_conflict", "conflicting_rows")}
    for name, kernel in held.items():
        monkeypatch.setattr(kernels, name, kernel)
    monkeypatch.setattr(checks, "_waits_for_nothing", False)
    checks.warm_in_background()  # its thread is held in the first kernel's compile
    grid, lay = parse(EASY), layout(9)
    twice = grid.givens.copy()
    twice[1] = twice[0]
    assert checks.first_conflict(grid.givens, lay.peers) == (-1, -1)
    assert checks.first_conflict(twice, lay.peers) == (1, 0)
    assert checks.conflicting_rows(np.stack([grid.givens, twice]), lay.cell_units).tolist() == [False, True]
    assert held["first_conflict"].calls == 1 and held["conflicting_rows"].calls == 0  # the warming thread's
    for kernel in held.values():
        kernel.done.set()
