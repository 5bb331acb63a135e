"""`POST /api/v1/validate`: check a batch exactly as `POST /jobs` would, and store nothing.

The client sends a file too large for one job as several; it checks every part first, so
that a file with one bad line stores nothing at all.
"""

from __future__ import annotations

from pydantic import BaseModel
from spectree import Response

from service.api import BODY_ERRORS, bp, checked, read_batch, spec
from service.schemas import JobSubmit


class Checked(BaseModel):
    puzzles: int


@bp.post("/validate")
@spec.validate(json=JobSubmit, resp=Response(HTTP_200=Checked, **BODY_ERRORS), skip_validation=True,
               tags=["jobs"])
def validate_batch() -> Checked:
    """Check a batch as `POST /jobs` does (same 400, 413, 415 and 422 answers); nothing is stored."""
    return Checked(puzzles=len(checked(read_batch()).items))
