"""What a Sudoku solve answers: the result's fields and the search's statistics, in the terms of
tree.py. For ``fast`` the nodes are the states propagated, the guesses the children entered
(each branch binary: the cell's lowest value, or not that value), and the techniques naked and
hidden singles only; sat.py says what ``sat`` counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.base import NO_SOLUTION, SOLVED, Options, Outcome, Stats
from solvers.sudoku import kernels

TECHNIQUES = ("full_house", "naked_single", "hidden_single", "naked_pair")


@dataclass
class SudokuStats(Stats):
    nodes: int = 0
    leaves: int = 0
    max_depth: int = 0
    guesses: int = 0
    techniques: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TECHNIQUES, 0))
    strategy: str = ""
    abandoned: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = dict(vars(self))  # dataclasses.asdict deep-copies and costs more than the search
        out["techniques"] = dict(self.techniques)
        out["abandoned"] = [dict(a) for a in self.abandoned]
        return out

    @classmethod
    def from_counters(cls, counters: np.ndarray, elapsed_ms: float, strategy: str) -> SudokuStats:
        c = counters.tolist()
        k = kernels
        return cls(elapsed_ms=elapsed_ms, nodes=c[k.NODES], leaves=c[k.LEAVES], max_depth=c[k.MAX_DEPTH],
                   guesses=c[k.GUESSES],
                   techniques={"full_house": c[k.FULL_HOUSE], "naked_single": c[k.NAKED_SINGLE],
                               "hidden_single": c[k.HIDDEN_SINGLE], "naked_pair": c[k.NAKED_PAIR]},
                   strategy=strategy)

def fast_stats(nodes: int, leaves: int, max_depth: int, guesses: int, naked: int, hidden: int,
               elapsed_ms: float) -> dict[str, Any]:
    """The stats dict of a ``fast`` search from its kernel counters, in ``fast``'s counter order
    (built directly: batches make many)."""
    return {"elapsed_ms": elapsed_ms, "subtasks": 0, "nodes": nodes, "leaves": leaves, "max_depth": max_depth,
            "guesses": guesses,
            "techniques": {"full_house": 0, "naked_single": naked, "hidden_single": hidden, "naked_pair": 0},
            "strategy": "fast", "abandoned": []}


def result(first: str | None, found: int, max_solutions: int) -> dict[str, Any] | None:
    if not found:
        return None
    # only an exhausted search proves uniqueness, and it is exhausted only below the limit
    return {"solution": first, "unique": found == 1 and max_solutions > 1, "solutions_found": found}


def outcome(first: str | None, found: int, options: Options, stats: SudokuStats) -> Outcome:
    return Outcome(SOLVED if found else NO_SOLUTION, result(first, found, options["max_solutions"]),
                   stats.as_dict())
