"""Random Spokes puzzles: a random non-crossing drawing that spans the grid, its degrees as the
clues; optionally repaired until its solution is unique."""

from __future__ import annotations

import random

from solvers.base import InvalidOption
from solvers.spokes import sat
from solvers.spokes.puzzle import MAX_SIDE, Spokes, graph
from solvers.spokes.search import Edge, Graph, Point


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
    g = graph(Spokes(width, height, (1,) * (width * height)))
    rng = random.Random(seed)
    drawn = _random_drawing(g, rng, extra)
    while unique and (other := _another_solution(g, drawn)) is not None:
        _repair(g, drawn, other, rng)
    return Spokes(width, height, _degrees(g, drawn))


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
