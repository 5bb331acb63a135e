"""Strategy ``sat``: Spokes as satisfiability, with connectivity added lazily (CaDiCaL via python-sat).

One variable per candidate edge (``e + 1``). The clauses say what a hub and a
square may hold: each hub has exactly its clue of edges (every subset of one
more is not all drawn, every subset of the open ones one too few is not all
deleted: at most 8 edges per hub keep this direct form small and strong), and
no square holds both diagonals. Connectivity is not written down: a model is
read back, and while its drawn edges fall into several groups, each group's
cut (its candidate edges to the rest) gets a clause "one of these is drawn",
and the solver solves again (a "round"). The clauses only remove disconnected
models, so the first connected model is a solution and an unsatisfiable
formula proves there is none; further solutions are asked for by blocking each
one found (its drawn edges, not all again), which is complete because the
clues fix how many edges a solution draws.

The solver is not interrupted inside a round: a stop flag set meanwhile counts
when the round returns.
"""

from __future__ import annotations

import itertools

from pysat.solvers import Solver

from solvers.base import StopFlag, check_stop
from solvers.spokes.search import Edge, Graph, Point, SpokesStats

SOLVER = "cadical195"


def exact_degree(edges: tuple[Edge, ...], clue: int) -> list[list[int]]:
    """Clauses for "exactly ``clue`` of these edges are drawn" (direct: no auxiliary variables)."""
    lits = [e + 1 for e in edges]
    at_most = [[-x for x in subset] for subset in itertools.combinations(lits, clue + 1)]
    at_least = [list(subset) for subset in itertools.combinations(lits, len(lits) - clue + 1)]
    return at_most + at_least


def clauses(g: Graph) -> list[list[int]]:
    """Degrees and crossings; connectivity comes later, cut by cut."""
    out: list[list[int]] = []
    for p in g.hubs:
        out += exact_degree(g.incident[p], g.clues[p])
    out += [[-(e + 1), -(x + 1)] for e, x in enumerate(g.cross) if e < x]
    return out


def groups(g: Graph, drawn: list[Edge]) -> list[list[Point]]:
    """The hubs joined by the drawn edges, one list per group (union-find)."""
    parent = {p: p for p in g.hubs}

    def find(p: Point) -> Point:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for e in drawn:
        a, b = (find(p) for p in g.ends[e])
        parent[a] = b
    found: dict[Point, list[Point]] = {}
    for p in g.hubs:
        found.setdefault(find(p), []).append(p)
    return list(found.values())


def cut(g: Graph, group: list[Point]) -> list[int]:
    """The clause "one edge leaving this group is drawn"."""
    inside = set(group)
    return sorted({e + 1 for p in group for e in g.incident[p] if g.other(e, p) not in inside})


class SatRun:
    """One solve: the solver, its counters and the solutions met (as edge lists)."""

    def __init__(self, g: Graph, max_solutions: int, stop: StopFlag | None = None):
        self.g = g
        self.max_solutions = max_solutions
        self.stop = stop
        self.stats = SpokesStats()
        self.solutions: list[list[Edge]] = []

    def run(self) -> SatRun:
        g = self.g
        with Solver(name=SOLVER, bootstrap_with=clauses(g)) as sat:
            while len(self.solutions) < self.max_solutions:
                check_stop(self.stop)
                self.stats.sat_calls += 1
                if not sat.solve():
                    break
                model = sat.get_model() or []
                drawn = [e for e in range(len(g.ends)) if model[e] > 0]
                parts = groups(g, drawn)
                if len(parts) == 1:
                    self.solutions.append(drawn)
                    sat.add_clause([-(e + 1) for e in drawn])
                    continue
                cuts = [cut(g, group) for group in parts]
                if not all(cuts):  # a group with no candidate edge out: the hubs can never meet
                    break
                for clause in cuts:
                    sat.add_clause(clause)
                self.stats.cuts += len(cuts)
            counts = sat.accum_stats()
        self.stats.nodes = self.stats.guesses = counts.get("decisions", 0)
        self.stats.backtracks = counts.get("conflicts", 0)
        return self
