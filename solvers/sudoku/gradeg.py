"""The grader for every size of grid (4x4, 16x16, and 9x9 beside grade.py's kernels), in plain
Python: the techniques of grade.py that are defined on any box size, in the same order, with
the same ratings and the same order of search within each, so that a 9x9 grid that needs no
other technique gets the same steps here as there (the tests hold the two side by side).

  singles               full house 1.0, hidden single in a box 1.2, in a row or column 1.5,
                        naked single 2.3
  locked candidates     pointing 2.6, claiming 2.8
  subsets and fish      naked pair 3.0, X-wing 3.2, hidden pair 3.4, naked triple 3.6,
                        swordfish 3.8, hidden triple 4.0, naked quad 5.0, jellyfish 5.2,
                        hidden quad 5.4
  wings                 XY-wing 4.2, XYZ-wing 4.4

A box of side s (n = s*s) holds s row segments and s column segments; a digit confined to one
of them points along its line, and a line's digit confined to one box claims it. The patterns
past these (strong links, unique rectangles, ALS wings, BUG, the chains) are grade.py's 9x9
kernels and are not searched here: where the techniques above stall, the grader guesses as
grade.py does (``grade.GUESS``, rated ``grade.guess_rating``), the guesses counted by the kind's
greedy tree (tree.py, kernels.py) proving the position's solution, not by the 9x9 fast solver.
Every placement and elimination is checked against the solution (WrongAnswer otherwise).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator

import numpy as np

from solvers.base import Stopwatch, WrongAnswer
from solvers.bits import lowest_bit
from solvers.sudoku import kernels, tree
from solvers.sudoku.grade import GUESS, SINGLES, Grade, Step, guess_rating
from solvers.sudoku.grid import Grid, layout

FULL_HOUSE, HIDDEN_BOX, HIDDEN_LINE, NAKED = range(4)  # grade.SINGLES's order


@functools.cache
def digits(m: int) -> tuple[int, ...]:
    """The set bits of ``m``, lowest first."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return tuple(out)


