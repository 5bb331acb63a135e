"""Sudoku in bulk: ``prepare_batch`` reads a chunk of wire puzzles, the plain 9x9 strings into one
array whose givens one kernel call checks; ``solve_batch`` solves the 9x9 grids that ``fast``
answers (strategy ``auto`` or ``fast``) and verifies each solution in one kernel call. Every
other puzzle goes one by one through the kind's own calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    Kind,
    Options,
    Outcome,
    Outcomes,
    Prepared,
    PuzzleError,
    Stopwatch,
    WrongAnswer,
    prepare_each,
    solve_each,
)
from solvers.sudoku import answers, checks
from solvers.sudoku import fast as fastk
from solvers.sudoku.grid import SYMBOL_CODES, Grid, layout, render, where
from solvers.sudoku.outcome import fast_stats, result
from solvers.sudoku.solve import FAST_N


def prepare_batch(kind: Kind, puzzles: Sequence[Any], options: Options) -> Sequence[Grid | PuzzleError]:
    """What ``kind.prepare_with`` makes of each wire puzzle: its Grid, or the PuzzleError it raises.

    The plain 9x9 strings (``read_9x9``) are read into one array and their givens checked by one
    kernel call; the Grid of each one that passes holds a row of that array, read-only (as
    ``parse`` makes a string's givens, a view of its bytes). The usual chunk, every puzzle such a
    string and none bad, is that array itself (``Grids``). Every other puzzle, every one found bad,
    and all of them when the options do not suit a 9x9 grid go through ``prepare_with`` itself,
    so that each error is its own.
    """
    try:
        kind.validate(Grid(FAST_N, np.zeros(FAST_N * FAST_N, np.uint8)), options)  # the options, for 9x9
    except PuzzleError:
        return prepare_each(kind, puzzles, options)
    rows, givens = read_9x9(puzzles)
    givens.flags.writeable = False
    bad = checks.conflicting_rows(givens, layout(FAST_N).cell_units)
    if len(rows) == len(puzzles) and not bad.any():  # the usual chunk
        return Grids(givens)
    out: list[Grid | PuzzleError | None] = [None] * len(puzzles)
    for i, row, conflict in zip(rows, givens, bad.tolist(), strict=True):
        out[i] = None if conflict else Grid(FAST_N, row)
    for i, grid in enumerate(out):
        if grid is None:
            out[i] = prepare_each(kind, [puzzles[i]], options)[0]
    return out  # type: ignore[return-value]  # every slot is filled above


class Grids(Prepared):
    """9x9 grids as the rows of one read-only givens array (uint8[B, 81]): a Grid is made only when
    one is indexed, and ``solve_batch`` takes the array as it is (a Grid per puzzle costs about a
    quarter of the search of an easy one)."""

    def __init__(self, givens: np.ndarray):
        self.givens = givens

    def __len__(self) -> int:
        return len(self.givens)

    def __getitem__(self, i: Any) -> Any:  # an int gives a Grid, a slice Grids
        if isinstance(i, slice):
            return Grids(self.givens[i])
        return Grid(FAST_N, self.givens[i])


def solve_batch(kind: Kind, grids: Sequence[Grid], options: Options) -> Outcomes:
    """One verified outcome per prepared puzzle (``prepare_batch``, ``kind.prepare_with``).

    With strategy ``auto`` or ``fast`` the givens of the 9x9 grids are one array (``Grids``'s own,
    or the grids' stacked), and one call of ``fast.solve_batch`` solves them and verifies each solution with
    ``verify``'s own check; the outcomes stay in its arrays (``FastOutcomes``). ``elapsed_ms`` is
    the chunk's time shared equally. Any other grid or strategy is solved and verified one by
    one. The kernel also checks the givens: that it finds a prepared grid's contradictory, which
    ``validate`` let pass, is a bug of one of the two, raised as WrongAnswer like a solution that
    fails the check (never the user's fault: a grid with givens that contradict each other is not
    prepared).
    """
    if options["strategy"] not in ("auto", "fast"):
        return solve_each(kind, grids, options)
    watch = Stopwatch()
    rows, others, givens = _split(kind, grids, options)
    batch = len(rows)
    cells = FAST_N * FAST_N
    solutions = np.zeros((batch, cells), np.uint8)
    found = np.zeros(batch, np.int64)
    counters = np.zeros((batch, fastk.COUNTERS), np.int64)
    faults = np.zeros((batch, 3), np.int64)
    fastk.solve_batch(givens, options["max_solutions"], True, solutions, found, counters, faults)
    faulty = np.flatnonzero(faults[:, 0])
    if faulty.size:
        j = int(faulty[0])
        raise _fault(rows[j], faults[j].tolist())
    share = round(watch.ms() / max(batch, 1), 4)
    return FastOutcomes(rows, others, solutions, found, counters, options["max_solutions"], share)


def _split(kind: Kind, grids: Sequence[Grid], options: Options) -> tuple[Sequence[int], dict[int, Outcome],
                                                                         np.ndarray]:
    """(the puzzles of the batch kernel, the outcomes of the others solved one by one, the kernel's
    givens uint8[len(rows), 81])."""
    if isinstance(grids, Grids):
        return range(len(grids)), {}, grids.givens
    rows = [i for i, grid in enumerate(grids) if grid.n == FAST_N]
    others: dict[int, Outcome] = {}
    if len(rows) < len(grids):
        slow = sorted(set(range(len(grids))) - set(rows))
        others = dict(zip(slow, solve_each(kind, [grids[i] for i in slow], options), strict=True))
    # concatenate: np.stack costs several times as much on a chunk of rows
    givens = np.concatenate([grids[i].givens for i in rows] or [np.zeros(0, np.uint8)])
    return rows, others, givens.reshape(len(rows), FAST_N * FAST_N)


def _fault(i: int, fault: list[int]) -> WrongAnswer:
    """The batch kernel's fault (kind, cell or check, peer or unit) on puzzle ``i`` of the batch."""
    kind, at, other = fault
    if kind == fastk.CONFLICT:
        return WrongAnswer(f"puzzle {i} of the batch: the kernel finds its givens contradictory "
                           f"({where(at, FAST_N)} against {where(other, FAST_N)}), which validate let pass")
    return WrongAnswer(f"puzzle {i} of the batch: fault {at} at {other} in the solution")


class FastOutcomes(Outcomes):
    """The outcomes of one batch kernel call, kept as its arrays: the first solutions (uint8[B, 81]),
    the solutions found (int64[B]) and the counters (int64[B, COUNTERS], ``fast``'s order).
    ``rows``: the puzzle each kernel row stands for; ``others``: the outcomes of the puzzles solved
    one by one. An Outcome is made only when one is indexed: the worker's write reads the columns,
    and the answers' texts are written by one kernel call (``answers``)."""

    def __init__(self, rows: Sequence[int], others: dict[int, Outcome], solutions: np.ndarray,
                 found: np.ndarray, counters: np.ndarray, max_solutions: int, share: float):
        super().__init__()
        self._size = len(rows) + len(others)
        self._rows, self._others, self._solutions, self._found = rows, others, solutions, found
        self._counters, self._max, self._share = counters, max_solutions, share
        self._row_of = {i: j for j, i in enumerate(rows)} if others else None

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._size))]
        i = range(self._size)[i]  # negative indices, and IndexError past the end
        if i in self._others:
            return self._others[i]
        j = i if self._row_of is None else self._row_of[i]
        n_found = int(self._found[j])
        c = self._counters[j].tolist()
        k = fastk
        return Outcome(SOLVED if n_found else NO_SOLUTION,
                       result(render(self._solutions[j]), n_found, self._max),
                       fast_stats(c[k.NODES], c[k.LEAVES], c[k.MAX_DEPTH], c[k.GUESSES], c[k.NAKED],
                                  c[k.HIDDEN], self._share))

    def statuses(self) -> list[str]:
        labels = (NO_SOLUTION, SOLVED)
        fast = list(map(labels.__getitem__, (self._found > 0).tolist()))
        return fast if not self._others else self._merged(fast, [o.status for o in self._others.values()])

    def nodes(self) -> list[int | None]:
        fast: list[int | None] = self._counters[:, fastk.NODES].tolist()
        return fast if not self._others else self._merged(fast, Outcomes(list(self._others.values())).nodes())

    def encoded(self, encode: Callable[[Any], str]) -> list[str]:
        fast = answers.texts(self._solutions, self._found, self._counters, self._max, encode(self._share))
        if not self._others:
            return fast
        return self._merged(fast, [encode([o.result, o.stats]) for o in self._others.values()])

    def _merged(self, fast: list[Any], slow: list[Any]) -> list[Any]:
        """The kernel rows' column and the others' (in the order of ``others``) in puzzle order."""
        out: list[Any] = [None] * self._size
        for i, value in zip(self._rows, fast, strict=True):
            out[i] = value
        for i, value in zip(self._others, slow, strict=True):
            out[i] = value
        return out


def read_9x9(puzzles: Sequence[Any]) -> tuple[list[int], np.ndarray]:
    """(indices, uint8[len(indices), 81] givens) of the puzzles that are plain 81-symbol 9x9
    strings; everything else (other sizes, rows, whitespace, bad symbols) is left to ``prepare_with``."""
    cells = FAST_N * FAST_N
    text = ""
    if set(map(type, puzzles)) == {str} and set(map(len, puzzles)) == {cells}:  # the usual chunk
        text = "".join(puzzles)
    if text.isascii() and len(text) == cells * len(puzzles):
        plain = list(range(len(puzzles)))
    else:
        plain = [i for i, p in enumerate(puzzles) if type(p) is str and len(p) == cells and p.isascii()]
        text = "".join([puzzles[i] for i in plain])
    if not plain:
        return [], np.zeros((0, cells), np.uint8)
    codes = np.frombuffer(text.encode("ascii").translate(SYMBOL_CODES), np.uint8).reshape(len(plain), cells)
    if codes.max() <= FAST_N:  # the usual chunk: one reduction, not one per row
        return plain, codes
    good = codes.max(axis=1) <= FAST_N
    return [i for i, ok in zip(plain, good.tolist(), strict=False) if ok], codes[good]
