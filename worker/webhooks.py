"""Job callbacks in the workers: the sweep that makes and publishes due deliveries (run in the
reaper's turn, worker.reaper) and the delivery task's body (load by id, send, record).

Every step is a committed SQL row before anything leaves the process (store.deliveries): a delivery
is made before it is published, its attempt claimed and logged (as lost, until its outcome replaces
that) before the POST, and a worker lost on the way leaves the delivery due, published again once
its hold passes: the attempt's deadline and then its back-off, as if it had failed.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError

from store import deliveries, webhooks
from store.callback_http import post
from store.deliveries import Outcome
from store.models import aware, now
from store.webhook_settings import Webhooks
from worker.runtime import Runtime

log = logging.getLogger(__name__)


def lease(config: Webhooks) -> float:
    """Seconds a published attempt holds its delivery before the sweep publishes it again: room for
    a queue ahead of the task and for the attempt's own deadline."""
    return max(60.0, 4 * config.webhook_timeout)


def hold(config: Webhooks, number: int) -> float:
    """Seconds a claimed attempt ``number`` holds its delivery: its lease, and at least its deadline
    and the wait after it had it failed, so a lost attempt is followed no sooner than a failed one."""
    return max(lease(config), config.webhook_timeout + webhooks.retry_delay(
        number, config.webhook_first_retry, config.webhook_max_delay))


def sweep(runtime: Runtime) -> int:
    """Make the deliveries of the jobs ended since the last sweep, and publish those due; returns how
    many were published. Nothing while callbacks are off."""
    config = runtime.settings.webhooks
    if not config.enabled:
        return 0
    t = now()
    try:
        with runtime.sessions() as s, s.begin():
            deliveries.arm(s, t, config.webhook_retry_seconds)
            deliveries.give_up(s, t, config.webhook_retry_seconds)
            due = deliveries.take_due(s, t, lease(config))
    except IntegrityError:  # a sweep running late in another process made them first
        log.info("callbacks: another sweep armed the same jobs; the next sweep goes on")
        return 0
    if due:
        try:
            runtime.publisher.publish_deliveries(due)
        except Exception:  # they stay due in SQL: published again once the lease passes
            log.exception("callbacks: publishing %d delivery(ies) failed", len(due))
    return len(due)


def deliver(runtime: Runtime, delivery_id: int, attempts: int) -> Outcome | None:
    """Attempt ``attempts + 1`` of the delivery, unless another copy of the message took it (None)."""
    config = runtime.settings.webhooks
    with runtime.sessions() as s, s.begin():
        claimed = deliveries.claim(s, delivery_id, attempts, now(), hold(config, attempts + 1))
        owner = None if claimed is None else deliveries.owner_of(s, claimed)
        if claimed is None or owner is None:
            return None
        url, body, ended_at, number = claimed.url, claimed.body.encode(), claimed.ended_at, claimed.attempts
    secret = webhooks.client_secret(config.webhook_secret, owner)
    headers = webhooks.delivery_headers(secret, int(time.time()), delivery_id, number, body)
    outcome = post(url, body, headers, config.webhook_timeout, config.webhook_allowed_hosts)
    t = now()
    next_at = next_attempt(config, aware(ended_at), number, t)
    with runtime.sessions() as s, s.begin():
        deliveries.record(s, delivery_id, number, t, outcome, next_at)
    log.info("callback %d attempt %d to %s: %s", delivery_id, number, url,
             outcome.status if outcome.error is None else outcome.error)
    return outcome


def next_attempt(config: Webhooks, ended_at: datetime, attempts: int, t: datetime) -> datetime | None:
    """When the attempt after ``attempts`` failed ones is due; None once that is past
    WEBHOOK_RETRY_SECONDS after the job ended (the delivery is given up)."""
    at = t + timedelta(seconds=webhooks.retry_delay(attempts, config.webhook_first_retry,
                                                    config.webhook_max_delay))
    return at if at <= ended_at + timedelta(seconds=config.webhook_retry_seconds) else None
