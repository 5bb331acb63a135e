"""Callbacks through the client (client.api): a job's callback_url, the signature checked with
valid_signature, the deliveries read back; on the embedded service (SQLite, filesystem broker, a
worker process), with callbacks on for 127.0.0.1 and with them off."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Iterator

import pytest

from client import Client, InvalidRequest, NotFound, valid_signature, valid_timestamped_signature
from store import webhooks
from tests.callback_server import CallbackServer
from tests.client.commands import cli
from tests.embedded import embedded_service

pytestmark = pytest.mark.integration

ITEMS = [{"kind": "toy", "puzzle": "12"}]


@pytest.fixture(scope="module")
def callbacks_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with embedded_service(tmp_path_factory.mktemp("callbacks"), WEBHOOK_ALLOWED_HOSTS="127.0.0.1",
                          WEBHOOK_SECRET="embedded-secret", REAP_INTERVAL="0.3") as service:
        yield service.url


def test_valid_signature_accepts_only_the_exact_body_under_the_right_secret():
    header = "sha256=" + "0" * 64
    assert not valid_signature("k", b"{}", header) and not valid_signature("k", b"{}", None)
    good = "sha256=" + hmac.new(b"k", b"{}", hashlib.sha256).hexdigest()
    assert valid_signature("k", b"{}", good)
    assert not valid_signature("k", b"{} ", good) and not valid_signature("other", b"{}", good)


def test_valid_timestamped_signature_refuses_a_replay_another_delivery_and_another_body():
    at = 1_800_000_000
    headers = webhooks.signed_headers("k", at, 12, b"{}")  # as the workers sign an attempt
    assert valid_timestamped_signature("k", b"{}", headers, at=at + 299)
    assert valid_timestamped_signature("k", b"{}", {k.lower(): v for k, v in headers.items()}, at=at)
    assert not valid_timestamped_signature("k", b"{}", headers, at=at + 301)  # replayed too late
    assert not valid_timestamped_signature("k", b"{}", headers, window=10, at=at + 11)
    assert not valid_timestamped_signature("k", b"{} ", headers, at=at)
    assert not valid_timestamped_signature("other", b"{}", headers, at=at)
    assert not valid_timestamped_signature("k", b"{}", {**headers, "X-Puzzle-Queue-Delivery": "13"}, at=at)
    assert not valid_timestamped_signature("k", b"{}", {**headers, "X-Puzzle-Queue-Timestamp": str(at + 1)},
                                           at=at)
    assert not valid_timestamped_signature("k", b"{}", {"X-Signature": headers["X-Signature"]}, at=at)
    assert valid_signature("k", b"{}", headers["X-Signature"])  # the body's own signature stays


def test_a_job_posts_itself_signed_when_it_ends(callbacks_url):
    with CallbackServer() as server, Client(callbacks_url) as c:
        job = c.wait(c.submit(ITEMS, label="hooked", callback_url=server.url()), poll=1.0)
        deadline = time.monotonic() + 30
        while not (shown := c.deliveries(job)) or shown[0]["state"] == "due":
            assert time.monotonic() < deadline, shown
            time.sleep(0.2)
        [got] = server.received
        assert valid_signature(c.webhook_secret(), got.body, got.headers.get("X-Signature"))
        assert valid_timestamped_signature(c.webhook_secret(), got.body, got.headers)
    assert shown[0]["state"] == "delivered" and job["status"] == "completed"
    # The command shows the same delivery and its attempt, as text and as JSON.
    shown_text = cli(callbacks_url, "deliveries", job["id"])
    assert shown_text.returncode == 0, shown_text.stderr
    assert f"{shown[0]['id']}" in shown_text.stdout and "delivered" in shown_text.stdout
    assert f"#1 {shown[0]['attempts'][0]['at']} 200 " in shown_text.stdout
    as_json = cli(callbacks_url, "deliveries", "--json", job["id"])
    assert json.loads(as_json.stdout) == shown
    plain = cli(callbacks_url, "deliveries", finished_job_without_callback(callbacks_url))
    assert plain.returncode == 0 and "no deliveries" in plain.stdout


def finished_job_without_callback(url: str) -> str:
    with Client(url) as c:
        return c.wait(c.submit(ITEMS, label="no hook"), poll=1.0)["id"]


def test_with_callbacks_off_a_callback_url_is_refused_naming_it(service_url):
    with Client(service_url) as c:
        with pytest.raises(InvalidRequest) as refused:
            c.submit(ITEMS, callback_url="http://127.0.0.1:9/x")
        assert [e["field"] for e in refused.value.errors] == ["callback_url"]
        with pytest.raises(NotFound):
            c.webhook_secret()
