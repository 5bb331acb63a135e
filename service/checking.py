"""`POST /api/v1/validate`: check a batch exactly as `POST /jobs` would, and store nothing.

The client sends a file too large for one job as several; it checks every part first, so
that a file with one bad line stores nothing at all. The answer also tells what the batch is
predicted to cost, item by item and in all, before any of it is sent for solving.
"""

from __future__ import annotations

from flask import g
from pydantic import BaseModel, Field
from spectree import Response

from service import auth, settings
from service.api import BODY_ERRORS, bp, check_callback, checked, over_budget, read_batch, snapshot, spec
from service.schemas import JobSubmit
from store import costs, submit


class ItemCost(BaseModel):
    estimated_seconds: float = Field(description="the item's predicted CPU seconds")
    estimated_range: list[float] = Field(
        description="[low, high]: the CPU seconds the truth is expected between")
    estimate_basis: str = Field(description="what the prediction rests on, e.g. typical")


class Checked(BaseModel):
    puzzles: int
    estimated_seconds_total: float = Field(description="the batch's predicted CPU seconds: the items' sum")
    estimated_range_total: list[float] = Field(description="[low, high]: the sums of the items' ranges")
    items: list[ItemCost] = Field(description="each item's prediction, in batch order")


@bp.post("/validate")
@spec.validate(json=JobSubmit, resp=Response(HTTP_200=Checked, **BODY_ERRORS), skip_validation=True,
               tags=["jobs"])
def validate_batch() -> Checked:
    """Check a batch as `POST /jobs` does (same 400, 413, 415 and 422 answers, its `callback_url` and
    a batch predicted above the client's whole budget included) and predict its cost; nothing is
    stored."""
    body = read_batch()
    check_callback(body.get("callback_url"))
    estimates = [item.estimate for item in checked(body).items]
    _within_whole_budget(sum(e.seconds for e in estimates))
    items = [ItemCost(**costs.of_puzzle(e.seconds, e.factor, e.basis)) for e in estimates]
    return Checked(puzzles=len(items), estimated_seconds_total=round(sum(e.seconds for e in estimates), 6),
                   estimated_range_total=[round(sum(e.low for e in estimates), 6),
                                          round(sum(e.high for e in estimates), 6)],
                   items=items)


def _within_whole_budget(seconds: float) -> None:
    """422 for a batch predicted above the client's whole budget, as `POST /jobs` answers it: it
    can never pass, whatever is unfinished. What is left of the budget is not checked here."""
    owner = auth.submitter(g.owner)
    budget = settings().costs.budget_of(owner)
    if budget > 0 and seconds > budget:
        with snapshot() as s:
            left = max(budget - costs.work_left(s, [owner])[owner], 0.0)
        raise over_budget(submit.OverBudget(seconds, budget, left), "puzzles")
