"""Very hard 9x9 puzzles (rated 9.0 and up, the ``extreme`` band) made near known ones: random
generation and grading rarely meets such a rating, while a neighbour of a very hard puzzle is
very hard most of the time (a vicinity search, docs/glossary.md).

One attempt (``attempt``): a seed from the bank (``hardest.txt``: puzzles of the Enjoy Sudoku
forum's hardest list, rated 9.0 and up by the grader), a random isomorph of it (``isomorph``:
the digits relabelled, rows permuted within their bands and the bands among themselves, the
same for columns and stacks, and a transposition half the time; each of these maps a valid
grid to a valid grid and leaves every technique's steps, so the rating, the same), then a clue
move (``move``): one given taken away and one blank given its solution value, the first such
pair in a random order that leaves the puzzle unique; then the givens, in a random order, each
removed unless a second solution appears (genk.minimize), which makes the puzzle minimal.
The generator (generate.py) grades the result and keeps it when it is in the range asked.
Symmetric givens are not offered this way: the seeds are not symmetric, and making them so adds
givens that take most of the difficulty away.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solvers.sudoku import genk

SEEDS_PATH = Path(__file__).with_name("hardest.txt")
LOW = 9.0  # the ratings this method is for: a range starting here or above


class Isomorph(NamedTuple):
    """A map of 9x9 grids: cell i of the image is cell ``cells[i]`` of the grid, its value
    relabelled by ``digits`` (``digits[0]`` = 0 keeps blanks blank)."""
    cells: np.ndarray
    digits: np.ndarray

    def apply(self, grid: np.ndarray) -> np.ndarray:
        """The image of ``grid`` (uint8[81], 0 blank)."""
        out: np.ndarray = self.digits[grid[self.cells]]
        return out


@functools.cache
def seeds() -> np.ndarray:
    """The seed bank as uint8[k, 81] (0 blank); lines starting with '#' are its header."""
    lines = [line.split()[0] for line in SEEDS_PATH.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    text = "".join(lines).replace(".", "0").encode()
    return (np.frombuffer(text, np.uint8) - ord("0")).reshape(len(lines), 81)


def _lines(rng: np.random.Generator) -> np.ndarray:
    """A random order of the 9 rows (or columns) that keeps each band (stack) together."""
    return np.concatenate([3 * band + rng.permutation(3) for band in rng.permutation(3)])


def isomorph(rng: np.random.Generator) -> Isomorph:
    """A random map from the group that keeps grids valid and ratings unchanged (module doc)."""
    cells = _lines(rng)[:, None] * 9 + _lines(rng)[None, :]
    if rng.integers(2):
        cells = cells.T
    digits = np.concatenate([[0], rng.permutation(9) + 1]).astype(np.uint8)
    return Isomorph(cells.reshape(81), digits)


def unique(puzzle: np.ndarray) -> bool:
    """Whether ``puzzle`` (uint8[81]) has exactly one solution (the fast solver, stopped at two)."""
    return bool(genk.count_solutions(puzzle.reshape(1, 81), np.zeros((1, 81), np.uint8)) == 1)


def move(rng: np.random.Generator, puzzle: np.ndarray, solution: np.ndarray) -> np.ndarray | None:
    """A {-1 +1} neighbour of the unique ``puzzle`` (uint8[81]): one given removed and one other
    blank given its ``solution`` value, the first unique one in a random order; None if none is."""
    for out in rng.permutation(np.flatnonzero(puzzle)):
        near = puzzle.copy()
        near[out] = 0
        for cell in rng.permutation(np.flatnonzero(near == 0)):
            if cell == out:
                continue
            near[cell] = solution[cell]
            if unique(near):
                return near
            near[cell] = 0
    return None


def attempt(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(puzzle, solution), uint8[1, 81] each: one minimal neighbour of a seed's isomorph (module doc)."""
    bank = seeds()
    change = isomorph(rng)
    start = change.apply(bank[rng.integers(len(bank))])
    solution = genk.complete(start.reshape(1, 81).copy())
    near = move(rng, start, solution[0])
    puzzle = (start if near is None else near).reshape(1, 81).copy()
    givens = rng.permutation(np.flatnonzero(puzzle[0]))
    orbits = np.full((len(givens), 4), -1, np.int64)
    orbits[:, 0] = givens
    genk.minimize(puzzle, orbits)
    return puzzle, solution
