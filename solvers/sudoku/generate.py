"""A 9x9 Sudoku generator: puzzles with exactly one solution, minimal, symmetric if asked,
within a band or a range of the grader's rating (grade.py), reproducible from a seed.

Puzzle i of a request comes from a random generator seeded with (seed, i) only, so the same
seed gives the same puzzles however the request is split into ranges (``generate(options,
start, stop)``). One attempt: three random diagonal boxes (independent of each other) completed
by the fast solver (fast.py) into a solution grid; then the orbits of cells under the symmetry
(``SYMMETRIES``), in a random order, each emptied unless a second solution appears (searched
by the fast solver: a second one exists exactly when a removed cell can hold another value,
genk.py). One pass leaves the puzzle minimal: no orbit, and with symmetry ``none`` no single
given, can go without losing uniqueness; the fast solver's count stopped at two then proves
the puzzle unique. With
``minimal=False`` one to four of the removed orbits are given back.

Following Simon Tatham's generator, an attempt is rejected before the grader runs when the
singles alone (gradek.py's kernel) bound its rating outside the range: full houses and hidden
singles alone give at most 1.5, with naked singles exactly 2.3, and a stall at least 2.6.
An attempt outside the range is dropped and the next one made from the same generator, up to
``max_attempts``. Sizes other than 9x9 are not generated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.base import WrongAnswer
from solvers.sudoku import genk, grade, gradek
from solvers.sudoku.grid import render

SYMMETRIES = ("none", "rotational", "diagonal", "mirror")
DIAGONAL_BOXES = (0, 4, 8)
# the rating interval [low, high] the singles allow, by gradek.singles_level
SINGLES_BOUNDS = ((1.0, 1.5), (2.3, 2.3), (2.6, grade.GUESS_MAX))


@dataclass(frozen=True)
class Options:
    """What to generate: a ``band`` (grade.BANDS) or a rating range [rating_min, rating_max),
    the ``symmetry`` of the givens, whether the puzzle is ``minimal``, the ``seed`` (>= 0) and
    the attempts allowed per puzzle."""
    seed: int = 0
    band: str | None = None
    rating_min: float | None = None
    rating_max: float | None = None
    symmetry: str = "none"
    minimal: bool = True
    max_attempts: int = 5000

    def rating_range(self) -> tuple[float, float]:
        """[low, high) of the rating, checked; ValueError naming the field at fault."""
        if self.band is not None:
            if self.rating_min is not None or self.rating_max is not None:
                raise ValueError("give either 'band' or 'rating_min'/'rating_max', not both")
            if self.band not in grade.BANDS:
                raise ValueError(f"band {self.band!r} is not one of {', '.join(grade.BANDS)}")
            return grade.BANDS[self.band]
        low = 1.0 if self.rating_min is None else self.rating_min
        high = 12.0 if self.rating_max is None else self.rating_max
        if not low < high:
            raise ValueError(f"rating_min ({low}) must be below rating_max ({high})")
        return low, high

    def check(self) -> None:
        """ValueError naming the first option out of range."""
        self.rating_range()
        if self.symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry {self.symmetry!r} is not one of {', '.join(SYMMETRIES)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, not {self.seed!r}")
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.max_attempts!r}")


@dataclass(frozen=True)
class Generated:
    """Puzzle ``index`` of a request: the givens ('.' blank) and solution as 81 symbols, the
    grader's rating, hardest technique, band and number of steps, and the attempts it took."""
    index: int
    puzzle: str
    solution: str
    rating: float
    hardest: str
    band: str
    attempts: int
    steps: int


def _orbits(symmetry: str) -> np.ndarray:
    """int64[k, 4]: the cells each orbit of the symmetry maps onto each other, padded with -1."""
    def image(cell: int) -> int:
        r, c = divmod(cell, 9)
        images = {"none": cell, "rotational": 80 - cell, "diagonal": c * 9 + r, "mirror": r * 9 + 8 - c}
        return images[symmetry]
    orbits = sorted({tuple(sorted({cell, image(cell)})) for cell in range(81)})
    return np.array([list(o) + [-1] * (4 - len(o)) for o in orbits], np.int64)


ORBITS = {name: _orbits(name) for name in SYMMETRIES}


def _attempt(rng: np.random.Generator, symmetry: str, minimal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(puzzle, solution), uint8[1, 81] each, of one attempt (module doc)."""
    seedling = np.zeros((1, 81), np.uint8)
    for b in DIAGONAL_BOXES:
        seedling[0, gradek.UNITS[18 + b]] = rng.permutation(9) + 1
    solution = genk.complete(seedling)
    orbits = ORBITS[symmetry][rng.permutation(len(ORBITS[symmetry]))]
    puzzle = solution.copy()
    genk.minimize(puzzle, orbits)
    if not minimal:
        removed = [o for o in orbits if not puzzle[0, o[0]]]
        for k in rng.permutation(len(removed))[:rng.integers(1, 5)]:
            cells = removed[k][removed[k] >= 0]
            puzzle[0, cells] = solution[0, cells]
    _prove_unique(puzzle, solution)
    return puzzle, solution


def _prove_unique(puzzle: np.ndarray, solution: np.ndarray) -> None:
    """The fast solver's count, stopped at two, must find ``solution`` and no other: a check
    of the removals' reasoning, which a bug would make wrong."""
    found = np.zeros((1, 81), np.uint8)
    if genk.count_solutions(puzzle, found) != 1 or not np.array_equal(found, solution):
        raise WrongAnswer(f"the generator made {render(puzzle[0])}, which does not have exactly one solution")


def _make(options: Options, index: int, low: float, high: float) -> Generated:
    """Puzzle ``index``: attempts from the generator seeded with (seed, index) until one is
    rated in [low, high); ValueError after max_attempts."""
    rng = np.random.default_rng([options.seed, index])
    for attempt in range(1, options.max_attempts + 1):
        puzzle, solution = _attempt(rng, options.symmetry, options.minimal)
        least, most = SINGLES_BOUNDS[gradek.singles_level(puzzle[0])]
        if most < low or least >= high:
            continue
        graded = grade.grade_below(puzzle[0], high)
        if graded is not None and graded.rating >= low:
            return Generated(index, render(puzzle[0]), render(solution[0]), graded.rating, graded.hardest,
                             graded.band, attempt, graded.steps)
    raise ValueError(f"puzzle {index}: no puzzle rated in [{low}, {high}) after "
                     f"{options.max_attempts} attempts (max_attempts)")


def generate(options: Options, start: int, stop: int) -> list[Generated]:
    """Puzzles ``start`` .. ``stop - 1`` of the request ``options`` (each one from (seed, index))."""
    options.check()
    if not 0 <= start <= stop:
        raise ValueError(f"the range start={start}, stop={stop} must have 0 <= start <= stop")
    low, high = options.rating_range()
    return [_make(options, i, low, high) for i in range(start, stop)]
