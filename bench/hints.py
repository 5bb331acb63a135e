"""Hints benchmark: milliseconds per hint (``solvers.hint_item``, the call `POST /api/v1/hint`
makes) over the Sudoku Exchange diabolical puzzles at several fill stages.

    PYTHONPATH=. python bench/hints.py [--count N]

Each puzzle is graded once; its positions are taken on the grader's own path: the position
before the step that fills 0, 25, 50 and 75% of its open cells, and the position before its
hardest step (the one its rating comes from). A position is sent as a user keeping pencil marks
would send it: the givens, the values placed so far and the candidates the grader holds there.
Each hint is timed once in CPU time (``time.process_time``, so that other processes on the
machine do not count) after one warm-up hint has loaded the compiled kernels; the table gives
the median and the 95th percentile per stage, and the 95th percentile divided by the median of
the anchor row, the fast solver's solve of the same puzzles (``KIND.solve``, default options),
measured in the same run. The process pins itself to one core (the machine's last).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import solvers
from solvers.sudoku import KIND, grade

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "sudoku"
STAGES = (0.0, 0.25, 0.5, 0.75)
HARDEST = "hardest step"


def positions(puzzle: str) -> dict[str, dict[str, Any]]:
    """The hint requests of one puzzle, by stage (module doc)."""
    graded = grade.grade(puzzle)
    givens = np.frombuffer(puzzle.replace(".", "0").encode(), np.uint8) - ord("0")
    board = grade.Board(givens, grade.solve_unique(givens))
    open_cells = int((givens == 0).sum())
    hardest = max(range(len(graded.moves)), key=lambda i: graded.moves[i]["rating"])
    found: dict[str, dict[str, Any]] = {}
    for i, move in enumerate(graded.moves):
        filled = 1 - int((board.values == 0).sum()) / open_cells
        for stage in STAGES:
            name = f"{stage:.0%} filled"
            if name not in found and filled >= stage:
                found[name] = request(puzzle, board)
        if i == hardest:
            found[HARDEST] = request(puzzle, board)
        board.apply(grade.Step(move["technique"], move["rating"], move["cells"],
                               [tuple(p) for p in move["placements"]],
                               [tuple(e) for e in move["eliminations"]]))
    return found


def request(puzzle: str, board: grade.Board) -> dict[str, Any]:
    """The hint request of the board's position: givens, placed values and candidates."""
    placed = "".join(str(v) for v in board.values.tolist())
    candidates = [[d + 1 for d in range(9) if m >> d & 1] for m in board.cands.tolist()]
    return {"kind": "sudoku", "puzzle": puzzle, "placed": placed, "candidates": candidates}


def timed_ms(call: Callable[[], Any]) -> tuple[float, Any]:
    """The call's CPU milliseconds and its answer."""
    start = time.process_time()
    answer = call()
    return (time.process_time() - start) * 1000, answer


def p95(xs: list[float]) -> float:
    return float(np.percentile(xs, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300, help="the first N diabolical puzzles")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})
    lines = (DATA / "sudoku_exchange_diabolical_first5000.txt").read_text().splitlines()[:args.count]
    puzzles = [line.split()[1] for line in lines]
    requests = [positions(p) for p in puzzles]
    solvers.hint_item(requests[0][HARDEST])  # load the compiled kernels
    KIND.solve(*KIND.prepare(puzzles[0]))
    anchor = [timed_ms(lambda p=p: KIND.solve(*KIND.prepare(p)))[0] for p in puzzles]
    base = statistics.median(anchor)
    print(f"One core (cpu {cores[-1]}); the first {len(puzzles)} diabolical puzzles\n")
    print("| position | hints | p50 ms | p95 ms | p95 / anchor p50 | most common technique |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    print(f"| anchor: fast solve of the givens | {len(anchor)} | {base:.3f} | {p95(anchor):.3f} | "
          f"{p95(anchor) / base:.1f} | |")
    for stage in [*(f"{s:.0%} filled" for s in STAGES), HARDEST]:
        asked = [r[stage] for r in requests if stage in r]
        runs = [timed_ms(lambda q=q: solvers.hint_item(q)) for q in asked]
        times = [ms for ms, _ in runs]
        techniques = [answer["step"]["technique"] for _, answer in runs]
        common = max(set(techniques), key=techniques.count)
        print(f"| {stage} | {len(times)} | {statistics.median(times):.3f} | {p95(times):.3f} | "
              f"{p95(times) / base:.1f} | {common} |")


if __name__ == "__main__":
    main()
