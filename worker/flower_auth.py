"""Flower with /metrics behind its own authentication: flower 2.2 serves /metrics (queue and task
figures) to anyone, even with FLOWER_BASIC_AUTH or --auth set, while every other page asks.

``python -m worker.flower_auth [flower options]`` runs ``celery -A worker.app flower`` with the
metrics handler wrapped in tornado's ``authenticated``, as flower's other pages are."""

from __future__ import annotations

import sys

import tornado.web
from flower.views.monitor import Metrics


def protect_metrics() -> None:
    """Make /metrics ask for flower's credentials (once, however often called)."""
    if not getattr(Metrics.get, "protected", False):
        guarded = tornado.web.authenticated(Metrics.get)
        guarded.protected = True  # type: ignore[attr-defined]
        Metrics.get = guarded


def main(argv: list[str]) -> None:
    protect_metrics()
    from celery.bin.celery import main as celery_main

    sys.argv = ["celery", "-A", "worker.app", "flower", *argv]
    celery_main()


if __name__ == "__main__":
    main(sys.argv[1:])
