"""A test delivery (POST /api/v1/webhooks/test, service.callbacks, store.sample_delivery): a sample
summary sent once through the allow-list and signed with the requesting client's secret as a job's
delivery is, the outcome in the answer (an error status or no answer is still a 200 saying so); a
URL a job could not name, or a bad body, is a 4xx naming the field; nothing is stored."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from store import webhooks
from tests.callback_server import CallbackServer
from tests.service.conftest import row_counts
from tests.service.test_callbacks import SECRET

ALICE = {"Authorization": "Bearer secret-a"}


@pytest.fixture
def app(make_app, toy):
    app = make_app(API_TOKENS="alice:secret-a", WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",), WEBHOOK_SECRET=SECRET,
                   WEBHOOK_TIMEOUT=1.0)
    yield app
    app.extensions["engine"].dispose()


def test_a_test_delivery_arrives_signed_with_the_clients_secret_and_says_what_came_back(app):
    client = app.test_client()
    before = row_counts(app)
    with CallbackServer() as server:
        r = client.post("/api/v1/webhooks/test", json={"callback_url": server.url("/hook?x=1")},
                        headers=ALICE)
    assert r.status_code == 200, r.json
    assert (r.json["delivered"], r.json["status"], r.json["error"]) == (True, 200, None)
    assert r.json["delivery_id"] == 0
    [got] = server.received
    assert got.path == "/hook?x=1" and got.body.decode() == r.json["body"]
    secret = webhooks.client_secret(SECRET, "alice")
    body_mac = hmac.new(secret.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Signature"] == f"sha256={body_mac}"
    stamp = got.headers["X-Puzzle-Queue-Timestamp"]
    signed = f"{stamp}.0.".encode() + got.body
    assert got.headers["X-Puzzle-Queue-Signature"] == "v1=" + hmac.new(secret.encode(), signed,
                                                                       hashlib.sha256).hexdigest()
    assert got.headers["X-Puzzle-Queue-Test"] == "true" and got.headers["X-Delivery-Id"] == "0"
    sample = json.loads(got.body)
    assert sample["test"] is True and sample["status"] == "completed" and sample["counts"]["solved"] == 1
    assert row_counts(app) == before, "nothing stored"


def test_a_receiver_that_refuses_or_does_not_answer_is_reported_not_a_failure_of_the_request(app):
    client = app.test_client()
    with CallbackServer(answers=[(503, {})]) as server:
        r = client.post("/api/v1/webhooks/test", json={"callback_url": server.url()}, headers=ALICE)
    assert r.status_code == 200 and (r.json["delivered"], r.json["status"]) == (False, 503)
    assert r.json["error"] == "answered 503"
    with CallbackServer() as server:
        closed = server.url()
    r = client.post("/api/v1/webhooks/test", json={"callback_url": closed}, headers=ALICE)
    assert r.status_code == 200 and r.json["delivered"] is False and r.json["status"] is None
    assert r.json["error"]


@pytest.mark.parametrize(("body", "field", "text"), [
    ({"callback_url": "http://example.com/hook"}, "callback_url", "not among this service's allowed"),
    ({"callback_url": "ftp://127.0.0.1/x"}, "callback_url", "http or https"),
    ({"callback_url": "http://u:p@127.0.0.1/x"}, "callback_url", "no user name or password"),
    ({"callback_url": 7}, "callback_url", "a string"),
    ({}, "callback_url", "give the URL"),
    ({"callback_url": "http://127.0.0.1/x", "url": "y"}, "url", "not a field"),
])
def test_a_url_a_job_could_not_name_is_a_422_naming_the_field(app, body, field, text):
    r = app.test_client().post("/api/v1/webhooks/test", json=body, headers=ALICE)
    assert r.status_code == 422, r.json
    assert any(e["field"] == field and text in e["message"] for e in r.json["errors"]), r.json


def test_bad_bodies_and_missing_tokens_are_4xx(app, make_app, toy):
    client = app.test_client()
    assert client.post("/api/v1/webhooks/test", json={"callback_url": "http://127.0.0.1/"}).status_code == 401
    assert client.post("/api/v1/webhooks/test", data="x", headers=ALICE).status_code == 415
    assert client.post("/api/v1/webhooks/test", json=[1], headers=ALICE).status_code == 400
    off = make_app().test_client().post("/api/v1/webhooks/test", json={"callback_url": "http://127.0.0.1/"})
    assert off.status_code == 422 and "callbacks are off" in off.json["errors"][0]["message"]
