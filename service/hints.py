"""`POST /api/v1/hint`: the next step from a position part-way through a puzzle, or the user's
values that are wrong, from the kind's ``hint`` (solvers.hint_item); nothing is stored.

The request is checked by the kind alone (its field named in a 422), as `POST /jobs` checks a
puzzle; authentication and the rate limit of writes are those of every POST of the API.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from spectree import Response

import solvers
from service.api import BODY_ERRORS, bp, spec
from service.bodies import read_json
from service.problems import Problem, invalid

EXAMPLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


class HintIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": {
        "kind": "sudoku", "puzzle": EXAMPLE, "placed": "534" + EXAMPLE[3:]}})

    kind: str = Field(description="a kind that gives hints (GET /api/v1/kinds: `hints`)")
    puzzle: Any = Field(description="the givens, in the kind's wire form")
    placed: Any = Field(None, description="the values placed so far, a grid in the same form (blank where "
                                          "open; a given may be repeated or left blank)")
    candidates: list[list[int]] | None = Field(
        None, description="the candidates kept in each cell, cell r*n + c (a filled cell's are ignored); "
                          "without them, every value no peer holds")


class HintOut(BaseModel):
    status: Literal["step", "wrong", "solved"] = Field(
        description="step: the next step is `step`; wrong: `wrong` names values that contradict the "
                    "puzzle's solution; solved: every cell is filled, and rightly")
    step: dict[str, Any] | None = Field(
        None, description="the easiest next step, as the kind's explanation lists steps (sudoku: technique, "
                          "rating, cells, placements [[cell, value]], eliminations [[cell, value]])")
    band: str | None = Field(None, description="the band of the step's rating")
    wrong: list[dict[str, Any]] | None = Field(
        None, description="each wrong cell: cell, row, column, field (placed or candidates), the placed "
                          "value, message")


@bp.post("/hint")
@spec.validate(json=HintIn, resp=Response(HTTP_200=HintOut, **BODY_ERRORS), skip_validation=True,
               tags=["hints"])
def hint() -> dict[str, Any]:
    """The next easiest step from a position part-way through (the givens, the values placed, the
    candidates kept), or the placed values and candidates that contradict the puzzle's one
    solution, or that it is solved; nothing is stored. A puzzle without exactly one solution, a
    kind without hints or a bad field is 422 naming the field."""
    body = read_json()
    if not isinstance(body, dict):
        raise Problem(400, "Bad Request", f"the body must be a JSON object, not a {type(body).__name__}")
    try:
        return solvers.hint_item(body)
    except solvers.PuzzleError as exc:
        raise invalid([{"index": None, "field": exc.field, "message": str(exc)}]) from None
