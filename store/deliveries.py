"""Deliveries of job callbacks in SQL: made when a job with a ``callback_url`` is found ended, handed
to a task when due, claimed by one attempt at a time, and each attempt's outcome recorded.

Terms (delivery, arm, due, claim): docs/glossary.md. A job is found ended by its row alone
(callback_url, finished_at), so no write that ends a job does anything more. The sweep publishes
a due delivery and moves its next attempt a lease on, so a message lost with its worker is
published again after the lease. The claim is the task's conditional UPDATE of ``attempts`` from
the number it was published with (of two copies of one message, one attempt runs), committed
before the request is sent with the attempt's row already saying it was lost (LOST): a worker
killed mid-request leaves that row, and the outcome replaces it once the request ends. The sweep
gives up (fails) a due delivery whose retry window (WEBHOOK_RETRY_SECONDS after its job ended)
has passed, whether its last attempt was recorded or lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import exists, select, update
from sqlalchemy.orm import Session

from store.bookkeeping import Delivery, DeliveryAttempt
from store.db import changed_rows
from store.jobs import describe_job
from store.models import CANCELLED, COMPLETED, Job

DUE, DELIVERED, FAILED = "due", "delivered", "failed"
ENDED = (COMPLETED, CANCELLED)
BATCH = 1000  # jobs armed, or deliveries published, per sweep; the next sweep takes the rest
LOST = "no outcome recorded: the attempt's worker was lost before it ended"
GIVEN_UP = "given up: not accepted within WEBHOOK_RETRY_SECONDS of the job's end"


@dataclass(frozen=True)
class Outcome:
    """What one attempt came to: an HTTP status, or the error that kept one from coming back."""

    status: int | None
    error: str | None
    ms: float

    @property
    def accepted(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def arm(s: Session, t: datetime, retry_seconds: float) -> int:
    """Make the deliveries of the jobs with a callback that ended within ``retry_seconds`` and have
    none for that ending; returns how many. Of two sweeps at once, the second's flush fails on the
    unique (job, ending) and its transaction makes nothing."""
    owed = ~exists().where(Delivery.job_id == Job.id, Delivery.ended_at == Job.finished_at)
    rows = s.execute(select(Job.id, Job.callback_url, Job.finished_at)
                     .where(Job.callback_url.is_not(None),
                            Job.finished_at >= t - timedelta(seconds=retry_seconds),
                            Job.status.in_(ENDED), owed)
                     .order_by(Job.finished_at).limit(BATCH)).all()
    for job_id, url, ended_at in rows:
        state = describe_job(s, None, job_id)
        if state is None or state.status not in ENDED:  # deleted or retried since the first read
            continue
        body = json.dumps(state.summary(), separators=(",", ":"))
        s.add(Delivery(job_id=job_id, ended_at=ended_at, url=url, body=body, state=DUE, attempts=0,
                       next_attempt_at=t, created_at=t))
    s.flush()
    return len(rows)


def take_due(s: Session, t: datetime, lease: float) -> list[tuple[int, int]]:
    """The deliveries whose attempt is due, as (id, attempts) for their tasks, each next attempt moved
    ``lease`` seconds on (see docs/glossary.md)."""
    rows = s.execute(select(Delivery.id, Delivery.attempts)
                     .where(Delivery.state == DUE, Delivery.next_attempt_at <= t)
                     .order_by(Delivery.next_attempt_at).limit(BATCH).with_for_update(skip_locked=True)).all()
    if rows:
        s.execute(update(Delivery).where(Delivery.id.in_([r.id for r in rows]))
                  .values(next_attempt_at=t + timedelta(seconds=lease))
                  .execution_options(synchronize_session=False))
    return [(r.id, r.attempts) for r in rows]


def claim(s: Session, delivery_id: int, attempts: int, t: datetime, hold: float) -> Delivery | None:
    """Take the attempt after ``attempts`` of a due delivery, due again ``hold`` seconds on should its
    outcome never be recorded, and log it as LOST until it is (None: another copy of the message took
    it, or the delivery is no longer due)."""
    mine = (Delivery.id == delivery_id, Delivery.state == DUE, Delivery.attempts == attempts)
    taken = changed_rows(s, update(Delivery).where(*mine)
                         .values(attempts=attempts + 1, next_attempt_at=t + timedelta(seconds=hold),
                                 last_status=None, last_error=LOST))
    if not taken:
        return None
    s.add(DeliveryAttempt(delivery_id=delivery_id, number=attempts + 1, at=t, status=None, error=LOST,
                          ms=0.0))
    return s.get(Delivery, delivery_id, populate_existing=True)


def give_up(s: Session, t: datetime, retry_seconds: float) -> int:
    """Fail the due deliveries whose retry window has passed (see the glossary); returns how many."""
    return changed_rows(s, update(Delivery)
                        .where(Delivery.state == DUE, Delivery.next_attempt_at <= t,
                               Delivery.ended_at < t - timedelta(seconds=retry_seconds))
                        .values(state=FAILED, next_attempt_at=None, last_error=GIVEN_UP))


def owner_of(s: Session, delivery: Delivery) -> str | None:
    """The owner of the delivery's job (whose secret signs it); None if the job is gone."""
    return s.scalar(select(Job.owner).where(Job.id == delivery.job_id))


def record(s: Session, delivery_id: int, number: int, t: datetime, outcome: Outcome,
           next_at: datetime | None) -> bool:
    """Log the outcome of attempt ``number`` in its row and move the delivery on: delivered if
    accepted, else due again at ``next_at``, or failed when None. False: the attempt is no longer
    the delivery's last claim."""
    if outcome.accepted:
        state, next_attempt = DELIVERED, None
    else:
        state, next_attempt = (FAILED, None) if next_at is None else (DUE, next_at)
    moved = changed_rows(s, update(Delivery)
                         .where(Delivery.id == delivery_id, Delivery.attempts == number,
                                Delivery.state == DUE)
                         .values(state=state, next_attempt_at=next_attempt, last_status=outcome.status,
                                 last_error=outcome.error, delivered_at=t if state == DELIVERED else None))
    if moved:
        changed_rows(s, update(DeliveryAttempt)
                     .where(DeliveryAttempt.delivery_id == delivery_id, DeliveryAttempt.number == number)
                     .values(status=outcome.status, error=outcome.error, ms=outcome.ms))
    return bool(moved)


def of_job(s: Session, job_id: str) -> list[tuple[Delivery, list[DeliveryAttempt]]]:
    """The job's deliveries, oldest first, each with its attempts in order."""
    found = list(s.scalars(select(Delivery).where(Delivery.job_id == job_id).order_by(Delivery.id)))
    attempts: dict[int, list[DeliveryAttempt]] = {d.id: [] for d in found}
    if found:
        for a in s.scalars(select(DeliveryAttempt).where(DeliveryAttempt.delivery_id.in_(attempts))
                           .order_by(DeliveryAttempt.delivery_id, DeliveryAttempt.number)):
            attempts[a.delivery_id].append(a)
    return [(d, attempts[d.id]) for d in found]
