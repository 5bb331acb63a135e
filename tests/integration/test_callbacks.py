"""Job callbacks on the real stack: PostgreSQL, Redis and a `celery worker` whose reaper turn sweeps
the ended jobs and whose task POSTs to a local server (the allowed host 127.0.0.1)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid

import pytest

from tests.callback_server import CallbackServer
from tests.services import Stack, Workers, app_for, fresh_postgres, fresh_redis, migrate, service_env

pytestmark = pytest.mark.integration

ITEMS = [{"kind": "toy", "puzzle": "12"}, {"kind": "toy", "puzzle": "345"}]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One worker of both lanes and one of the callbacks' queue, callbacks on for 127.0.0.1, quick
    sweeps and a short first retry."""
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        env = service_env(db_url, redis_url, f"callbacks-{uuid.uuid4().hex[:8]}",
                          WEBHOOK_ALLOWED_HOSTS="127.0.0.1", WEBHOOK_SECRET="integration-secret",
                          WEBHOOK_FIRST_RETRY="0.5", WEBHOOK_TIMEOUT="2", REAP_INTERVAL="0.3")
        workers = Workers(env, tmp_path_factory.mktemp("callback-workers"))
        try:
            workers.start(wait=False)
            workers.start_callbacks(wait=False)
            workers.ready()
            yield Stack(app_for(env), workers)
        finally:
            workers.stop()


def delivered(stack: Stack, job_id: str, timeout: float = 30) -> dict:
    """The job's one delivery, once it is no longer due."""
    deadline = time.monotonic() + timeout
    while True:
        items = stack.client.get(f"/api/v1/jobs/{job_id}/deliveries").json["items"]
        if items and items[0]["state"] != "due":
            return items[0]
        if time.monotonic() > deadline:
            logs = "\n".join(p.log.read_text()[-3000:] for p in stack.workers.procs)  # type: ignore[attr-defined]
            raise AssertionError(f"no delivery of {job_id} in {timeout} s: {items}\n{logs}")
        time.sleep(0.1)


def submitted(stack: Stack, url: str) -> str:
    r = stack.client.post("/api/v1/jobs", json={"puzzles": ITEMS, "callback_url": url})
    assert r.status_code == 202, r.json
    return r.json["id"]


def test_a_job_that_ends_is_posted_once_with_a_valid_signature(stack, toy_kind):
    with CallbackServer() as server:
        job_id = submitted(stack, server.url())
        job = stack.wait(job_id)
        shown = delivered(stack, job_id)
        time.sleep(1.0)  # a few more sweeps: nothing is sent twice
    assert shown["state"] == "delivered" and [a["status"] for a in shown["attempts"]] == [200]
    [got] = server.received
    secret = stack.client.get("/api/v1/webhook-secret").json["secret"]
    assert got.headers["X-Signature"] == "sha256=" + hmac.new(secret.encode(), got.body,
                                                              hashlib.sha256).hexdigest()
    assert json.loads(got.body) == job and job["status"] == "completed"


def test_a_callback_answering_500_is_retried_until_accepted(stack, toy_kind):
    with CallbackServer(answers=[(500, {})]) as server:
        job_id = submitted(stack, server.url())
        stack.wait(job_id)
        shown = delivered(stack, job_id)
    assert shown["state"] == "delivered"
    assert [(a["number"], a["status"]) for a in shown["attempts"]] == [(1, 500), (2, 200)]
    assert len(server.received) == 2 and server.received[0].body == server.received[1].body


def first_outcome(stack: Stack, job_id: str, timeout: float = 30) -> dict:
    """The job's first delivery attempt, once its outcome is recorded."""
    deadline = time.monotonic() + timeout
    while True:
        items = stack.client.get(f"/api/v1/jobs/{job_id}/deliveries").json["items"]
        attempts = items[0]["attempts"] if items else []
        if attempts and not (attempts[0]["error"] or "").startswith("no outcome"):
            return attempts[0]
        assert time.monotonic() < deadline, items
        time.sleep(0.1)


def test_a_trickling_receiver_is_cut_at_the_deadline_by_a_worker_that_solves_nothing(stack, toy_kind):
    with CallbackServer(trickle=0.5) as slow:
        job_id = submitted(stack, slow.url())
        stack.wait(job_id)
        attempt = first_outcome(stack, job_id)
    assert attempt["status"] is None and "within the attempt's 2 s" in attempt["error"]
    assert 1900 < attempt["ms"] < 6000
    solving, callbacks = (p.log.read_text() for p in stack.workers.procs)  # type: ignore[attr-defined]
    taken = "puzzle_queue.deliver_callback["  # a task received, as Celery logs it
    assert taken not in solving and taken in callbacks
