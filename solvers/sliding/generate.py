"""Sliding-tile positions at an exact optimal distance from the goal, or at a random walk's end.

  2x2, 3x3  every position's distance comes from one breadth-first search from the goal,
            made once per process (``layers``); puzzle i is drawn uniformly from the layer at
            the distance asked, and the kind's IDA* gives its optimal route.
  4x4       a random walk from the goal that never undoes its last move, whose optimal distance
            (the kind's IDA*, with the pattern database where it is built) is computed at a few
            of its positions. A move changes the distance by exactly one, so between a position
            nearer than the target and one farther some position of the walk is exactly at the
            target: the walk is extended by twice what is missing until it overshoots, then that
            stretch is bisected. Manhattan distance, a lower bound, spares the solves of
            positions it already places beyond the target.
  5x5-8x8   no optimal search finishes there in general: the position at the end of a random
            walk of ``moves`` steps, marked ``random_walk: true``; its ``solution`` is the walk
            undone (a route, not a proof of the fewest moves).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from solvers.base import InvalidOption, Option, Options, read_options
from solvers.sliding.board import MOVES, Board, Puzzle, blank_step, default_goal
from solvers.sliding.checks import OPTIONS
from solvers.sliding.solve import solve

BFS_SIDES = (2, 3)
EXACT_MAX = {2: 6, 3: 31, 4: 60}  # the largest distance asked per exact side (2x2, 3x3: their diameter)
WALK_MAX = 10_000
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}

GENERATE_OPTIONS = (
    Option("size", int, 4, "board side k (k x k board): 2-4 at an exact optimal distance, 5-8 at a "
           "random walk's end", minimum=2, maximum=8),
    Option("moves", int, 40, f"the optimal distance from the goal (at most {EXACT_MAX[2]} for 2x2, "
           f"{EXACT_MAX[3]} for 3x3, {EXACT_MAX[4]} for 4x4); for 5x5 and up the random walk's length",
           minimum=0, maximum=WALK_MAX),
    Option("seed", int, 0, "puzzle i of a request comes from (seed, i) alone", minimum=0),
)


@functools.cache
def layers(k: int) -> tuple[tuple[Board, ...], ...]:
    """The positions of a k x k board that reach the default goal, by optimal distance (BFS)."""
    goal = default_goal(k)
    seen, frontier, out = {goal}, [goal], []
    while frontier:
        out.append(tuple(frontier))
        following = []
        for board in frontier:
            for move in MOVES:
                after = blank_step(k, board, move)
                if after is not None and after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier = following
    return tuple(out)


@functools.cache
def _optimal() -> Options:
    """The kind's options for its optimal IDA*, every default filled in."""
    return read_options(OPTIONS, {"algorithm": "idastar"}, "sliding")


def distance(k: int, board: Board) -> tuple[int, str]:
    """(fewest moves, an optimal route) by the kind's IDA*."""
    outcome = solve(Puzzle(k, board), _optimal())
    assert outcome.result is not None and outcome.result["optimal"]
    return outcome.result["length"], outcome.result["moves"]


def manhattan(k: int, board: Board) -> int:
    return sum(abs(cell // k - (tile - 1) // k) + abs(cell % k - (tile - 1) % k)
               for cell, tile in enumerate(board) if tile)


def walk(k: int, board: Board, steps: int, rng: np.random.Generator,
         last: str = "") -> tuple[list[Board], str]:
    """The boards of a random walk of ``steps`` moves from ``board`` (never undoing the move
    before), and its moves."""
    boards, moves = [], ""
    for _ in range(steps):
        options = [m for m in MOVES if m != OPPOSITE.get(last) and blank_step(k, board, m) is not None]
        last = options[int(rng.integers(len(options)))]
        following = blank_step(k, board, last)
        assert following is not None
        board = following
        boards.append(board)
        moves += last
    return boards, moves


def _at_distance(k: int, target: int, rng: np.random.Generator) -> tuple[Board, str, int]:
    """A 4x4 position at optimal distance ``target`` (module doc), its route and the solves spent."""
    boards, moves = [default_goal(k)], ""
    low, reached, solves = 0, 0, 0
    while True:  # extend the walk until a position is at the target or beyond it
        more, steps = walk(k, boards[-1], max(2, 2 * (target - reached)), rng, moves[-1:])
        boards += more
        moves += steps
        high = len(boards) - 1
        if manhattan(k, boards[high]) > target:
            break
        solves += 1
        found, route = distance(k, boards[high])
        if found == target:
            return boards[high], route, solves
        if found > target:
            break
        low, reached = high, found
    while True:  # d(low) < target < d(high), and a move changes d by one: bisect
        mid = (low + high) // 2
        if manhattan(k, boards[mid]) > target:
            high = mid
            continue
        solves += 1
        found, route = distance(k, boards[mid])
        if found == target:
            return boards[mid], route, solves
        low, high = (mid, high) if found < target else (low, mid)


def check_moves(k: int, target: int) -> None:
    """InvalidOption unless a k x k board has positions at an exact distance ``target`` (any walk
    length from 5x5 up)."""
    if k in EXACT_MAX and target > EXACT_MAX[k]:
        raise InvalidOption(f"option 'moves' is at most {EXACT_MAX[k]} on a {k}x{k} board "
                            f"(an exact optimal distance); got {target}")


def make(options: Options, index: int) -> dict[str, Any]:
    """Puzzle ``index`` of a request (options read with GENERATE_OPTIONS), from the generator
    seeded with (seed, index) alone."""
    k, target = options["size"], options["moves"]
    check_moves(k, target)
    rng = np.random.default_rng([options["seed"], index])
    facts: dict[str, Any] = {"moves": target, "optimal": True, "random_walk": False}
    if k in BFS_SIDES:
        layer = layers(k)[target]
        board = layer[int(rng.integers(len(layer)))]
        route = distance(k, board)[1]
    elif k in EXACT_MAX:
        board, route, solves = _at_distance(k, target, rng)
        facts["solves"] = solves
    else:
        boards, steps = walk(k, default_goal(k), target, rng)
        board = boards[-1] if boards else default_goal(k)
        route = "".join(OPPOSITE[m] for m in reversed(steps))
        facts = {"moves": target, "optimal": False, "random_walk": True}
    return {"puzzle": " ".join(map(str, board)), "solution": route, **facts}
