"""What an n-Queens solve reports in every mode: the statistics, and a result read back to merge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solvers.base import Outcome, Stats

N = int  # the puzzle: the board side


@dataclass
class QueensStats(Stats):
    nodes: int = 0
    checked_nodes: int | None = None
    seed: int | None = None
    strategy: str | None = None


def result_of(o: Outcome) -> dict[str, Any]:
    """The result of a head or a part: a count's and an estimate's always have one."""
    if o.result is None:
        raise ValueError(f"a {o.status} outcome without a result cannot be merged")
    return o.result
