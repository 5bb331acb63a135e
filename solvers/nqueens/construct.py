"""Mode ``solve``: one placement, constructed in O(n) (Hoffman, Loessi & Moore 1969; Bernhardsson
1991); n <= 3 by exhausting the tree."""

from __future__ import annotations

import numpy as np

from solvers.base import NO_SOLUTION, SOLVED, Outcome, Stopwatch, WrongAnswer
from solvers.nqueens.checks import is_placement, need
from solvers.nqueens.count import count_below
from solvers.nqueens.outcome import N, QueensStats


def construct(n: N) -> np.ndarray:
    """A solution for n >= 4 in O(n): two interleaved knight-step staircases, and a corner queen for odd n."""
    even = n - n % 2
    half = even // 2
    i = np.arange(1, half + 1, dtype=np.int64)
    queens = np.empty(n, np.int64)
    if even % 6 != 2:
        queens[i - 1] = 2 * i - 1
        queens[half + i - 1] = 2 * i - 2
    else:
        # The plain staircases collide on a diagonal when n = 6k + 2; shifted ones do not.
        shift = (2 * i + half - 3) % even
        queens[i - 1] = shift
        queens[even - i] = even - 1 - shift
    if n % 2:
        # Neither staircase uses the main diagonal, so the corner square is safe.
        queens[n - 1] = n - 1
    return queens


def solve(n: N, clock: Stopwatch) -> Outcome:
    if n >= 4:
        queens = construct(n).tolist()
        return Outcome(SOLVED, {"queens": queens}, QueensStats(elapsed_ms=clock.ms()).as_dict())
    # n <= 3: the whole tree is a handful of nodes; exhausting it is the proof.
    nodes, solutions = count_below(n, 1)
    stats = QueensStats(nodes=nodes, elapsed_ms=clock.ms()).as_dict()
    if solutions == 0:
        return Outcome(NO_SOLUTION, None, stats)
    return Outcome(SOLVED, {"queens": [0]}, stats)


def verify(n: N, outcome: Outcome) -> None:
    if outcome.status == NO_SOLUTION:
        need(n in (2, 3), f"n={n} has solutions, yet the outcome says none")
        return
    queens = (outcome.result or {}).get("queens")
    if not isinstance(queens, list) or len(queens) != n:
        raise WrongAnswer(f"the answer must list {n} columns")
    need(is_placement(queens, n), "two queens attack each other (or a column is off the board)")
