"""Job callbacks end to end in one process, on SQLite and on PostgreSQL: callback_url checked on
POST /jobs, the sweep making and publishing deliveries, the task's attempts against a local server,
GET /webhook-secret and GET /jobs/{id}/deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from datetime import timedelta

import pytest

from store import deliveries, webhooks
from store.models import now
from tests.callback_server import CallbackServer
from tests.service.conftest import row_counts, run_published, runtime_of
from tests.services import database_url, postgres_url  # noqa: F401  both databases
from worker import webhooks as sending
from worker.chunk import run_chunk

SECRET = "server-secret"
ITEMS = [{"kind": "toy", "puzzle": "12"}, {"kind": "toy", "puzzle": "3"}]


@pytest.fixture
def app(make_app, toy):
    app = make_app(WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",), WEBHOOK_SECRET=SECRET, WEBHOOK_FIRST_RETRY=2.0)
    yield app
    app.extensions["engine"].dispose()  # the next test's drop_all must not wait for these


@pytest.fixture
def server():
    with CallbackServer() as running:
        yield running


def published(app) -> list[int]:
    return [i for chunk in app.extensions["publisher"].chunks for i in chunk]


def finished_job(app, client, url: str) -> dict:
    """A job with a callback to ``url``, run to the end by the in-process worker."""
    r = client.post("/api/v1/jobs", json={"puzzles": ITEMS, "callback_url": url})
    assert r.status_code == 202, r.json
    run_published(app)
    return client.get(f"/api/v1/jobs/{r.json['id']}").json


def swept(app) -> list[tuple[int, int]]:
    """What one sweep publishes."""
    publisher = app.extensions["publisher"]
    publisher.deliveries.clear()
    sending.sweep(runtime_of(app))
    return list(publisher.deliveries)


def refused(client, body: dict) -> dict:
    r = client.post("/api/v1/jobs", json=body)
    assert r.status_code == 422, r.json
    return r.json["errors"][0]


def test_with_callbacks_off_a_callback_url_is_refused_naming_it_and_nothing_is_stored(make_app, toy):
    app = make_app()
    error = refused(app.test_client(), {"puzzles": ITEMS, "callback_url": "http://127.0.0.1:9/x"})
    assert error["field"] == "callback_url" and "off" in error["message"]
    assert row_counts(app) == (0, 0, 0)
    assert app.test_client().get("/api/v1/webhook-secret").status_code == 404


@pytest.mark.parametrize("url", ["http://192.0.2.1/x", "http://localhost:8000/x", "ftp://127.0.0.1/x",
                                 "127.0.0.1/x", 5, ""])
def test_a_callback_url_off_the_allow_list_or_not_http_is_refused_and_nothing_is_stored(app, client, url):
    error = refused(client, {"puzzles": ITEMS, "callback_url": url})
    assert error["field"] == "callback_url" and error["index"] is None
    assert row_counts(app) == (0, 0, 0)


@pytest.mark.parametrize("hosts", [(), ("127.0.0.1",)])
def test_validate_checks_the_callback_url_as_a_post_does(make_app, toy, hosts):
    app = make_app(WEBHOOK_ALLOWED_HOSTS=hosts, WEBHOOK_SECRET=SECRET)
    client = app.test_client()
    for url in ("file:///etc/passwd", "http://192.0.2.1/x"):
        r = client.post("/api/v1/validate", json={"puzzles": ITEMS, "callback_url": url})
        assert r.status_code == 422, r.json
        [error] = r.json["errors"]
        assert error["field"] == "callback_url" and error["index"] is None
        assert error == refused(client, {"puzzles": ITEMS, "callback_url": url})
    allowed = client.post("/api/v1/validate", json={"puzzles": ITEMS, "callback_url": "http://127.0.0.1:9/x"})
    assert allowed.status_code == (200 if hosts else 422)
    assert row_counts(app) == (0, 0, 0)


def test_each_client_learns_its_own_secret(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b", WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",),
                   WEBHOOK_SECRET=SECRET)
    client = app.test_client()
    got = {name: client.get("/api/v1/webhook-secret", headers={"Authorization": f"Bearer {token}"}).json
           for name, token in (("alice", "secret-a"), ("bob", "secret-b"))}
    assert got["alice"]["secret"] == webhooks.client_secret(SECRET, "alice")
    assert got["bob"]["secret"] == webhooks.client_secret(SECRET, "bob") != got["alice"]["secret"]
    assert got["alice"]["header"] == "X-Signature"
    assert client.get("/api/v1/webhook-secret").status_code == 401


def test_a_job_that_ends_is_posted_once_signed_with_its_summary(app, client, server):
    job = finished_job(app, client, server.url())
    assert job["status"] == "completed"
    [(delivery_id, attempts)] = swept(app)
    assert attempts == 0 and swept(app) == []  # made once, and published again only after its lease
    sent_after = int(time.time())
    outcome = sending.deliver(runtime_of(app), delivery_id, 0)
    assert outcome is not None and outcome.accepted
    assert sending.deliver(runtime_of(app), delivery_id, 0) is None  # a second copy of the message
    [got] = server.received
    secret = client.get("/api/v1/webhook-secret").json["secret"]
    expected = hmac.new(secret.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Signature"] == f"sha256={expected}"
    # The timestamped signature: the attempt's time and the delivery's id signed with the body.
    stamp = got.headers["X-Puzzle-Queue-Timestamp"]
    assert sent_after <= int(stamp) <= time.time()
    assert got.headers["X-Puzzle-Queue-Delivery"] == got.headers["X-Delivery-Id"] == str(delivery_id)
    signed = f"{stamp}.{delivery_id}.".encode() + got.body
    assert got.headers["X-Puzzle-Queue-Signature"] == \
        "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    assert json.loads(got.body) == client.get(f"/api/v1/jobs/{job['id']}").json
    [shown] = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"]
    assert shown["state"] == "delivered" and shown["url"] == server.url()
    assert shown["ended_at"] == job["finished_at"] and shown["next_attempt_at"] is None
    assert [(a["number"], a["status"], a["error"]) for a in shown["attempts"]] == [(1, 200, None)]
    assert swept(app) == []


def test_a_failed_attempt_is_retried_after_its_wait(app, client, server):
    server.answers.append((500, {}))
    job = finished_job(app, client, server.url())
    [(delivery_id, _)] = swept(app)
    assert not sending.deliver(runtime_of(app), delivery_id, 0).accepted
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert shown["state"] == "due" and shown["attempts"][0]["status"] == 500
    assert swept(app) == []  # WEBHOOK_FIRST_RETRY (2 s: slack for a loaded machine) has not passed
    time.sleep(2.1)
    assert swept(app) == [(delivery_id, 1)]
    assert sending.deliver(runtime_of(app), delivery_id, 1).accepted
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert shown["state"] == "delivered" and [a["status"] for a in shown["attempts"]] == [500, 200]
    assert len(server.received) == 2


def test_a_delivery_is_given_up_past_the_retry_window(make_app, toy, server):
    app = make_app(WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",), WEBHOOK_SECRET=SECRET, WEBHOOK_RETRY_SECONDS=2.0)
    server.answers.append((500, {}))
    client = app.test_client()
    job = finished_job(app, client, server.url())
    [(delivery_id, _)] = swept(app)
    time.sleep(2.0)
    sending.deliver(runtime_of(app), delivery_id, 0)
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert shown["state"] == "failed" and shown["next_attempt_at"] is None
    assert swept(app) == []


def test_an_attempt_whose_worker_was_lost_is_recorded_and_made_again_after_its_back_off(app, client, server):
    job = finished_job(app, client, server.url())
    [(delivery_id, _)] = swept(app)
    config = app.extensions["settings"].webhooks
    hold = sending.hold(config, 1)
    assert hold >= config.webhook_timeout + config.webhook_first_retry and hold >= sending.lease(config)
    with app.extensions["sessions"]() as s, s.begin():  # claimed, then the worker died before the POST
        assert deliveries.claim(s, delivery_id, 0, now(), hold) is not None
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert shown["state"] == "due"
    assert [(a["number"], a["status"], a["error"]) for a in shown["attempts"]] == [(1, None, deliveries.LOST)]
    with app.extensions["sessions"]() as s, s.begin():
        assert deliveries.take_due(s, now(), hold) == []
        assert deliveries.take_due(s, now() + timedelta(seconds=hold + 1), hold) == [(delivery_id, 1)]
    assert server.received == []
    assert sending.deliver(runtime_of(app), delivery_id, 1).accepted
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert [(a["number"], a["status"]) for a in shown["attempts"]] == [(1, None), (2, 200)]


def test_a_trickling_receiver_is_cut_at_the_deadline_and_the_attempt_recorded_as_failed(make_app, toy):
    app = make_app(WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",), WEBHOOK_SECRET=SECRET, WEBHOOK_TIMEOUT=1.5)
    client = app.test_client()
    with CallbackServer(trickle=0.5) as slow:
        job = finished_job(app, client, slow.url())
        [(delivery_id, _)] = swept(app)
        start = time.monotonic()
        outcome = sending.deliver(runtime_of(app), delivery_id, 0)
        took = time.monotonic() - start
    assert outcome is not None and outcome.status is None and took < 6.0  # the whole answer: about 19 s
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    [attempt] = shown["attempts"]
    assert attempt["status"] is None and "within the attempt's 1.5 s" in attempt["error"]
    assert shown["state"] == "due" and shown["next_attempt_at"] is not None
    app.extensions["engine"].dispose()


def test_a_lost_attempt_past_the_retry_window_is_given_up(make_app, toy, server):
    app = make_app(WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",), WEBHOOK_SECRET=SECRET, WEBHOOK_RETRY_SECONDS=1.0)
    client = app.test_client()
    job = finished_job(app, client, server.url())
    [(delivery_id, _)] = swept(app)
    with app.extensions["sessions"]() as s, s.begin():
        deliveries.claim(s, delivery_id, 0, now(), 0.5)
    time.sleep(1.1)
    assert swept(app) == []
    shown = client.get(f"/api/v1/jobs/{job['id']}/deliveries").json["items"][0]
    assert shown["state"] == "failed" and shown["next_attempt_at"] is None
    assert [a["error"] for a in shown["attempts"]] == [deliveries.LOST]
    assert server.received == []
    app.extensions["engine"].dispose()


def test_a_cancelled_job_is_posted_and_a_retried_one_again_when_it_ends_again(app, client, server):
    r = client.post("/api/v1/jobs", json={"puzzles": ITEMS, "callback_url": server.url()})
    job_id = r.json["id"]
    client.post(f"/api/v1/jobs/{job_id}/cancel")
    [(first, _)] = swept(app)
    sending.deliver(runtime_of(app), first, 0)
    assert json.loads(server.received[0].body)["status"] == "cancelled"
    app.extensions["publisher"].chunks.clear()
    assert client.post(f"/api/v1/jobs/{job_id}/retry").status_code == 202
    run_chunk(runtime_of(app), published(app), "w")
    [(second, _)] = swept(app)
    sending.deliver(runtime_of(app), second, 0)
    assert json.loads(server.received[1].body)["status"] == "completed"
    shown = client.get(f"/api/v1/jobs/{job_id}/deliveries").json["items"]
    assert [d["state"] for d in shown] == ["delivered", "delivered"]


def test_another_clients_deliveries_are_not_found(make_app, toy, server):
    app = make_app(API_TOKENS="alice:secret-a,bob:secret-b", WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",),
                   WEBHOOK_SECRET=SECRET)
    client = app.test_client()
    r = client.post("/api/v1/jobs", json={"puzzles": ITEMS, "callback_url": server.url()},
                    headers={"Authorization": "Bearer secret-a"})
    path = f"/api/v1/jobs/{r.json['id']}/deliveries"
    assert client.get(path, headers={"Authorization": "Bearer secret-a"}).json == {"items": []}
    assert client.get(path, headers={"Authorization": "Bearer secret-b"}).status_code == 404
