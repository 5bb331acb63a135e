"""The puzzles that calibrate the kinds' predictions (bench/calibrate.py) and check them
(bench/cost.py): the data sets of tests/data and generated puzzles, per kind and mode.

Each data set is cut in two halves, alternate lines: ``CALIBRATE`` fits the table, ``CHECK``
measures how well it predicts, so that the check runs on puzzles the fit never saw. Generated
puzzles take different seeds in each half.

  case   (group, kind name, wire puzzle, options): ``group`` names the kind and mode for the
         tables, e.g. ``sudoku 9x9 unique``.
"""

from __future__ import annotations

import csv
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from solvers import get
from solvers.base import Estimate
from solvers.sliding.board import STEP, blank_step, random_board
from solvers.spokes.generate import generate

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CALIBRATE, CHECK = 0, 1


class Case(NamedTuple):
    group: str
    kind: str
    puzzle: Any
    options: dict[str, Any]


class Measured(NamedTuple):
    case: Case
    predicted: Estimate
    predict_seconds: float   # CPU seconds of predict itself
    seconds: float           # CPU seconds of solve


def warm(kinds: list[str]) -> None:
    """Compile the kernels before timing: each kind's examples once."""
    for name in kinds:
        kind = get(name)
        for example in kind.examples:
            puzzle, options = kind.prepare(example.puzzle, dict(example.options))
            kind.solve(puzzle, options)


def solve_seconds(case: Case) -> float:
    """CPU seconds of this process (the SAT solver and the kernels run in it) that ``solve`` takes
    on the case; the answer is verified (outside the timing)."""
    kind = get(case.kind)
    puzzle, options = kind.prepare(case.puzzle, case.options)
    start = time.process_time()
    outcome = kind.solve(puzzle, options)
    seconds = time.process_time() - start
    kind.verify(puzzle, options, outcome)
    return seconds


def measure(case: Case) -> Measured:
    """The case predicted and solved, each timed in CPU seconds."""
    kind = get(case.kind)
    puzzle, options = kind.prepare(case.puzzle, case.options)
    start = time.process_time()
    predicted = kind.predict(puzzle, options)
    predict_seconds = time.process_time() - start
    return Measured(case, predicted, predict_seconds, solve_seconds(case))


