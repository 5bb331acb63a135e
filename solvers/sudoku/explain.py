"""Option ``explain``: a Sudoku's solution comes with the grader's steps, its rating and hardest
technique (9x9: grade.py; 4x4 and 16x16: the size-generic gradeg.py); a step the techniques
could not make is a guess, with its cell, and the guesses and depth of the trial and error
behind it.

With options ``placed`` (and optionally ``candidates``), the position part-way through that they
make with the givens (position.py) is graded from where it stands: the steps still needed, the
rating of the hardest; the explanation then also lists under ``wrong`` the placed values that
are not the solution's and the cells whose candidates lack it (as hints report them), and when
there are any it has no steps and its rating, hardest and band are null (as they are when the
position is already full).

The explanation is checked as every answer is (``check``): its steps, replayed on the position,
place every open cell once with the solution's value and never remove the solution's value;
the wrong values listed are exactly those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solvers.base import SOLVED, InvalidField, InvalidOption, Options, Outcome, WrongAnswer
from solvers.sudoku import grade, gradeg, position
from solvers.sudoku.grid import Grid, parse_text

FIELD = "explanation"
SIZES = (4, 9, 16)  # a 25x25 grading in plain Python costs more than a request may take
NOTHING: dict[str, Any] = {"rating": None, "hardest": None, "band": None, "steps": [], "guesses": []}


def read_position(grid: Grid, options: Options) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The position of options ``placed`` and ``candidates`` (values, kept candidates), None when
    neither is given; InvalidOption naming the option that is unreadable or changes a given."""
    if options["placed"] is None and options["candidates"] is None:
        return None
    try:
        return position.values(grid, options["placed"]), position.masks(options["candidates"], grid.n)
    except InvalidField as exc:
        raise InvalidOption(f"option '{exc.field}': {exc}") from None


def validate(grid: Grid, options: Options) -> None:
    """The options of an explained solve (``explain``, ``placed``, ``candidates``) for this grid."""
    if not options["explain"]:
        if options["placed"] is not None or options["candidates"] is not None:
            raise InvalidOption("options 'placed' and 'candidates' give the position that 'explain' grades; "
                                "they need explain: true")
        return
    if grid.n not in SIZES:
        raise InvalidOption(f"option 'explain' is for 4x4, 9x9 and 16x16 grids, not {grid.n}x{grid.n}")
    read_position(grid, options)


def _told(graded: grade.Grade) -> dict[str, Any]:
    guesses = [{"step": i, "cell": s["cells"][0], "guesses": s["guesses"], "depth": s["depth"]}
               for i, s in enumerate(graded.moves) if s["technique"] == grade.GUESS]
    return {"rating": graded.rating, "hardest": graded.hardest, "band": graded.band,
            "steps": graded.moves, "guesses": guesses}


def explanation(grid: Grid, options: Options, result: dict[str, Any]) -> dict[str, Any] | None:
    """The grader's solve of a unique puzzle, from its position when one is given (module doc);
    None for a puzzle with more solutions (a person's steps need one solution to reach)."""
    if not result["unique"]:
        return None
    at = read_position(grid, options)
    solution = parse_text(result["solution"]).givens.astype(np.int64)
    if at is None:
        if grid.n == grade.N:
            return _told(grade.grade(grid.givens))
        return _told(gradeg.grade(grid.n, grid.givens.tolist(), solution.tolist()))
    values, kept = at
    wrong = position.wrong(grid.givens, values, kept, solution)
    if wrong:
        return {**NOTHING, "wrong": wrong}
    graded = position.grade_from(values, kept, solution)
    return {**(NOTHING if graded is None else _told(graded)), "wrong": []}


def add(grid: Grid, options: Options, outcome: Outcome) -> Outcome:
    """The outcome with its explanation when ``explain`` is asked and the puzzle is solved."""
    if not options["explain"] or outcome.status != SOLVED or outcome.result is None:
        return outcome
    told = explanation(grid, options, outcome.result)
    return Outcome(outcome.status, {**outcome.result, FIELD: told}, outcome.stats)


def check(grid: Grid, options: Options, result: dict[str, Any]) -> None:
    """Raise WrongAnswer unless the explanation replays into the solution (module doc)."""
    told = result[FIELD]
    if told is None:
        if result["unique"]:
            raise WrongAnswer("a unique puzzle's explanation is missing")
        return
    solution = parse_text(result["solution"]).givens.astype(np.int64)
    at = read_position(grid, options)
    start = grid.givens if at is None else at[0]
    if at is not None:
        expected = position.wrong(grid.givens, at[0], at[1], solution)
        if told.get("wrong") != expected:
            raise WrongAnswer(f"the explanation's wrong values {told.get('wrong')!r} are not {expected!r}")
        if expected and told["steps"]:
            raise WrongAnswer("an explanation of a position with wrong values has steps")
    elif "wrong" in told:
        raise WrongAnswer("an explanation without a position lists wrong values")
    open_cells = {c for c, v in enumerate(start.tolist()) if not v}
    ratings = []
    values = solution.tolist()
    for step in told["steps"]:
        ratings.append(step["rating"])
        for cell, value in step["placements"]:
            if cell not in open_cells or values[cell] != value:
                raise WrongAnswer(f"{step['technique']} places {value} at cell {cell}, against the solution")
            open_cells.discard(cell)
        for cell, value in step["eliminations"]:
            if values[cell] == value:
                raise WrongAnswer(f"{step['technique']} removes the solution's {value} from cell {cell}")
    if open_cells and not (at is not None and told.get("wrong")):
        raise WrongAnswer(f"the explanation leaves {len(open_cells)} cells unplaced")
    # a position already full (or wrong) needs no step: no rating; a full puzzle's grading is 1.0
    if told["rating"] != (max(ratings) if ratings else None if at is not None else 1.0):
        raise WrongAnswer(f"the explanation's rating {told['rating']} is not its hardest step's")
