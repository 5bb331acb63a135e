"""A test delivery (POST /api/v1/webhooks/test): a sample of a job's callback body sent once to a
URL through the same allow-list check, address pinning, deadline and signing as a real delivery
(store.callback_http, store.webhooks), so a receiver can be tried before a job names it.

Nothing is stored and nothing is retried: the answer is the one attempt's outcome. Its delivery id
is 0 (a real delivery's is 1 or more) and it carries ``X-Puzzle-Queue-Test: true``, so a receiver
can tell it from a job's and keep it out of its records. Sent from the calling process (the API's),
where a real delivery leaves from a worker: where the two run on different networks, a test that
passes shows the URL, allow-list and signature right, not the workers' route to it.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

from store import webhooks
from store.callback_http import post
from store.deliveries import Outcome
from store.models import COMPLETED, PUZZLE_STATUSES, SOLVED, iso_time
from store.webhook_settings import Webhooks

DELIVERY_ID = 0
TEST_HEADER = "X-Puzzle-Queue-Test"


def sample_body(at: datetime) -> bytes:
    """A job's callback body as a completed job of one solved puzzle sends it, marked ``test``."""
    job = {"id": "test", "status": COMPLETED, "label": "webhook test",
           "created_at": iso_time(at - timedelta(seconds=1)),
           "started_at": iso_time(at - timedelta(seconds=1)),
           "finished_at": iso_time(at), "total": 1,
           "counts": {status: int(status == SOLVED) for status in PUZZLE_STATUSES}, "progress": 1.0,
           "estimated_seconds_total": 0.001, "estimated_seconds_done": 0.001, "eta_seconds": 0.0,
           "eta_range": [0.0, 0.0], "test": True}
    return json.dumps(job, separators=(",", ":")).encode()


def send(config: Webhooks, owner: str, url: str, at: datetime) -> tuple[bytes, Outcome]:
    """POST the sample to ``url`` signed with ``owner``'s secret; the body sent and what came of it
    (a URL the allow-list refuses comes back as an error, never sent)."""
    body = sample_body(at)
    secret = webhooks.client_secret(config.webhook_secret, owner)
    headers = {**webhooks.delivery_headers(secret, int(time.time()), DELIVERY_ID, 1, body),
               TEST_HEADER: "true"}
    return body, post(url, body, headers, config.webhook_timeout, config.webhook_allowed_hosts)
