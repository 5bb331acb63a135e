"""Flower's /metrics asks for flower's basic auth (worker.flower_auth); flower 2.2 alone serves it to
anyone."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from base64 import b64encode
from collections.abc import Iterator
from email.message import Message
from types import SimpleNamespace

import pytest
import tornado.web
from flower.views.monitor import Metrics
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

from worker.flower_auth import protect_metrics


@pytest.fixture
def metrics_url() -> Iterator[str]:
    """Flower's metrics page served by tornado in a thread of its own, with its own event loop (the
    test process may run another loop: the browser tests' driver)."""
    protect_metrics()
    app = tornado.web.Application([(r"/metrics", Metrics)])
    app.options = SimpleNamespace(basic_auth=["admin:secret"], auth=None, debug=False)  # type: ignore[attr-defined]
    app.purge_offline_worker_metrics = lambda: None  # type: ignore[attr-defined]
    sockets = bind_sockets(0, "127.0.0.1")
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        server = HTTPServer(app)
        server.add_sockets(sockets)
        loop.call_soon(started.set)
        loop.run_forever()
        server.stop()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(10)
    yield f"http://127.0.0.1:{sockets[0].getsockname()[1]}/metrics"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def fetch(url: str, credentials: bytes | None = None) -> tuple[int, Message, bytes]:
    headers = {"Authorization": f"Basic {b64encode(credentials).decode()}"} if credentials else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_metrics_without_credentials_is_401(metrics_url: str) -> None:
    code, headers, _ = fetch(metrics_url)
    assert code == 401 and headers["WWW-Authenticate"] == 'Basic realm="flower"'
    assert fetch(metrics_url, b"admin:guess")[0] == 401


def test_metrics_with_flowers_credentials_is_served(metrics_url: str) -> None:
    code, _, body = fetch(metrics_url, b"admin:secret")
    assert code == 200 and b"# HELP" in body
