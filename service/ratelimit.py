"""Request-rate limits per client (Flask-Limiter).

Two counts per client, so that a client that posts jobs and follows them never runs out of one
because of the other: ``RATE_LIMIT`` (default ``100/second;6000/minute``) counts its writes
(submissions and actions: every method but GET and HEAD), ``READ_RATE_LIMIT`` (the same default)
its reads. A long poll that waits (``?wait=`` above 0 on an unfinished job) is not counted: the
server paces it. A client that waits
for each job before the next, as the README's loops, the client and the page do, stays well under
both; bursts up to a second's limit pass. An empty setting: that count has no limit.

A client is its name (service.auth), or its remote address when auth is off or the request has no
valid token (so guessing tokens is limited too). Fixed windows; the counts live in Redis when
``REDIS_URL`` is set (shared by every API process), in the process's memory otherwise. Over a
limit: 429 problem+json with ``Retry-After``, the seconds until the window that was exceeded ends.

A Redis outage must not turn requests into errors: the limiter then counts in memory, per
process, and goes back to Redis once it answers again (Flask-Limiter's in-memory fallback);
any other error of the limiter is logged and the request goes on (``swallow_errors``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from limits import parse_many

from service.auth import client_name
from service.marks import ViewMark
from service.problems import Problem
from store.settings import Settings

T = TypeVar("T")

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


READS = ("GET", "HEAD")
WRITES = ("POST", "PUT", "PATCH", "DELETE")


def paced(sleep: Callable[[float], T]) -> Callable[[float], T]:
    """``sleep``, marking the request as a long poll that waited: the server paced it, so it is
    not counted among the client's reads (a long poll on a job already final is)."""
    def marked(seconds: float) -> T:
        g.paced_by_the_server = True
        return sleep(seconds)
    return marked


def _counted(_response: Any) -> bool:
    return not g.get("paced_by_the_server", False)


def _limits(name: str, text: str) -> str:
    """The setting, checked at start: a malformed one stops the service with its name."""
    try:
        parse_many(text)
    except ValueError as exc:
        raise ValueError(f"{name} {text!r} is not a list of limits like 100/second;6000/minute "
                         f"({exc})") from None
    return text


def init_app(app: Flask, settings: Settings) -> None:
    access = settings.access
    limits: list[str | Callable[[], str] | ApplicationLimit] = []
    if access.rate_limit.strip():
        limits.append(ApplicationLimit(_limits("RATE_LIMIT", access.rate_limit.strip()), methods=WRITES,
                                       scope="writes"))
    if access.read_rate_limit.strip():
        limits.append(ApplicationLimit(_limits("READ_RATE_LIMIT", access.read_rate_limit.strip()),
                                       methods=READS, scope="reads", deduct_when=_counted))
    if not limits:
        return
    redis_url = settings.connections.redis_url
    limiter = Limiter(
        _client_key,
        application_limits=limits,
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
