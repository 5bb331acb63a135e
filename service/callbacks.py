"""/api/v1 routes of job callbacks: a client's signing secret and a job's deliveries (docs/API.md,
"Callbacks"). The deliveries themselves are made and sent by the workers (worker.webhooks)."""

from __future__ import annotations

from flask import g
from spectree import Response

from service import auth, settings
from service.api import ERRORS, bp, job_or_404, snapshot, spec
from service.problems import Problem
from service.schemas import AttemptOut, DeliveryList, DeliveryOut, WebhookSecretOut
from store import deliveries, webhooks
from store.models import Delivery, DeliveryAttempt, iso_time


@bp.get("/webhook-secret")
@spec.validate(resp=Response(HTTP_200=WebhookSecretOut, **ERRORS), tags=["callbacks"])
def webhook_secret():
    """The key the requesting client's callbacks are signed with: `X-Signature` is
    `sha256=` and the hex HMAC-SHA256 of the exact body under it. 404 when callbacks are off."""
    config = settings().webhooks
    if not config.enabled:
        raise Problem(404, "Not Found", "callbacks are off on this service (WEBHOOK_ALLOWED_HOSTS is empty)")
    return WebhookSecretOut(secret=webhooks.client_secret(config.webhook_secret, auth.submitter(g.owner)))


@bp.get("/jobs/<job_id>/deliveries")
@spec.validate(resp=Response(HTTP_200=DeliveryList, **ERRORS), tags=["callbacks"])
def list_deliveries(job_id: str):
    """The deliveries of the job's callback, one per time the job ended, each with every attempt."""
    with snapshot() as s:
        job = job_or_404(s, job_id)
        return DeliveryList(items=[_delivery_out(d, tries) for d, tries in deliveries.of_job(s, job.id)])


def _delivery_out(d: Delivery, tries: list[DeliveryAttempt]) -> DeliveryOut:
    attempts = [AttemptOut(number=a.number, at=iso_time(a.at) or "", status=a.status, error=a.error,
                           ms=round(a.ms, 3)) for a in tries]
    return DeliveryOut(id=d.id, url=d.url, state=d.state,
                       ended_at=iso_time(d.ended_at) or "", attempts=attempts,
                       next_attempt_at=iso_time(d.next_attempt_at), delivered_at=iso_time(d.delivered_at))
