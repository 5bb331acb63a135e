"""The Spokes kind's checks: a puzzle's validation and an answer's check against the five rules,
from the puzzle alone (never from a solver's work)."""

from __future__ import annotations

from solvers.base import NO_SOLUTION, SOLVED, InvalidPuzzle, Options, Outcome, WrongAnswer
from solvers.spokes.puzzle import MAX_SIDE, Spokes, Wire, graph


def validate(puzzle: Spokes, options: Options) -> None:
    if not (1 <= puzzle.width <= MAX_SIDE and 1 <= puzzle.height <= MAX_SIDE):
        raise InvalidPuzzle(f"a spokes grid is at most {MAX_SIDE}x{MAX_SIDE}; "
                            f"got {puzzle.width}x{puzzle.height}")
    g = graph(puzzle)
    if not g.hubs:
        raise InvalidPuzzle("the puzzle has no hubs (every point is 0 or '.')")
    for p in g.hubs:
        capacity = len(g.incident[p])
        if puzzle.clues[p] > capacity:
            r, c = puzzle.rc(p)
            raise InvalidPuzzle(f"row {r + 1}, column {c + 1}: clue {puzzle.clues[p]} but that hub has only "
                                f"{capacity} neighbouring hub(s) to join")
    total = sum(puzzle.clues)
    if total % 2:
        raise InvalidPuzzle(f"the clues sum to {total}, an odd number; every spoke counts at both its hubs")


# -- checking an answer from the puzzle alone


def verify(puzzle: Spokes, options: Options, outcome: Outcome) -> None:
    """Check a solved outcome against the five rules, from the puzzle alone.

    A no_solution outcome carries nothing to check beyond its shape: proving
    that no answer exists is the search's own job.
    """
    if outcome.status == NO_SOLUTION:
        if outcome.result is not None:
            raise WrongAnswer("a no_solution outcome must not carry a result")
        return
    if outcome.status != SOLVED or not isinstance(outcome.result, dict):
        raise WrongAnswer(f"unexpected outcome {outcome.status!r} without a result")
    spokes = outcome.result.get("spokes")
    if not isinstance(spokes, list):
        raise WrongAnswer("the result has no list of spokes")
    check_spokes(puzzle, spokes)


def check_spokes(puzzle: Spokes, spokes: Wire) -> None:
    w, h, clues = puzzle.width, puzzle.height, puzzle.clues
    seen: set[tuple[int, int]] = set()
    degree = [0] * (w * h)
    diagonals: set[tuple[int, int, str]] = set()  # (row, column) of the square's top left, which diagonal
    for spoke in spokes:
        if not (isinstance(spoke, list) and len(spoke) == 4 and all(type(x) is int for x in spoke)):
            raise WrongAnswer(f"spoke {spoke!r} is not [r1, c1, r2, c2]")
        r1, c1, r2, c2 = spoke
        if not (0 <= r1 < h and 0 <= r2 < h and 0 <= c1 < w and 0 <= c2 < w):
            raise WrongAnswer(f"spoke {spoke} leaves the {w}x{h} grid")
        p, q = r1 * w + c1, r2 * w + c2
        if not (clues[p] and clues[q]):
            raise WrongAnswer(f"spoke {spoke} touches an empty point")
        if max(abs(r1 - r2), abs(c1 - c2)) != 1:
            raise WrongAnswer(f"spoke {spoke} does not join neighbouring points")
        if (min(p, q), max(p, q)) in seen:
            raise WrongAnswer(f"spoke {spoke} is drawn twice")
        seen.add((min(p, q), max(p, q)))
        degree[p] += 1
        degree[q] += 1
        if r1 != r2 and c1 != c2:
            square = (min(r1, r2), min(c1, c2))
            slope = "\\" if (r2 - r1) == (c2 - c1) else "/"
            if (*square, "/" if slope == "\\" else "\\") in diagonals:
                raise WrongAnswer(f"spoke {spoke} crosses the other diagonal of its square")
            diagonals.add((*square, slope))
    for p in range(w * h):
        if degree[p] != clues[p]:
            raise WrongAnswer(f"hub at row {p // w}, column {p % w} has {degree[p]} spokes, clue {clues[p]}")
    links: dict[int, list[int]] = {}
    for p, q in seen:
        links.setdefault(p, []).append(q)
        links.setdefault(q, []).append(p)
    hubs = [p for p in range(w * h) if clues[p]]
    reached, todo = {hubs[0]}, [hubs[0]]
    while todo:
        for q in links.get(todo.pop(), ()):
            if q not in reached:
                reached.add(q)
                todo.append(q)
    if len(reached) != len(hubs):
        raise WrongAnswer(f"the spokes leave {len(hubs) - len(reached)} hub(s) cut off from the rest")