def _lines(path: Path, half: int, limit: int) -> list[str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    return lines[half::2][:limit]


def sudoku_lines(name: str, half: int, limit: int) -> list[str]:
    lines = _lines(DATA / "sudoku" / name, half, limit)
    if name.startswith("sudoku_exchange"):
        return [line.split()[1] for line in lines]
    return [line.split(":")[0] for line in lines]


def _opened(puzzle: str, rng: random.Random, blanks: int) -> str:
    """The puzzle with ``blanks`` more of its givens taken out: many solutions to count."""
    cells = list(puzzle)
    givens = [i for i, ch in enumerate(cells) if ch not in ".0"]
    for i in rng.sample(givens, min(blanks, len(givens))):
        cells[i] = "."
    return "".join(cells)


NINE = ("norvig_top95.txt", "norvig_hardest.txt", "tdoku_puzzles2_17_clue_first10000.txt",
        "tdoku_puzzles3_magictour_top1465.txt", "tdoku_puzzles6_forum_hardest_1106.txt",
        "tdoku_puzzles1_unbiased_first1000.txt", "norvig_easy50.txt",
        "sudoku_exchange_diabolical_first5000.txt")


def sudoku(half: int, scale: int) -> Iterator[Case]:
    nine = [p for name in NINE for p in sudoku_lines(name, half, 12 * scale)]
    for puzzle in nine:
        for limit, mode in ((1, "first"), (2, "unique")):
            yield Case(f"sudoku 9x9 {mode}", "sudoku", puzzle, {"max_solutions": limit})
    for puzzle in nine[::3]:
        yield Case("sudoku 9x9 greedy unique", "sudoku", puzzle, {"strategy": "greedy"})
        yield Case("sudoku 9x9 sat unique", "sudoku", puzzle, {"strategy": "sat"})
    for puzzle in sudoku_lines("norvig_easy50.txt", half, 4 * scale):
        yield Case("sudoku 9x9 backtrack unique", "sudoku", puzzle, {"strategy": "backtrack"})
    rng = random.Random(100 + half)
    counted = _lines(DATA / "sudoku" / "tdoku_test_puzzles_with_solution_counts.txt", 0, 99) + _lines(
        DATA / "sudoku" / "tdoku_test_puzzles_with_solution_counts.txt", 1, 99)
    fields = [line.split(":") for line in counted]
    solved = [f[2] for f in fields if len(f) > 2 and len(f[2]) == 81]
    for i in range(6 * scale):
        base = _opened(solved[i % len(solved)], rng, rng.randrange(50, 64))
        limit = rng.choice((10, 1000, 100_000, 1_000_000))
        yield Case("sudoku 9x9 count", "sudoku", base, {"max_solutions": limit})
        yield Case("sudoku 9x9 greedy count", "sudoku", base, {"strategy": "greedy", "max_solutions": limit})
    for puzzle in sudoku_lines("gecode_16x16_janko.txt", half, 6 * scale):
        yield Case("sudoku 16x16 unique", "sudoku", puzzle, {})
        yield Case("sudoku 16x16 greedy unique", "sudoku", puzzle, {"strategy": "greedy"})
    for puzzle in sudoku_lines("gecode_25x25.txt", half, scale):
        yield Case("sudoku 25x25 unique", "sudoku", puzzle, {})


def nqueens(half: int, scale: int) -> Iterator[Case]:
    top = 13 + min(scale, 3)
    for n in range(4 + half, top + 2):
        for strategy in ("tree", "constellations"):
            if strategy == "constellations" or n <= top:
                yield Case(f"nqueens count {strategy}", "nqueens", n, {"mode": "count", "strategy": strategy})
    rng = random.Random(200 + half)
    for _ in range(10 * scale):
        n, probes = rng.randrange(6, 60), rng.choice((1_000, 10_000, 100_000))
        yield Case("nqueens estimate", "nqueens", n, {"mode": "estimate", "probes": probes, "seed": 1})
    for _ in range(10 * scale):
        yield Case("nqueens solve", "nqueens", rng.choice((8, 100, 1_000, 10_000, 100_000, 1_000_000)), {})


def _walked(k: int, steps: int, rng: random.Random) -> str:
    """A board ``steps`` random moves of the blank away from the default goal: a known, small
    distance."""
    board = (*range(1, k * k), 0)
    for _ in range(steps):
        board = rng.choice([b for b in (blank_step(k, board, m) for m in STEP) if b is not None])
    return " ".join(map(str, board))


def sliding(half: int, scale: int) -> Iterator[Case]:
    eight = [" ".join(line.split()[:9])
             for line in _lines(DATA / "sliding" / "eight_puzzle_samples.txt", half, 75)]
    for board in eight:  # sorted by distance: all of them, 0 to 31 moves
        yield Case("sliding 3x3 auto", "sliding", board, {})
        yield Case("sliding 3x3 idastar manhattan", "sliding", board, {"algorithm": "idastar",
                                                                       "heuristic": "manhattan"})
    for board in eight[::8]:
        yield Case("sliding 3x3 astar", "sliding", board, {"algorithm": "astar"})
    korf = [" ".join(line.split()[:16])
            for line in _lines(DATA / "sliding" / "korf100_blank_last.txt", half, 50)]
    for board in korf[:12 * scale]:
        yield Case("sliding 4x4 auto", "sliding", board, {})
    rng = random.Random(300 + half)
    for _ in range(8 * scale):
        yield Case("sliding 4x4 auto", "sliding", _walked(4, rng.randrange(4, 60), rng), {})
    for k in (5, 6, 7, 8):
        for _ in range(3 * scale):
            board = " ".join(map(str, random_board(k, rng)))
            yield Case(f"sliding {k}x{k} auto", "sliding", board, {})
    walks = random.Random(400 + half)  # apart, so the boards above stay as they were
    for board in korf[:12 * scale]:  # the 7-8 database where built, else the 6-6-3 (with a note)
        yield Case("sliding 4x4 idastar pdb78", "sliding", board,
                   {"algorithm": "idastar", "heuristic": "pdb78"})
    # Korf's boards take minutes without a database, and hours in Python: shorter walks instead,
    # many of them, since a bound tells these searches' time less well than a database's.
    for _ in range(20 * scale):
        board = _walked(4, walks.randrange(20, 1000), walks)
        yield Case("sliding 4x4 idastar linear_conflict", "sliding", board,
                   {"algorithm": "idastar", "heuristic": "linear_conflict"})
    for _ in range(16 * scale):
        board = _walked(4, walks.randrange(4, 120), walks)
        yield Case("sliding 4x4 astar", "sliding", board, {"algorithm": "astar"})


def spokes(half: int, scale: int) -> Iterator[Case]:
    with open(DATA / "spokes" / "xsheep_generated.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))[half::2]
    for row in rows[::max(1, len(rows) // (20 * scale))]:
        yield Case("spokes x-sheep auto", "spokes", row["game_id"], {})
        yield Case("spokes x-sheep search", "spokes", row["game_id"], {"strategy": "search"})
        yield Case("spokes x-sheep pruning", "spokes", row["game_id"], {"strategy": "pruning"})
    for size in (10, 15, 20, 25, 30):
        for seed in range(scale):
            grid = generate(size, size, seed=1000 * half + seed).text()
            yield Case("spokes generated auto", "spokes", grid, {})
            yield Case("spokes generated sat", "spokes", grid, {"strategy": "sat"})


KINDS: dict[str, Callable[[int, int], Iterator[Case]]] = {
    "nqueens": nqueens, "sudoku": sudoku, "sliding": sliding, "spokes": spokes}


def cases(half: int, scale: int, kinds: list[str] | None = None) -> list[Case]:
    chosen = [make for name, make in KINDS.items() if kinds is None or name in kinds]
    return [case for make in chosen for case in make(half, scale)]