def colex(items: int, k: int) -> Iterator[int]:
    """The k-element subsets of the bits of ``items`` as masks, in increasing order (the order
    the 9x9 kernels meet them counting every mask up from 0)."""
    pos = digits(items)
    if k > len(pos):
        return
    x = (1 << k) - 1
    while x < 1 << len(pos):
        yield sum(1 << pos[i] for i in digits(x))
        low = x & -x
        r = x + low
        x = (((r ^ x) >> 2) // low) | r


class Shape:
    """The tables of an n x n grid as lists: units (rows, columns, boxes), each cell's units,
    its peers (sorted), the box side and the mask of every digit."""

    def __init__(self, n: int) -> None:
        lay = layout(n)
        self.n, self.box, self.full, self.cells = n, lay.box, lay.full, n * n
        self.units: list[list[int]] = lay.units.tolist()
        self.cell_units: list[list[int]] = lay.cell_units.tolist()
        self.peers: list[list[int]] = lay.peers.tolist()
        self.peer_sets = [frozenset(p) for p in self.peers]


shape = functools.cache(Shape)


class Board:
    """The position: values (0 blank) and candidate masks as lists, and the solution they are
    checked against."""

    def __init__(self, n: int, values: list[int], solution: list[int]) -> None:
        self.shape = g = shape(n)
        self.values = list(values)
        self.solution = list(solution)
        self.cands = [0] * g.cells
        for cell, v in enumerate(self.values):
            if not v:
                seen = 0
                for p in g.peers[cell]:
                    if self.values[p]:
                        seen |= 1 << (self.values[p] - 1)
                self.cands[cell] = g.full & ~seen

    def apply(self, step: Step) -> None:
        """Apply ``step`` after checking it against the solution."""
        cands = self.cands
        for cell, value in step.placements:
            if self.solution[cell] != value or not cands[cell] >> (value - 1) & 1:
                raise WrongAnswer(f"{step.technique} places {value} at cell {cell}, against the solution")
            self.values[cell] = value
            cands[cell] = 0
            bit = ~(1 << (value - 1))
            for p in self.shape.peers[cell]:
                cands[p] &= bit
        for cell, value in step.eliminations:
            if self.solution[cell] == value:
                raise WrongAnswer(f"{step.technique} removes the solution's {value} from cell {cell}")
            cands[cell] &= ~(1 << (value - 1))


def easiest_single(board: Board) -> tuple[int, int, int] | None:
    """(code, cell, value) of the easiest single in the grader's order, or None."""
    g, values, cands = board.shape, board.values, board.cands
    for unit in g.units:
        open_cells = [c for c in unit if not values[c]]
        if len(open_cells) == 1 and cands[open_cells[0]]:
            return FULL_HOUSE, open_cells[0], lowest_bit(cands[open_cells[0]]) + 1
    for code, units in ((HIDDEN_BOX, g.units[2 * g.n:]), (HIDDEN_LINE, g.units[:2 * g.n])):
        for unit in units:
            once = twice = 0
            for c in unit:
                twice |= once & cands[c]
                once |= cands[c]
            if single := once & ~twice:
                d = lowest_bit(single)
                return code, next(c for c in unit if cands[c] >> d & 1), d + 1
    for cell, m in enumerate(cands):
        if m and not m & (m - 1):
            return NAKED, cell, lowest_bit(m) + 1
    return None


# -- the patterns: each takes the board and its places (per unit and digit, the positions in the
# unit still open to the digit) and returns the first Step in the grader's order, or None


def places(board: Board) -> list[list[int]]:
    g, cands = board.shape, board.cands
    out = [[0] * g.n for _ in g.units]
    for u, unit in enumerate(g.units):
        row = out[u]
        for k, c in enumerate(unit):
            for d in digits(cands[c]):
                row[d] |= 1 << k
    return out


Finder = Callable[[Board, list[list[int]]], "Step | None"]


def _elims(cells: Iterator[int] | list[int], mask: int, cands: list[int]) -> list[tuple[int, int]]:
    return [(c, d + 1) for c in cells for d in digits(cands[c] & mask)]


def locked(pointing: bool) -> Finder:
    name, rating = ("pointing", 2.6) if pointing else ("claiming", 2.8)

    def find(board: Board, pl: list[list[int]]) -> Step | None:
        g, cands = board.shape, board.cands
        n, s = g.n, g.box
        segment, column = (1 << s) - 1, sum(1 << (s * i) for i in range(s))
        for u in range(2 * n, 3 * n) if pointing else range(2 * n):
            for d in range(n):
                m = pl[u][d]
                if m & (m - 1) == 0:
                    continue
                for k in range(s):
                    target = -1
                    if pointing:
                        b = u - 2 * n
                        if m & ~(segment << s * k) == 0:
                            target = s * (b // s) + k
                        elif m & ~(column << k) == 0:
                            target = n + s * (b % s) + k
                    elif m & ~(segment << s * k) == 0:
                        target = 2 * n + (s * (u // s) + k if u < n else s * k + (u - n) // s)
                    if target < 0:
                        continue
                    out = _elims((c for c in g.units[target] if g.cell_units[c][u // n] != u), 1 << d, cands)
                    if out:
                        return Step(name, rating, [g.units[u][i] for i in digits(m)], eliminations=out)
        return None
    return find


def naked_subset(k: int, name: str, rating: float) -> Finder:
    def find(board: Board, pl: list[list[int]]) -> Step | None:
        g, cands = board.shape, board.cands
        for unit in g.units:
            items = sum(1 << j for j, c in enumerate(unit) if 2 <= cands[c].bit_count() <= k)
            for sel in colex(items, k):
                mask = 0
                for j in digits(sel):
                    mask |= cands[unit[j]]
                if mask.bit_count() != k:
                    continue
                out = _elims((c for j, c in enumerate(unit) if not sel >> j & 1), mask, cands)
                if out:
                    return Step(name, rating, [unit[j] for j in digits(sel)], eliminations=out)
        return None
    return find


def hidden_subset(k: int, name: str, rating: float) -> Finder:
    def find(board: Board, pl: list[list[int]]) -> Step | None:
        g, cands = board.shape, board.cands
        for u, unit in enumerate(g.units):
            items = sum(1 << d for d, m in enumerate(pl[u]) if 2 <= m.bit_count() <= k)
            for sel in colex(items, k):
                where = 0
                for d in digits(sel):
                    where |= pl[u][d]
                if where.bit_count() != k:
                    continue
                cells = [unit[j] for j in digits(where)]
                out = _elims(cells, g.full & ~sel, cands)
                if out:
                    return Step(name, rating, cells, eliminations=out)
        return None
    return find


def fish(k: int, name: str, rating: float) -> Finder:
    def find(board: Board, pl: list[list[int]]) -> Step | None:
        g, cands = board.shape, board.cands
        n = g.n
        for d in range(n):
            for base in (0, n):
                cover = n - base  # cell i of column j is row i's cell j: one loop serves both
                items = sum(1 << i for i in range(n) if 2 <= pl[base + i][d].bit_count() <= k)
                for sel in colex(items, k):
                    mask = 0
                    for i in digits(sel):
                        mask |= pl[base + i][d]
                    if mask.bit_count() != k:
                        continue
                    out = _elims((g.units[cover + j][i] for j in digits(mask) for i in range(n)
                                  if not sel >> i & 1), 1 << d, cands)
                    if out:
                        cells = [g.units[base + i][j] for i in digits(sel) for j in digits(pl[base + i][d])]
                        return Step(name, rating, cells, eliminations=out)
        return None
    return find


def wing(xyz: bool) -> Finder:
    name, rating = ("XYZ-wing", 4.4) if xyz else ("XY-wing", 4.2)

    def find(board: Board, pl: list[list[int]]) -> Step | None:
        g, cands = board.shape, board.cands
        sees = g.peer_sets
        for pivot, pm in enumerate(cands):
            if pm.bit_count() != (3 if xyz else 2):
                continue
            wings = [q for q in g.peers[pivot] if cands[q].bit_count() == 2
                     and (cands[q] & ~pm == 0 if xyz else (cands[q] & pm).bit_count() == 1)]
            for i, a in enumerate(wings):
                for b in wings[i + 1:]:
                    if xyz:
                        z = cands[a] & cands[b]
                        ok = cands[a] != cands[b] and z.bit_count() == 1
                    else:
                        z = cands[a] & ~pm
                        ok = cands[a] & cands[b] & pm == 0 and cands[b] & ~pm == z
                    if not ok:
                        continue
                    seen = (sees[a] & sees[b] & sees[pivot] if xyz else sees[a] & sees[b]) - {pivot}
                    out = _elims(sorted(seen), z, cands)
                    if out:
                        return Step(name, rating, [pivot, a, b], eliminations=out)
        return None
    return find


# (the lowest rating a technique's step can have, its finder), in order of ease: grade.TECHNIQUES's
TECHNIQUES: list[tuple[float, Finder]] = [
    (2.6, locked(True)), (2.8, locked(False)),
    (3.0, naked_subset(2, "naked pair", 3.0)), (3.2, fish(2, "X-wing", 3.2)),
    (3.4, hidden_subset(2, "hidden pair", 3.4)), (3.6, naked_subset(3, "naked triple", 3.6)),
    (3.8, fish(3, "swordfish", 3.8)), (4.0, hidden_subset(3, "hidden triple", 4.0)),
    (4.2, wing(False)), (4.4, wing(True)),
    (5.0, naked_subset(4, "naked quad", 5.0)), (5.2, fish(4, "jellyfish", 5.2)),
    (5.4, hidden_subset(4, "hidden quad", 5.4)),
]


def guess(board: Board) -> Step:
    """The fallback: the solution's value in an open cell with the fewest candidates, rated by
    the guesses the greedy tree needs to prove the position's solution from its placed values."""
    n = board.shape.n
    values = np.array(board.values, np.uint8)
    cands = kernels.initial_cands(values, board.shape.full)
    stats = tree.search(Grid(n, values), cands, 0, {"strategy": "greedy", "max_solutions": 2}, None,
                        Stopwatch()).stats
    guesses, depth = int(stats["guesses"]), int(stats["max_depth"])
    cell = min((c for c, m in enumerate(board.cands) if m), key=lambda c: board.cands[c].bit_count())
    return Step(GUESS, guess_rating(guesses), [cell], placements=[(cell, board.solution[cell])],
                trial=(guesses, depth))


def next_step(board: Board, ceiling: float = math.inf) -> Step | None:
    """The step the grader takes next (not yet applied): the easiest single, else the first
    technique rated below ``ceiling`` that makes progress, else the guess; None if solved."""
    single = easiest_single(board)
    if single is not None:
        code, cell, value = single
        return Step(SINGLES[code][0], SINGLES[code][1], [cell], placements=[(cell, value)])
    if all(board.values):
        return None
    pl = places(board)
    found = (s for least, find in TECHNIQUES if least < ceiling and (s := find(board, pl)) is not None)
    return next(found, None) or guess(board)


def grade_board(board: Board, ceiling: float = math.inf) -> Grade | None:
    """The grading from ``board``'s position (grade.grade_board's, on any size): None as soon as a
    step rated ``ceiling`` or more is needed."""
    moves: list[Step] = []
    while (step := next_step(board, ceiling)) is not None:
        if step.rating >= ceiling:
            return None
        board.apply(step)
        moves.append(step)
    hardest = max(moves, key=lambda s: s.rating, default=Step(SINGLES[0][0], 1.0, []))
    return Grade(hardest.rating, hardest.technique, len(moves), [s.as_json() for s in moves])


def grade(n: int, givens: list[int], solution: list[int]) -> Grade:
    """Grade an n x n puzzle (``givens``, 0 blank) whose one solution is ``solution``."""
    graded = grade_board(Board(n, givens, solution))
    assert graded is not None  # without a ceiling the guess always makes progress
    return graded
