"""A Sudoku generator: puzzles with exactly one solution, minimal, symmetric if asked, 9x9 within
a band or a range of the grader's rating (grade.py), reproducible from a seed.

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
``max_attempts``. A range starting at 9.0 or above (the ``extreme`` band), which few attempts
meet, is made near known very hard puzzles instead (vicinity.py), without symmetry, in at most
``VICINITY_ATTEMPTS`` attempts.

Sizes 4x4 and 16x16 are made the same way by gensat.py (CaDiCaL with the givens as
assumptions in place of the bit-parallel kernels), and the kind's own solver, counting up to two,
proves each puzzle unique. They carry no rating: the grader and its scale (Sudoku Explainer's)
are 9x9 only, so a band or rating range is refused for them and ``rating`` is None.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from solvers.base import NotMade, WrongAnswer
from solvers.sudoku import genk, gensat, grade, gradek, sat, vicinity
from solvers.sudoku import solve as solving
from solvers.sudoku.grid import Grid, render

SYMMETRIES = ("none", "rotational", "diagonal", "mirror")
# 25x25: a minimal puzzle costs far more than a request may take (no uniqueness proof is cheap there)
SIZES = (4, 9, 16)
GRADED_SIZE = 9
UNIQUENESS = {"strategy": "auto", "sat_solver": sat.SOLVERS[0], "max_solutions": 2, "split": 0}
DIAGONAL_BOXES = (0, 4, 8)
# the rating interval [low, high] the singles allow, by gradek.singles_level
SINGLES_BOUNDS = ((1.0, 1.5), (2.3, 2.3), (2.6, grade.GUESS_MAX))
# most neighbours of a seed are in the extreme band: more attempts than this mean a range
# they rarely meet
VICINITY_ATTEMPTS = 100


@dataclass(frozen=True)
class Options:
    """What to generate: a ``band`` (grade.BANDS) or a rating range [rating_min, rating_max),
    the ``symmetry`` of the givens, whether the puzzle is ``minimal``, the ``seed`` (>= 0) and
    the attempts allowed per puzzle; the ``size`` n of an n x n grid."""
    seed: int = 0
    band: str | None = None
    rating_min: float | None = None
    rating_max: float | None = None
    symmetry: str = "none"
    minimal: bool = True
    max_attempts: int = 5000
    size: int = GRADED_SIZE

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
        if self.size not in SIZES:
            raise ValueError(f"size {self.size!r} is not one of {', '.join(map(str, SIZES))}")
        if self.size != GRADED_SIZE and (self.band, self.rating_min, self.rating_max) != (None, None, None):
            raise ValueError(f"the grader rates 9x9 puzzles only; a {self.size}x{self.size} request takes "
                             "no difficulty, rating_min or rating_max")
        self.rating_range()
        if self.symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry {self.symmetry!r} is not one of {', '.join(SYMMETRIES)}")
        if self.symmetry != "none" and self.rating_range()[0] >= vicinity.LOW:
            raise ValueError(f"symmetry {self.symmetry!r} is not offered for ratings of {vicinity.LOW} "
                             "and up (extreme): those puzzles are made near known ones, which have none; "
                             "ask for symmetry 'none' or a lower rating")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, not {self.seed!r}")
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.max_attempts!r}")


@dataclass(frozen=True)
class Generated:
    """Puzzle ``index`` of a request: the givens ('.' blank) and solution as n*n symbols, the
    grader's rating, hardest technique, band and number of steps (None for sizes other than
    9x9), and the attempts it took."""
    index: int
    puzzle: str
    solution: str
    rating: float | None
    hardest: str | None
    band: str | None
    attempts: int
    steps: int | None


@functools.cache
def orbits_of(symmetry: str, n: int) -> np.ndarray:
    """int64[k, 4]: the cells each orbit of the symmetry maps onto each other, padded with -1."""
    def image(cell: int) -> int:
        r, c = divmod(cell, n)
        images = {"none": cell, "rotational": n * n - 1 - cell, "diagonal": c * n + r,
                  "mirror": r * n + n - 1 - c}
        return images[symmetry]
    orbits = sorted({tuple(sorted({cell, image(cell)})) for cell in range(n * n)})
    return np.array([list(o) + [-1] * (4 - len(o)) for o in orbits], np.int64)


ORBITS = {name: orbits_of(name, GRADED_SIZE) for name in SYMMETRIES}


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
        _give_back(rng, puzzle[0], solution[0], orbits)
    _prove_unique(puzzle, solution)
    return puzzle, solution


def _near(rng: np.random.Generator, minimal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(puzzle, solution), uint8[1, 81] each, of one attempt near a very hard puzzle (vicinity.py)."""
    puzzle, solution = vicinity.attempt(rng)
    if not minimal:
        _give_back(rng, puzzle[0], solution[0], ORBITS["none"][rng.permutation(81)])
    _prove_unique(puzzle, solution)
    return puzzle, solution


