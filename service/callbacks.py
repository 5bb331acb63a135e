"""/api/v1 routes of job callbacks: a client's signing secret, a job's deliveries and a test delivery
(docs/API.md, "Callbacks"). The deliveries themselves are made and sent by the workers
(worker.webhooks); a test delivery is sent by the request itself (store.sample_delivery), within
WEBHOOK_TIMEOUT, so its answer says what happened."""

from __future__ import annotations

from flask import g
from spectree import Response

from service import auth, settings
from service.api import BODY_ERRORS, ERRORS, bp, check_callback, job_or_404, snapshot, spec
from service.bodies import read_json
from service.problems import Problem, invalid
from service.schemas import (
    AttemptOut,
    DeliveryList,
    DeliveryOut,
    WebhookSecretOut,
    WebhookTestIn,
    WebhookTestOut,
)
from store import deliveries, sample_delivery, webhooks
from store.bookkeeping import Delivery, DeliveryAttempt
from store.models import iso_time, now


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


@bp.post("/webhooks/test")
@spec.validate(json=WebhookTestIn, resp=Response(HTTP_200=WebhookTestOut, **BODY_ERRORS),
               skip_validation=True, tags=["callbacks"])
def test_delivery():
    """Send a sample callback (a completed job's summary marked `"test": true`, delivery id 0,
    `X-Puzzle-Queue-Test: true`) to `callback_url` once, checked against the allow-list and signed
    with the requesting client's secret as a job's delivery is, and say what came back: 200 with
    the status or the error, whatever the URL answered. A URL a job could not name is 422 naming
    `callback_url`; nothing is stored or retried."""
    body = read_json()
    if not isinstance(body, dict):
        raise Problem(400, "Bad Request", f"the body must be a JSON object, not a {type(body).__name__}")
    url = body.get("callback_url")
    errors = [{"index": None, "field": name, "message": "not a field of a test delivery (only callback_url)"}
              for name in sorted(set(body) - {"callback_url"})]
    if not isinstance(url, str):
        errors.insert(0, {"index": None, "field": "callback_url",
                          "message": "give the URL to try as a string" if url is None else
                          f"a callback_url is a string, not {type(url).__name__}"})
    if errors or not isinstance(url, str):
        raise invalid(errors)
    check_callback(url)
    config = settings().webhooks
    sent, outcome = sample_delivery.send(config, auth.submitter(g.owner), url, now())
    return WebhookTestOut(callback_url=url, delivered=outcome.accepted, status=outcome.status,
                          error=outcome.error, ms=round(outcome.ms, 3),
                          delivery_id=sample_delivery.DELIVERY_ID, body=sent.decode())
