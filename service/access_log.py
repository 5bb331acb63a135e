"""The API's log lines: each request's id and client on every line logged while it is served, and
one line of logger ``service.access`` when it ends (method, path, status, duration, address).

The request id is the request's ``X-Request-ID`` when it sends a sensible one, else a new one;
the response echoes it.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from urllib.parse import quote

from flask import Flask, Response, g, has_request_context, request

from service.auth import client_name
from store import logs
from store.settings import Logging

REQUEST_ID_HEADER = "X-Request-ID"
# A caller's id is taken when it could not break a log line or a header; anything else is replaced.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
PATH_SAFE = "/:@!$&'()*+,;=-._~"  # RFC 3986's characters of a path that need no encoding

access = logging.getLogger("service.access")


def request_ids() -> dict[str, str]:
    if not has_request_context() or "request_id" not in g:
        return {}
    ids = {"request_id": g.request_id}
    client = client_name()
    if client is not None:
        ids["client"] = client
    return ids


def _start() -> None:
    given = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
    g.request_started = time.perf_counter()


def _finish(response: Response) -> Response:
    response.headers[REQUEST_ID_HEADER] = g.request_id
    ms = (time.perf_counter() - g.request_started) * 1000
    # Percent-encoded again, as it came: a decoded %0A in a path would start a forged line.
    path = quote(request.path, safe=PATH_SAFE)
    access.info("%s %s -> %d in %.1f ms from %s", request.method, path, response.status_code, ms,
                request.remote_addr,
                extra={"method": request.method, "path": path, "status": response.status_code,
                       "duration_ms": round(ms, 1), "remote": request.remote_addr})
    return response


def init_app(app: Flask, settings: Logging) -> None:
    """Configure logging and log each request. Called first in create_app, so that the request id
    exists before any other hook (the rate limiter's) runs."""
    logs.configure(settings.log_level or "INFO", settings.log_format)
    if request_ids not in logs.ID_SOURCES:
        logs.ID_SOURCES.append(request_ids)
    app.before_request(_start)
    app.after_request(_finish)
