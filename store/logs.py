"""Log lines of the API and the workers: one handler on the root logger, plain text or JSON lines.

``LOG_FORMAT`` is ``text`` (the default: ``time level logger [ids]: message``) or ``json`` (one
object a line: ``time``, ``level``, ``logger``, ``message``, the ids, the fields a line passes
with ``extra=`` and ``exception``); ``LOG_LEVEL`` is a level name (unset: INFO, or a worker's
``--loglevel``). Lines go to standard error, where gunicorn, celery and docker collect them.

Every line carries the ids of the work at hand: in a worker ``task`` and ``task_id``, and ``job``,
``puzzle`` and ``subtask`` while one is solved (:func:`context`); in the API the request's
(service.access_log adds them through ``ID_SOURCES``).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from store.settings import LOG_FORMATS

# More ids for every line, from what the process serves (the API: the request's id and client).
ID_SOURCES: list[Callable[[], dict[str, str]]] = []
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
    for source in ID_SOURCES:
        ids.update(source())
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
    if fmt not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT is {fmt!r}; it is one of {', '.join(LOG_FORMATS)}")
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
