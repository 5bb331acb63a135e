"""Option ``explain``: a 9x9 Sudoku's solution comes with the grader's steps (grade.py), its
rating and hardest technique; a step the techniques could not make is a guess, with its cell,
and the guesses and depth of the trial and error behind it.

The explanation is checked as every answer is (``check``): its steps, replayed on the givens,
place every blank cell once with the solution's value and never remove the solution's value.
"""

from __future__ import annotations

from typing import Any

from solvers.base import SOLVED, Options, Outcome, WrongAnswer
from solvers.sudoku import grade
from solvers.sudoku.grid import Grid, parse_text

FIELD = "explanation"


def explanation(grid: Grid, result: dict[str, Any]) -> dict[str, Any] | None:
    """The grader's solve of a unique puzzle; None for one with more solutions (a person's
    steps need one solution to reach)."""
    if not result["unique"]:
        return None
    graded = grade.grade(grid.givens)
    guesses = [{"step": i, "cell": s["cells"][0], "guesses": s["guesses"], "depth": s["depth"]}
               for i, s in enumerate(graded.moves) if s["technique"] == grade.GUESS]
    return {"rating": graded.rating, "hardest": graded.hardest, "band": graded.band,
            "steps": graded.moves, "guesses": guesses}


def add(grid: Grid, options: Options, outcome: Outcome) -> Outcome:
    """The outcome with its explanation when ``explain`` is asked and the puzzle is solved."""
    if not options["explain"] or outcome.status != SOLVED or outcome.result is None:
        return outcome
    told = explanation(grid, outcome.result)
    return Outcome(outcome.status, {**outcome.result, FIELD: told}, outcome.stats)


def check(grid: Grid, result: dict[str, Any]) -> None:
    """Raise WrongAnswer unless the explanation replays into the solution (module doc)."""
    told = result[FIELD]
    if told is None:
        if result["unique"]:
            raise WrongAnswer("a unique puzzle's explanation is missing")
        return
    solution = parse_text(result["solution"]).givens.tolist()
    open_cells = {c for c, v in enumerate(grid.givens.tolist()) if not v}
    ratings = [0.0]
    for step in told["steps"]:
        ratings.append(step["rating"])
        for cell, value in step["placements"]:
            if cell not in open_cells or solution[cell] != value:
                raise WrongAnswer(f"{step['technique']} places {value} at cell {cell}, against the solution")
            open_cells.discard(cell)
        for cell, value in step["eliminations"]:
            if solution[cell] == value:
                raise WrongAnswer(f"{step['technique']} removes the solution's {value} from cell {cell}")
    if open_cells:
        raise WrongAnswer(f"the explanation leaves {len(open_cells)} cells unplaced")
    if told["rating"] != max(ratings):
        raise WrongAnswer(f"the explanation's rating {told['rating']} is not its hardest step's")
