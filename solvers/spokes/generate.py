"""Spokes puzzles made at random: a random non-crossing drawing that spans the grid, its degrees as
the clues; optionally repaired until its solution is unique (``generate``, for tests and benches).

The factory (``GENERATE_OPTIONS``, ``make``) makes unique puzzles at a level, following Simon
Tatham's generators: an attempt is kept only if the solver of its level solves it and the
solver of the level below does not. ``easy``: the source paper's Pruning Algorithm
(pruning.py) reaches the solution alone, with no wrong deletion and no stall; ``hard``: it
does not, so the search must take over. Every puzzle is unique: the repair loop ends only when
the SAT strategy, asked for two solutions, finds the drawing alone (``unique`` below). How
full the drawing is steers the level: a drawing with most of its possible spokes leaves many
hubs with all their neighbours, which the paper's hub rule settles (``EXTRA``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from solvers.base import InvalidOption, NotMade, Option, Options
from solvers.spokes import pruning, sat
from solvers.spokes.puzzle import MAX_SIDE, Spokes, graph, wire
from solvers.spokes.search import Edge, Graph, Point

LEVELS = ("easy", "hard")
SMALLEST, LARGEST = 4, 30  # sides the factory makes
# The share of the remaining non-crossing spokes drawn after the spanning tree, drawn per
# attempt from this range: full drawings are easy for the paper's rules, thinner ones are not
# (bench/factory.py measures the attempts each level takes).
EXTRA = {"easy": (0.85, 1.0), "hard": (0.4, 0.85)}

GENERATE_OPTIONS = (
    Option("width", int, 7, "points per row", minimum=SMALLEST, maximum=LARGEST),
    Option("height", int, 7, "rows of points", minimum=SMALLEST, maximum=LARGEST),
    Option("level", str, "easy", "easy: the source paper's Pruning Algorithm solves it alone; hard: it "
           "does not (a wrong deletion or a stall), so search is needed", choices=LEVELS),
    Option("seed", int, 0, "puzzle i of a request comes from (seed, i) alone", minimum=0),
    Option("max_attempts", int, 200, "drawings tried per puzzle before giving up", minimum=1,
           maximum=100_000),
)


def generate(width: int, height: int, seed: int, extra: float = 0.5, unique: bool = False) -> Spokes:
    """A solvable puzzle: a random non-crossing spanning tree plus a share of extra spokes.

    Orthogonal edges never cross, so Kruskal's join over shuffled candidates
    always spans the grid; ``extra`` of the remaining non-crossing candidates
    are then drawn too, and the clues are the degrees. With ``unique`` the
    drawing is then repaired until it is the only solution: while the SAT
    strategy finds another one, one edge where the two differ is taken out of
    (if the drawing stays connected) or put into (if it crosses nothing) the
    drawing, which changes two clues so that the other solution no longer fits.
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height < 2:
        raise InvalidOption(f"cannot generate a {width}x{height} spokes grid")
    g = _full_graph(width, height)
    rng = random.Random(seed)
    drawn = _random_drawing(g, rng, extra)
    if unique:
        _make_unique(g, drawn, rng)
    return Spokes(width, height, _degrees(g, drawn))


def _full_graph(width: int, height: int) -> Graph:
    """Every candidate spoke of a grid whose points are all hubs."""
    return graph(Spokes(width, height, (1,) * (width * height)))


def _make_unique(g: Graph, drawn: list[bool], rng: random.Random) -> None:
    while (other := _another_solution(g, drawn)) is not None:
        _repair(g, drawn, other, rng)


def make(options: Options, index: int) -> dict[str, Any]:
    """Puzzle ``index`` of a request (options read with GENERATE_OPTIONS): drawings made unique
    from the generator seeded with (seed, index) until one is of the level asked; ValueError
    after max_attempts."""
    width, height, level = options["width"], options["height"], options["level"]
    numpy_rng = np.random.default_rng([options["seed"], index])
    rng = random.Random(int(numpy_rng.integers(2**63)))
    g = _full_graph(width, height)
    low, high = EXTRA[level]
    for attempt in range(1, options["max_attempts"] + 1):
        drawn = _random_drawing(g, rng, rng.uniform(low, high))
        _make_unique(g, drawn, rng)
        puzzle = Spokes(width, height, _degrees(g, drawn))
        paper = pruning.solve(graph(puzzle), 1)
        if bool(paper.stats.pa_complete) == (level == "easy"):
            spokes = wire(g, [e for e, on in enumerate(drawn) if on])
            return {"puzzle": puzzle.text(), "solution": spokes, "level": level, "unique": True,
                    "attempts": attempt, "pa_deletions": paper.stats.pa_deletions}
    raise NotMade(f"puzzle {index}: no {level} {width}x{height} spokes puzzle after "
                     f"{options['max_attempts']} attempts (max_attempts)")


def _random_drawing(g: Graph, rng: random.Random, extra: float) -> list[bool]:
    order = list(range(len(g.ends)))
    rng.shuffle(order)
    parent = list(range(len(g.clues)))

    def find(p: Point) -> Point:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    drawn = [False] * len(g.ends)
    for e in order:
        a, b = (find(p) for p in g.ends[e])
        if a != b and _crosses_nothing(g, drawn, e):
            parent[a] = b
            drawn[e] = True
    for e in order:
        if not drawn[e] and _crosses_nothing(g, drawn, e) and rng.random() < extra:
            drawn[e] = True
    return drawn


def _crosses_nothing(g: Graph, drawn: list[bool], e: Edge) -> bool:
    return g.cross[e] < 0 or not drawn[g.cross[e]]


def _degrees(g: Graph, drawn: list[bool]) -> tuple[int, ...]:
    degree = [0] * len(g.clues)
    for e, (a, b) in enumerate(g.ends):
        if drawn[e]:
            degree[a] += 1
            degree[b] += 1
    return tuple(degree)


def _another_solution(g: Graph, drawn: list[bool]) -> set[Edge] | None:
    """A solution of the drawing's clues other than the drawing, or None when it is unique.
    Every point is a hub (the drawing spans the grid), so the puzzle's edges are g's."""
    mine = {e for e, on in enumerate(drawn) if on}
    clues = _degrees(g, drawn)
    width, height = g.width, len(clues) // g.width
    found = sat.SatRun(graph(Spokes(width, height, clues)), 2).run().solutions
    return next((set(s) for s in found if set(s) != mine), None)


def _repair(g: Graph, drawn: list[bool], other: set[Edge], rng: random.Random) -> None:
    """Toggle one edge in each region where the drawing and the other solution differ (see
    generate): the regions are independent ambiguities, so one round settles them all."""
    mine = {e for e, on in enumerate(drawn) if on}
    differ = sorted(other ^ mine)
    rng.shuffle(differ)
    regions = sat.groups(g, differ)
    region = {p: k for k, hubs in enumerate(regions) for p in hubs}
    done: set[int] = set()
    for e in differ:
        k = region[g.ends[e][0]]
        if k not in done and _toggle(g, drawn, e):
            done.add(k)
    if not done:
        raise AssertionError("two different solutions always differ in an edge that can be toggled")


def _toggle(g: Graph, drawn: list[bool], e: Edge) -> bool:
    """Draw or erase e unless that crosses a spoke or cuts the drawing in two."""
    drawn[e] = not drawn[e]
    if drawn[e] and _crosses_nothing(g, drawn, e):
        return True
    if not drawn[e] and len(sat.groups(g, [d for d, on in enumerate(drawn) if on])) == 1:
        return True
    drawn[e] = not drawn[e]
    return False
