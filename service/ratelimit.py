"""Request-rate limits per client (Flask-Limiter).

``RATE_LIMIT`` (default ``20/second;600/minute``; empty: no limit) counts every request of one
client together, whatever the endpoint: by client name (service.auth), or by remote address
when auth is off or the request has no valid token (so guessing tokens is limited too). Fixed
windows; the counts live in Redis when ``REDIS_URL`` is set (shared by every API process),
in the process's memory otherwise. Over the limit: 429 problem+json with ``Retry-After``, the
seconds until the window that was exceeded ends.

A Redis outage must not turn requests into errors: the limiter then counts in memory, per
process, and goes back to Redis once it answers again (Flask-Limiter's in-memory fallback);
any other error of the limiter is logged and the request goes on (``swallow_errors``).
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, current_app, request
from flask_limiter import Limiter, RateLimitExceeded
from limits import parse_many

from service.auth import client_name
from service.marks import ViewMark
from service.problems import Problem
from store.settings import Settings

# Views the limits never refuse (health checks: an orchestrator's probes).
exempt = ViewMark()


def _client_key() -> str:
    name = client_name()
    return f"client:{name}" if name is not None else f"address:{request.remote_addr}"


def _too_many(exc: RateLimitExceeded) -> Any:
    limiter: Limiter = current_app.extensions["rate_limiter"]
    window = exc.limit.limit.get_expiry()
    try:
        current = limiter.current_limit
        seconds = window if current is None else current.reset_at - time.time()
    except Exception:  # the storage went away since the check: the whole window is an upper bound
        seconds = window
    # reset_at is rounded up to the next whole second: never more than the window.
    retry = max(1, min(window, math.ceil(seconds)))
    detail = f"over the rate limit of {exc.limit.limit}; try again in {retry} s"
    return Problem(429, "Too Many Requests", detail, headers={"Retry-After": str(retry)},
                   limit=str(exc.limit.limit)).response()


def init_app(app: Flask, settings: Settings) -> None:
    text = settings.access.rate_limit.strip()
    if not text:
        return
    try:
        parse_many(text)
    except ValueError as exc:
        raise ValueError(f"RATE_LIMIT {text!r} is not a list of limits like 20/second;600/minute "
                         f"({exc})") from None
    redis_url = settings.connections.redis_url
    limiter = Limiter(
        _client_key,
        application_limits=[text],
        strategy="fixed-window",
        storage_uri=redis_url or "memory://",
        # A Redis that does not answer costs a request at most this long before the fallback.
        storage_options={"socket_connect_timeout": 1, "socket_timeout": 1} if redis_url else {},
        key_prefix="puzzle-queue",
        in_memory_fallback_enabled=True,
        swallow_errors=True,
    )
    limiter.request_filter(exempt.on_request)
    limiter.init_app(app)
    app.extensions["rate_limiter"] = limiter
    app.register_error_handler(RateLimitExceeded, _too_many)
