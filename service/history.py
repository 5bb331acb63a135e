"""/api/v1 route of a job's history: its events, oldest first, a page at a time (docs/API.md,
"Events"; store.events)."""

from __future__ import annotations

from flask import request
from spectree import Response

from service import cursors
from service.api import ERRORS, bp, job_or_404, read_cursor, snapshot, spec
from service.schemas import EventList, EventOut, EventPageQuery
from store import events


@bp.get("/jobs/<job_id>/events")
@spec.validate(query=EventPageQuery, resp=Response(HTTP_200=EventList, **ERRORS), tags=["jobs"])
def list_events(job_id: str):
    """A job's events, oldest first, a page at a time: submitted, claimed (by which worker),
    handed on, moved between lanes, split, left a chunk, retried, finished (with what), ended.
    With `?index=`, those of one puzzle and of the job."""
    q: EventPageQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree
    with snapshot() as s:
        job = job_or_404(s, job_id)
        after = read_cursor(cursors.event_position, q.cursor)
        page, nxt = events.of_job(s, job, q.limit, after, q.index)
    return EventList(items=[EventOut.of(e) for e in page], next_cursor=cursors.of_event(nxt))
