"""A test delivery through the client (client.api, client.deliveries): `Client.test_webhook` and
`puzzle-queue test-webhook URL` against a served app with tokens and callbacks on for 127.0.0.1
(the API sends the sample itself: no worker is needed); and the deliveries' text."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator

import pytest

from client import Client, InvalidRequest, valid_signature
from client.deliveries import trial_text
from service import create_app
from store.models import Base
from store.settings import Settings
from tests.callback_server import CallbackServer
from tests.client.test_cli import cli
from tests.liveserver import serving

TOKEN = "al1ce-token"


@pytest.fixture
def url(tmp_path) -> Iterator[str]:
    app = create_app(Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'hooks.db'}", REDIS_URL=None,
                                       BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                       API_TOKENS=f"alice:{TOKEN}", WEBHOOK_ALLOWED_HOSTS=("127.0.0.1",),
                                       WEBHOOK_SECRET="served-secret", WEBHOOK_TIMEOUT=1.0))
    Base.metadata.create_all(app.extensions["engine"])
    with serving(app) as served:
        yield served
    app.extensions["engine"].dispose()


def test_the_client_sends_a_test_delivery_its_receiver_can_verify(url):
    with Client(url, token=TOKEN) as c, CallbackServer() as server:
        answer = c.test_webhook(server.url("/in"))
        secret = c.webhook_secret()
    assert answer["delivered"] and answer["status"] == 200 and answer["delivery_id"] == 0
    [got] = server.received
    assert valid_signature(secret, got.body, got.headers["X-Signature"])
    assert got.body.decode() == answer["body"] and json.loads(got.body)["test"] is True
    stamp = got.headers["X-Puzzle-Queue-Timestamp"]
    mac = hmac.new(secret.encode(), f"{stamp}.0.".encode() + got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Puzzle-Queue-Signature"] == f"v1={mac}"


def test_a_url_off_the_allow_list_is_refused_naming_callback_url(url):
    with Client(url, token=TOKEN) as c, pytest.raises(InvalidRequest) as err:
        c.test_webhook("http://example.com/hook")
    assert err.value.problem["errors"][0]["field"] == "callback_url"
    shown = cli(url, "--token", TOKEN, "test-webhook", "http://example.com/hook")
    assert shown.returncode == 2 and "callback_url" in shown.stderr and "example.com" in shown.stderr


def test_the_command_says_what_came_back_and_fails_unless_delivered(url):
    with CallbackServer() as server:
        ok = cli(url, "--token", TOKEN, "test-webhook", server.url("/in"))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"delivered: {server.url('/in')} answered 200 in ")
    with CallbackServer(answers=[(500, {})]) as server:
        refused = cli(url, "--token", TOKEN, "test-webhook", "--json", server.url())
    assert refused.returncode == 1 and json.loads(refused.stdout)["status"] == 500


def test_the_trial_text_names_the_outcome():
    sent = {"callback_url": "http://h/x", "delivered": False, "status": None, "error": "connection refused",
            "ms": 3.2}
    assert trial_text(sent) == "not delivered: http://h/x no answer in 3ms (connection refused)"
    assert trial_text({**sent, "delivered": True, "status": 204, "error": None}) == \
        "delivered: http://h/x answered 204 in 3ms"
    assert trial_text({**sent, "status": 503, "error": "answered 503"}) == \
        "not delivered: http://h/x answered 503 in 3ms"
