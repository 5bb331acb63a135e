"""Bulk actions: one action on every job of the client that matches a filter (``POST
/api/v1/bulk``), as ``GET /api/v1/jobs?status=&label=`` lists them.

Each job is acted on as its own endpoint does (cancel, retry, delete), in its own transaction: a
job the action does not apply to is listed under ``skipped`` with the reason, and the others go
on. Only jobs the action can change are taken (cancel: unfinished; retry: any but queued; delete:
finished), oldest first, at most ``limit``; ``more`` says that a repeat takes the next ones.
"""

from __future__ import annotations

from flask import g
from spectree import Response

from service.api import BODY_ERRORS, bp, json_body, retry_job_puzzles, sessions, spec
from service.problems import Problem
from service.schemas import BulkIn, BulkOut, BulkSkipped, RetryIn
from store import job_ends, jobs
from store.models import CANCELLED, COMPLETED, QUEUED, RUNNING, Job

# The statuses in which each action can change a job.
APPLIES = {"cancel": (QUEUED, RUNNING), "retry": (RUNNING, COMPLETED, CANCELLED),
           "delete": (COMPLETED, CANCELLED)}


@bp.post("/bulk")
@spec.validate(json=BulkIn, resp=Response(HTTP_200=BulkOut, **BODY_ERRORS), skip_validation=True,
               tags=["jobs"])
def bulk():
    """Cancel, retry or delete the client's jobs that match `status` and `label` (at most `limit`,
    oldest first); each job as its own endpoint would, the ones it cannot change listed with why."""
    body = json_body(BulkIn)
    statuses = [st for st in APPLIES[body.action] if body.status in (None, st)]
    with sessions() as s:
        found = jobs.matching_jobs(s, g.owner, statuses, body.label, body.limit + 1) if statuses else []
    done: list[str] = []
    skipped: list[BulkSkipped] = []
    for job in found[:body.limit]:
        reason = _act(body.action, job)
        if reason is None:
            done.append(job.id)
        else:
            skipped.append(BulkSkipped(id=job.id, reason=reason))
    return BulkOut(action=body.action, done=done, skipped=skipped, more=len(found) > body.limit)


def _act(action: str, job: Job) -> str | None:
    """The action on one job; None once done, else why it was left."""
    try:
        if action == "retry":
            return None if retry_job_puzzles(job.id, RetryIn()) else "no failed or cancelled puzzles"
        with sessions() as s, s.begin():
            row = s.get(Job, job.id)
            if row is None:
                return "deleted meanwhile"
            if action == "cancel":
                job_ends.cancel_job(s, row)
                s.refresh(row)
                return None if row.status == CANCELLED else f"already {row.status}"
            unfinished = job_ends.delete_job(s, row)
            return None if unfinished is None else f"{unfinished}; cancel it first"
    except Problem as exc:
        return exc.detail
