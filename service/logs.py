"""Logging of the API and the workers: one handler on the root logger, plain text or JSON lines.

``LOG_FORMAT`` is ``text`` (the default: ``time level logger [ids]: message``) or ``json`` (one
object a line: ``time``, ``level``, ``logger``, ``message``, the ids, the fields a line passes
with ``extra=`` and ``exception``); ``LOG_LEVEL`` is a level name (unset: INFO, or a worker's
``--loglevel``). Lines go to standard error, where gunicorn, celery and docker collect them.

Every line carries the ids of the work at hand. In the API: ``request_id`` (the request's
``X-Request-ID`` when it sends a sensible one, else a new one; echoed in the response) and
``client``; each request ends with one line of logger ``service.access``: method, path, status,
duration and remote address. In a worker: ``task`` and ``task_id`` (worker/__init__.py), and
``job``, ``puzzle`` and ``subtask`` while one is solved (:func:`context`).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from flask import Flask, Response, g, has_request_context, request

from service.auth import client_name

FORMATS = ("text", "json")
REQUEST_ID_HEADER = "X-Request-ID"
# A caller's id is taken when it could not break a log line or a header; anything else is replaced.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
PATH_SAFE = "/:@!$&'()*+,;=-._~"  # RFC 3986's characters of a path that need no encoding

access = logging.getLogger("service.access")
_ids: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("log_ids", default=())
# The attributes every LogRecord has; the others came with ``extra=``.
_STANDARD = {*vars(logging.LogRecord("", 0, "", 0, "", None, None)), "message", "asctime", "ids"}


@contextmanager
def context(**ids: object) -> Iterator[None]:
    """Put these ids (job, puzzle, ...) on every line logged inside, in this thread."""
    token = _ids.set(tuple({**dict(_ids.get()), **{k: str(v) for k, v in ids.items()}}.items()))
    try:
        yield
    finally:
        _ids.reset(token)


def bind(**ids: object) -> None:
    """Set the ids of what this thread does from now on (a task, from its start to its end)."""
    _ids.set(tuple((k, str(v)) for k, v in ids.items()))


def current_ids() -> dict[str, str]:
    ids = dict(_ids.get())
    if has_request_context() and "request_id" in g:
        ids["request_id"] = g.request_id
        client = client_name()
        if client is not None:
            ids["client"] = client
    return ids


class _AddIds(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.ids = current_ids()
        return True


def _extra(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class TextFormatter(logging.Formatter):
    """``time level logger [k=v ...]: message``, the traceback below."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802  logging's name
        ids: dict[str, str] = getattr(record, "ids", {})
        tags = " [" + " ".join(f"{k}={v}" for k, v in ids.items()) + "]" if ids else ""
        return f"{self.formatTime(record)} {record.levelname} {record.name}{tags}: {record.message}"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
                    .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **getattr(record, "ids", {}),
            **_extra(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str)


class _Handler(logging.StreamHandler):
    """Ours, told apart from other handlers (pytest's, for one) when configured again."""


def configure(level: str | int, fmt: str) -> None:
    """Install the handler on the root logger (replacing one installed before) at ``level``."""
    if fmt not in FORMATS:
        raise ValueError(f"LOG_FORMAT is {fmt!r}; it is one of {', '.join(FORMATS)}")
    number = level if isinstance(level, int) else logging.getLevelName(level.strip().upper())
    if not isinstance(number, int):
        raise ValueError(f"LOG_LEVEL is {level!r}; it is a level name such as INFO or DEBUG")
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    handler = _Handler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(_AddIds())
    root.addHandler(handler)
    root.setLevel(number)


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


def init_app(app: Flask) -> None:
    """Configure logging from the app's settings and log each request. Called first in
    create_app, so that the request id exists before any other hook (the rate limiter's) runs."""
    configure(app.config["LOG_LEVEL"] or "INFO", app.config["LOG_FORMAT"])
    app.before_request(_start)
    app.after_request(_finish)
