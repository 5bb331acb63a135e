"""A 9x9 Sudoku grader that solves as a person does: one step at a time, always the first
technique in Sudoku Explainer's (SE) order that makes progress, rated on SE's scale (with the
ratings of Sukaku Explainer, SE's maintained fork, where it adds techniques).

The techniques, in SE's order, with their ratings (``TECHNIQUES``):

  full house 1.0, hidden single in a box 1.2, in a row or column 1.5, naked single 2.3,
  pointing 2.6, claiming 2.8, naked pair 3.0, X-wing 3.2, hidden pair 3.4, naked triple 3.6,
  swordfish 3.8, hidden triple 4.0, two strong links 4.0-4.2 (links.py), XY-wing 4.2,
  XYZ-wing 4.4, unique rectangles and loops of types 1-4 4.5-5.6 (unique.py), naked quad 5.0,
  jellyfish 5.2, hidden quad 5.4, three strong links 5.4-5.6, WXYZ-wing 5.5-5.6, BUG of types
  1-4 5.6-6.2 (unique.py), VWXYZ-wing 6.2-6.4 (wings.py), aligned pair exclusion 6.2
  (alignedk.py); the chains: X- and Y-cycles 6.5, forcing X-chains 6.6, forcing chains and
  XY-cycles 7.0 (chains.py), aligned triple exclusion 7.5, Nishio forcing chains 7.5, cell and
  region forcing chains 8.0, dynamic forcing chains 8.5 (forcing.py), each chain rated up by
  SE's length rule (``chains.length_extra``).
  The singles and the basic patterns are gradek.py's kernels, the forcing chains' propagation
  forcingk.py's.

When they all stall (where SE goes on to its nested forcing chains, 9.0 and up) the grader
guesses (``GUESS``): it places the solution's value in an open cell with the fewest candidates
and records how much trial and error the position needed, the guesses of the bit-parallel
solver (singles, locked candidates and triads, fast.py) proving the position's solution from
its placed values (the step reports them with the depth of that search). Its rating is 9.5
(SE's nested forcing chains) plus 0.5 per doubling of (1 + guesses), at most 11.9
(``guess_rating``).

The puzzle's ``rating`` is the highest rating of its steps; the bands (``BANDS``) split the
scale: easy < 2.0 (full houses and hidden singles), medium < 3.0 (naked singles and locked
candidates), hard < 4.5 (pairs, triples, X-wing, swordfish, two strong links, XY- and
XYZ-wing), expert < 7.5 (unique rectangles and loops, quads, jellyfish, three strong links,
ALS wings, BUG, aligned pair exclusion, cycles, forcing chains), master < 9.0 (aligned triple
exclusion, Nishio, cell, region and dynamic forcing chains), extreme from 9.0 (long dynamic
forcing chains, trial and error).

Placing a value removes it from the candidates of its 20 peers without listing those removals;
a step's ``eliminations`` are the technique's own. Every placement and elimination is checked
against the solution found by the fast solver, which must be unique (``grade`` raises
ValueError otherwise, WrongAnswer when a technique contradicts the solution).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from solvers.base import WrongAnswer
from solvers.sudoku import alignedk, chains, fast, forcing, gradek, links, unique, wings
from solvers.sudoku.grid import parse_text
from solvers.sudoku.masks import DIGITS, POP

UNITS: list[list[int]] = gradek.UNITS.tolist()

N = 9  # the side of the grids this module grades (gradeg.py grades every size)
GUESS = "guess"
SINGLES = (("full house", 1.0), ("hidden single (box)", 1.2), ("hidden single (line)", 1.5),
           ("naked single", 2.3))  # by gradek's codes
BANDS = {"easy": (1.0, 2.0), "medium": (2.0, 3.0), "hard": (3.0, 4.5), "expert": (4.5, 7.5),
         "master": (7.5, 9.0), "extreme": (9.0, 12.0)}  # [low, high) of the rating
GUESS_BASE, GUESS_MAX = 9.5, 11.9


class Step(NamedTuple):
    """One step: the technique and its rating, the cells that make the pattern, the values
    placed and the candidates removed (cells 0..80 as r*9 + c, values 1..9). A tuple: a
    grading makes one per single, and a tuple is the cheapest record to make."""
    technique: str
    rating: float
    cells: list[int]
    placements: Sequence[tuple[int, int]] = ()
    eliminations: Sequence[tuple[int, int]] = ()
    trial: tuple[int, int] | None = None  # a guess's (guesses, depth) of trial and error
    links: Sequence[tuple[int, int, int]] = ()  # a chain's path (chains.Chain.links)

    def as_json(self) -> dict[str, Any]:
        """The step as plain JSON data (tuples as lists); a guess adds ``guesses`` and ``depth``,
        a chain that is one path its ``links``."""
        out = {"technique": self.technique, "rating": self.rating, "cells": list(self.cells),
               "placements": [list(p) for p in self.placements],
               "eliminations": [list(e) for e in self.eliminations]}
        if self.trial is not None:
            out["guesses"], out["depth"] = self.trial
        if self.links:
            out["links"] = [list(n) for n in self.links]
        return out


@dataclass(frozen=True)
class Grade:
    """The grading of a puzzle: its rating (the hardest step's), that step's technique, the
    number of steps and the steps themselves as JSON-able dicts (``Step.as_json``)."""
    rating: float
    hardest: str
    steps: int
    moves: list[dict[str, Any]]

    @property
    def band(self) -> str:
        """The band (``BANDS``) of the rating."""
        return band_of(self.rating)


def band_of(rating: float) -> str:
    """The name of the band holding ``rating``."""
    return next((name for name, (low, high) in BANDS.items() if low <= rating < high), "extreme")


class Board:
    """The grader's position: values (0 blank) and candidate masks, checked against the solution."""

    def __init__(self, givens: np.ndarray, solution: np.ndarray) -> None:
        self.values = givens.astype(np.int64)
        self.cands = gradek.initial_cands(self.values)
        self.solution = solution.astype(np.int64).tolist()

    def apply(self, step: Step) -> None:
        """Apply ``step`` after checking it against the solution."""
        cands = self.cands
        for cell, value in step.placements:
            if self.solution[cell] != value or not cands[cell] >> (value - 1) & 1:
                raise WrongAnswer(f"{step.technique} places {value} at cell {cell}, against the solution")
            gradek.place(self.values, cands, cell, value)
        for cell, value in step.eliminations:
            if self.solution[cell] == value:
                raise WrongAnswer(f"{step.technique} removes the solution's {value} from cell {cell}")
            cands[cell] &= ~(1 << (value - 1))


def guess_rating(guesses: int) -> float:
    """The fallback's rating for a position whose proof took ``guesses`` guesses (module doc)."""
    return round(min(GUESS_BASE + 0.5 * math.log2(1 + guesses), GUESS_MAX), 1)


# -- techniques: each takes the Position and returns a Step or None


@dataclass
class Position:
    """The candidates (``cands``, int64[81]) as an array for the kernels and as a list for the
    Python finders, the places of each digit in each unit (``places_array``, int64[27, 9],
    gradek.places); and the kernels' outputs, a pattern's cells and its eliminations (sized by
    gradek's bounds)."""
    cands_array: np.ndarray
    places_array: np.ndarray
    cands: list[int]
    cells_out: np.ndarray
    elims_out: np.ndarray

    @classmethod
    def of(cls, cands: np.ndarray) -> Position:
        return cls(cands, gradek.places(cands), cands.tolist(), np.empty(16, np.int64),
                   np.empty((81, 2), np.int64))


Finder = Callable[[Position], "Step | None"]


def _elims(cells: Iterator[int] | list[int], mask: int, cands: list[int]) -> list[tuple[int, int]]:
    """(cell, value) for each digit of ``mask`` still possible in each of ``cells``."""
    return [(c, d + 1) for c in cells for d in DIGITS[cands[c] & mask]]


def _cells(u: int, mask: int) -> list[int]:
    """The cells of unit ``u`` at the positions (0..8) set in ``mask``."""
    return [UNITS[u][i] for i in DIGITS[mask]]


def _kernel(name: str, rating: float, call: Callable[[Position], tuple[int, int]]) -> Finder:
    """A finder from a gradek kernel that writes the position's outputs and returns their counts."""
    def find(pos: Position) -> Step | None:
        n_cells, n_elims = call(pos)
        if not n_elims:
            return None
        return Step(name, rating, pos.cells_out[:n_cells].tolist(),
                    eliminations=[(c, v) for c, v in pos.elims_out[:n_elims].tolist()])
    return find


def locked(kind: int, name: str, rating: float) -> Finder:
    """Pointing or claiming (gradek.locked)."""
    return _kernel(name, rating, lambda p: gradek.locked(kind, p.cands_array, p.places_array,
                                                         p.cells_out, p.elims_out))


def naked_subset(k: int, name: str, rating: float) -> Finder:
    """k cells of a unit holding only k digits between them: the rest of the unit loses them."""
    return _kernel(name, rating, lambda p: gradek.naked_subset(k, p.cands_array, p.cells_out, p.elims_out))


def hidden_subset(k: int, name: str, rating: float) -> Finder:
    """k digits of a unit confined to k cells: those cells lose every other digit."""
    return _kernel(name, rating, lambda p: gradek.hidden_subset(k, p.cands_array, p.places_array,
                                                                p.cells_out, p.elims_out))


def fish(k: int, name: str, rating: float) -> Finder:
    """A digit whose places in k rows (columns) lie in k columns (rows): those columns (rows)
    lose it elsewhere."""
    return _kernel(name, rating, lambda p: gradek.fish(k, p.cands_array, p.places_array,
                                                       p.cells_out, p.elims_out))


def wing(xyz: bool, name: str, rating: float) -> Finder:
    """XY-wing or XYZ-wing (gradek.wing)."""
    return _kernel(name, rating, lambda p: gradek.wing(xyz, p.cands_array, p.cells_out, p.elims_out))


def aligned(degree: int, name: str, rating: float) -> Finder:
    """Aligned pair or triple exclusion (alignedk.aligned)."""
    return _kernel(name, rating, lambda p: alignedk.aligned(degree, p.cands_array, p.cells_out, p.elims_out))


def pattern(find: Callable[[list[int]], wings.Found | None]) -> Finder:
    """A finder from a pattern of wings.py."""
    def found(pos: Position) -> Step | None:
        got = find(pos.cands)
        return None if got is None else Step(got[0], got[1], got[2], eliminations=got[3])
    return found


def chain_family(find: Callable[[list[int]], chains.Chain | None]) -> Finder:
    """A finder from a family of chains.py (the family's best chain by SE's order)."""
    def found(pos: Position) -> Step | None:
        chain = find(pos.cands)
        if chain is None:
            return None
        return Step(chain.technique, chain.rating, chain.cells, eliminations=chain.eliminations,
                    links=chain.links)
    return found


# (the lowest rating a technique's step can have, its finder), in order of ease
TECHNIQUES: list[tuple[float, Finder]] = [
    (2.6, locked(gradek.POINTING, "pointing", 2.6)), (2.8, locked(gradek.CLAIMING, "claiming", 2.8)),
    (3.0, naked_subset(2, "naked pair", 3.0)), (3.2, fish(2, "X-wing", 3.2)),
    (3.4, hidden_subset(2, "hidden pair", 3.4)), (3.6, naked_subset(3, "naked triple", 3.6)),
    (3.8, fish(3, "swordfish", 3.8)), (4.0, hidden_subset(3, "hidden triple", 4.0)),
    (4.0, pattern(partial(links.strong_links, 2))),
    (4.2, wing(False, "XY-wing", 4.2)), (4.4, wing(True, "XYZ-wing", 4.4)),
    (4.5, pattern(unique.unique_loop)),
    (5.0, naked_subset(4, "naked quad", 5.0)), (5.2, fish(4, "jellyfish", 5.2)),
    (5.4, hidden_subset(4, "hidden quad", 5.4)),
    (5.4, pattern(partial(links.strong_links, 3))), (5.5, pattern(partial(wings.als_wing, 3))),
    (5.6, pattern(unique.bug)), (6.2, pattern(partial(wings.als_wing, 4))),
    (6.2, aligned(2, "aligned pair exclusion", 6.2)),
    (6.5, chain_family(chains.static_chains)), (7.5, aligned(3, "aligned triple exclusion", 7.5)),
    (7.5, chain_family(partial(forcing.find, forcing.NISHIO))),
    (8.0, chain_family(partial(forcing.find, forcing.MULTIPLE))),
    (8.5, chain_family(partial(forcing.find, forcing.DYNAMIC))),
]


def solve_unique(givens: np.ndarray) -> np.ndarray:
    """The solution of ``givens`` (uint8[81]); ValueError unless it has exactly one."""
    solution = np.zeros((1, 81), np.uint8)
    found = fast.solve_one(givens.reshape(1, 81), 2, True, solution, np.zeros(fast.COUNTERS, np.int64))
    if found != 1:
        has = "none" if not found else "2+"
        raise ValueError(f"a graded puzzle needs exactly one solution; this one has {has}")
    out: np.ndarray = solution[0]
    return out


def _guess(board: Board) -> Step:
    """The fallback: the solution's value in an open cell with the fewest candidates, rated by
    the guesses the fast solver needs to prove the position's solution from its placed values;
    those guesses and the depth of its search tree are the step's ``trial``."""
    counters = np.zeros(fast.COUNTERS, np.int64)
    out = np.zeros((1, 81), np.uint8)
    fast.solve_one(board.values.astype(np.uint8).reshape(1, 81), 2, True, out, counters)
    cands = board.cands
    cell = min((c for c in range(81) if cands[c]), key=lambda c: POP[int(cands[c])])
    guesses, depth = int(counters[fast.GUESSES]), int(counters[fast.MAX_DEPTH])
    return Step(GUESS, guess_rating(guesses), [cell], placements=[(cell, board.solution[cell])],
                trial=(guesses, depth))


def next_step(board: Board) -> Step:
    """The step the grader takes next from ``board``'s position (not yet applied): the easiest
    single, else the first technique in order of ease that makes progress, else the guess."""
    code, cell, value = gradek.easiest_single(board.values, board.cands)
    if code != gradek.NONE:
        return Step(SINGLES[code][0], SINGLES[code][1], [cell], placements=[(cell, value)])
    pos = Position.of(board.cands)
    return next((s for _, find in TECHNIQUES if (s := find(pos)) is not None), None) or _guess(board)


def _singles(board: Board, moves: list[Step], buffer: np.ndarray, ceiling: float) -> bool:
    """The kernel's singles placed on the board, checked against the solution, and listed as
    steps; False when one is rated at or above ``ceiling`` (the board is then past it)."""
    n = gradek.singles(board.values, board.cands, buffer)
    placed = buffer[:n].tolist()
    solution = board.solution
    for _, cell, value in placed:
        if solution[cell] != value:
            raise WrongAnswer(f"a single places {value} at cell {cell}, against the solution")
    for code, cell, value in placed:
        name, rating = SINGLES[code]
        if rating >= ceiling:
            return False
        moves.append(Step(name, rating, [cell], placements=[(cell, value)]))
    return True


def grade(puzzle: str | np.ndarray) -> Grade:
    """Grade a 9x9 puzzle (81 symbols, or uint8[81] givens) with exactly one solution."""
    graded = grade_below(puzzle, math.inf)
    assert graded is not None  # without a ceiling the guess always makes progress
    return graded


def grade_below(puzzle: str | np.ndarray, ceiling: float) -> Grade | None:
    """``grade``, or None as soon as a step rated ``ceiling`` or more is needed (techniques that
    cannot rate below it are not tried): the generator's early rejection."""
    givens = parse_text(puzzle).givens if isinstance(puzzle, str) else np.asarray(puzzle, np.uint8)
    if givens.shape != (81,) or givens.max(initial=0) > 9:
        raise ValueError("the grader takes 9x9 puzzles: 81 values 0-9")
    return grade_board(Board(givens, solve_unique(givens)), ceiling)


def grade_board(board: Board, ceiling: float = math.inf) -> Grade | None:
    """``grade_below`` from ``board``'s position (a grid part-way through, position.py): the
    steps still needed from there, rated by the hardest of them."""
    moves: list[Step] = []
    buffer = np.empty((81, 3), np.int64)
    finders = [find for least, find in TECHNIQUES if least < ceiling]
    while _singles(board, moves, buffer, ceiling) and not board.values.all():
        pos = Position.of(board.cands)
        step = next((s for find in finders if (s := find(pos)) is not None), None)
        if step is None and ceiling <= GUESS_BASE:
            return None
        step = step or _guess(board)
        if step.rating >= ceiling:
            return None
        board.apply(step)
        moves.append(step)
    if not board.values.all():
        return None
    hardest = max(moves, key=lambda s: s.rating, default=Step(SINGLES[0][0], 1.0, []))
    return Grade(hardest.rating, hardest.technique, len(moves), [s.as_json() for s in moves])
