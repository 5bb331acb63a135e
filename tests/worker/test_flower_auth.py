"""Flower's /metrics asks for flower's basic auth (worker.flower_auth); flower 2.2 alone serves it to
anyone."""

from __future__ import annotations

from base64 import b64encode
from types import SimpleNamespace

import tornado.web
from flower.views.monitor import Metrics
from tornado.testing import AsyncHTTPTestCase

from worker.flower_auth import protect_metrics


class FlowerMetrics(AsyncHTTPTestCase):
    def get_app(self) -> tornado.web.Application:
        protect_metrics()
        app = tornado.web.Application([(r"/metrics", Metrics)])
        app.options = SimpleNamespace(basic_auth=["admin:secret"], auth=None, debug=False)  # type: ignore[attr-defined]
        app.purge_offline_worker_metrics = lambda: None  # type: ignore[attr-defined]
        return app

    def test_metrics_without_credentials_is_401(self) -> None:
        # Before: 200 with every queue's and task's figures.
        r = self.fetch("/metrics")
        assert r.code == 401 and r.headers["WWW-Authenticate"] == 'Basic realm="flower"'
        wrong = b64encode(b"admin:guess").decode()
        assert self.fetch("/metrics", headers={"Authorization": f"Basic {wrong}"}).code == 401

    def test_metrics_with_flowers_credentials_is_served(self) -> None:
        right = b64encode(b"admin:secret").decode()
        r = self.fetch("/metrics", headers={"Authorization": f"Basic {right}"})
        assert r.code == 200 and b"# HELP" in r.body