def _give_back(rng: np.random.Generator, puzzle: np.ndarray, solution: np.ndarray,
               orbits: np.ndarray) -> None:
    """One to four of the removed orbits given back (``minimal=False``)."""
    removed = [o for o in orbits if not puzzle[o[0]]]
    for k in rng.permutation(len(removed))[:rng.integers(1, 5)]:
        cells = removed[k][removed[k] >= 0]
        puzzle[cells] = solution[cells]


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
    near = low >= vicinity.LOW
    attempts = min(options.max_attempts, VICINITY_ATTEMPTS) if near else options.max_attempts
    for attempt in range(1, attempts + 1):
        if near:
            puzzle, solution = _near(rng, options.minimal)
        else:
            puzzle, solution = _attempt(rng, options.symmetry, options.minimal)
        least, most = SINGLES_BOUNDS[gradek.singles_level(puzzle[0])]
        if most < low or least >= high:
            continue
        graded = grade.grade_below(puzzle[0], high)
        if graded is not None and graded.rating >= low:
            return Generated(index, render(puzzle[0]), render(solution[0]), graded.rating, graded.hardest,
                             graded.band, attempt, graded.steps)
    raise NotMade(f"puzzle {index}: no puzzle rated in [{low}, {high}) after "
                  f"{attempts} attempts" + (" (near very hard puzzles)" if near else " (max_attempts)"))


def _make_ungraded(options: Options, index: int) -> Generated:
    """Puzzle ``index`` of a size without a grader (module doc): its first attempt; the kind's
    solver (auto), counting to two, proves it unique."""
    n, rng = options.size, np.random.default_rng([options.seed, index])
    remover = gensat.Remover(n)
    try:
        solution = remover.solution(rng)
        orbits = orbits_of(options.symmetry, n)
        orbits = orbits[rng.permutation(len(orbits))]
        puzzle = solution.copy()
        remover.minimize(puzzle, solution, orbits)
    finally:
        remover.close()
    if not options.minimal:
        _give_back(rng, puzzle, solution, orbits)
    outcome = solving.solve(Grid(n, puzzle), UNIQUENESS)
    if outcome.result is None or outcome.result["solutions_found"] != 1 \
            or outcome.result["solution"] != render(solution):
        raise WrongAnswer(f"the generator made {render(puzzle)}, which does not have exactly one solution")
    return Generated(index, render(puzzle), render(solution), None, None, None, 1, None)


def generate(options: Options, start: int, stop: int) -> list[Generated]:
    """Puzzles ``start`` .. ``stop - 1`` of the request ``options`` (each one from (seed, index))."""
    options.check()
    if not 0 <= start <= stop:
        raise ValueError(f"the range start={start}, stop={stop} must have 0 <= start <= stop")
    if options.size != GRADED_SIZE:
        return [_make_ungraded(options, i) for i in range(start, stop)]
    low, high = options.rating_range()
    return [_make(options, i, low, high) for i in range(start, stop)]

