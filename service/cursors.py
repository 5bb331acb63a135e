"""Page cursors: opaque to clients, a position in a stable order to the store (store.jobs)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

from service.bodies import nesting_depth
from store import events
from store.fastjson import canonical
from store.jobs import JobPosition, possible_index, possible_job_id
from store.models import aware

NOT_OURS = "cursor is not one this API returned"


def encode(*values: Any) -> str:
    return base64.urlsafe_b64encode(canonical(list(values)).encode()).decode().rstrip("=")


def decode(cursor: str) -> list[Any]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        # Ours are flat lists; a deeper nesting is refused before json.loads recurses into it.
        values = json.loads(text) if nesting_depth(text) == 1 else None
    except ValueError:
        values = None
    if not isinstance(values, list):
        raise ValueError(NOT_OURS)
    return values


def puzzle_index(cursor: str | None) -> int:
    """The first index of a page of puzzles (ValueError: not a cursor of ours)."""
    if cursor is None:
        return 0
    values = decode(cursor)
    if len(values) != 1 or not possible_index(values[0]):
        raise ValueError(NOT_OURS)
    return int(values[0])


def job_position(cursor: str | None) -> JobPosition | None:
    """The first position of a page of jobs (ValueError: not a cursor of ours)."""
    if cursor is None:
        return None
    values = decode(cursor)
    if len(values) != 2 or not all(isinstance(v, str) for v in values) or not possible_job_id(values[1]):
        raise ValueError(NOT_OURS)
    try:
        return datetime.fromisoformat(values[0]), values[1]
    except ValueError:
        raise ValueError(NOT_OURS) from None


def event_position(cursor: str | None) -> events.Position | None:
    """The position a page of events follows (ValueError: not a cursor of ours)."""
    if cursor is None:
        return None
    values = decode(cursor)
    if (len(values) != 6 or not isinstance(values[0], str)
            or not all(type(v) is int and -1 <= v < 1 << 62 for v in values[1:])):
        raise ValueError(NOT_OURS)
    try:  # in UTC (a time near the calendar's ends has none: not ours)
        at = aware(datetime.fromisoformat(values[0])).astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValueError(NOT_OURS) from None
    return at, values[1], values[2], values[3], values[4], values[5]


def of_event(position: events.Position | None) -> str | None:
    return None if position is None else encode(position[0].isoformat(), *position[1:])


def of_puzzle(index: int | None) -> str | None:
    return None if index is None else encode(index)


def of_job(position: JobPosition | None) -> str | None:
    return None if position is None else encode(position[0].isoformat(), position[1])
